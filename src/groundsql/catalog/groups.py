"""Table families: tables with the same columns whose names differ only by a suffix (`sales_2017` … `sales_2024`).

Rendering shows one representative per family with the list of names (APEX-SQL schema merging, ProSPy grouping).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from groundsql.catalog.profiles import TableProfile

# A trailing run of digits (years, shard numbers), optionally after a separator, or a short date-like suffix.
_SUFFIX = re.compile(r"^(?P<stem>.*?)(?P<sep>[_\-]?)(?P<suffix>\d+|\d{4}_\d{2}|q\d|[a-z])$", re.IGNORECASE)


@dataclass
class TableGroup:
    """A representative table and the other tables that share its columns."""

    representative: str
    members: list[str] = field(default_factory=list)  # representative first

    @property
    def pattern(self) -> str:
        return self.representative if len(self.members) <= 1 else f"{_stem(self.representative)}*"


def group_tables(tables: list[TableProfile], min_size: int = 3) -> list[TableGroup]:
    """Groups in first-seen order; a family needs `min_size` members with identical column names and types."""
    buckets: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    order: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for table in tables:
        stem = _stem(table.name)
        shape = tuple((c.name.lower(), (c.declared_type or "").upper()) for c in table.columns)
        key = (stem.lower(), shape) if stem != table.name else (table.name.lower(), (("", "single"),))
        if key not in buckets:
            buckets[key] = []
            order.append(key)
        buckets[key].append(table.name)
    groups: list[TableGroup] = []
    for key in order:
        members = buckets[key]
        if len(members) >= min_size:
            groups.append(TableGroup(members[0], list(members)))
        else:
            groups.extend(TableGroup(name, [name]) for name in members)
    return groups


def _stem(name: str) -> str:
    match = _SUFFIX.match(name)
    if not match or not match.group("stem"):
        return name
    if match.group("suffix").isalpha() and not match.group("sep"):
        return name  # 'orders' must not become 'order' + 's'
    return match.group("stem")
