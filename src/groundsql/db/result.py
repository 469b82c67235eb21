"""Query results and their compact summaries for prompts."""

from __future__ import annotations

import datetime as dt
import decimal
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: A result longer than this is summarised for prompts (APEX-SQL result compression).
SUMMARY_THRESHOLD = 30
SUMMARY_HEAD = 10
CELL_LIMIT = 80


@dataclass
class Result:
    """Rows returned by one read-only statement."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False
    elapsed_s: float = 0.0
    sql: str = ""
    notes: list[str] = field(default_factory=list)
    #: Each column's type as the engine reported it (`db.column_types`); None (or an empty list) where unknown.
    types: list[str | None] = field(default_factory=list)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "rows": [[json_safe(v) for v in row] for row in self.rows],
            "row_count": self.row_count,
            "truncated": self.truncated,
        }

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame with the engine's column types (needs ``groundsql[dataframes]``)."""
        from groundsql.db.frames import to_pandas

        return to_pandas(self)

    def to_polars(self) -> Any:
        """The rows as a polars DataFrame with the engine's column types (needs ``groundsql[dataframes]``)."""
        from groundsql.db.frames import to_polars

        return to_polars(self)

    def to_arrow(self) -> Any:
        """The rows as a pyarrow Table with the engine's column types (needs ``groundsql[dataframes]``)."""
        from groundsql.db.frames import to_arrow

        return to_arrow(self)

    def summary(self, *, threshold: int = SUMMARY_THRESHOLD, head: int = SUMMARY_HEAD) -> str:
        """Text for a prompt: the whole table when short, else the first rows plus per-column statistics."""
        more = " (more rows exist; the result was cut at the row limit)" if self.truncated else ""
        if not self.rows:
            return f"columns: {', '.join(self.columns)}\n(0 rows)"
        if self.row_count <= threshold:
            return f"{self.row_count} rows{more}\n" + _table_text(self.columns, self.rows)
        lines = [f"{self.row_count} rows{more}; first {head}:", _table_text(self.columns, self.rows[:head])]
        lines.append("column statistics over all returned rows:")
        for index, name in enumerate(self.columns):
            lines.append("  " + _column_stats(name, [row[index] for row in self.rows]))
        return "\n".join(lines)

    def digest(self, head: int = 3) -> str:
        """Text for a reviewer's prompt: columns with their null counts, the row count and the first rows."""
        nulls = [sum(1 for row in self.rows if row[i] is None) for i in range(len(self.columns))]
        columns = ", ".join(f"{name} (nulls {count})" for name, count in zip(self.columns, nulls))
        lines = [f"columns: {columns}", f"rows: {self.row_count}{'+' if self.truncated else ''}"]
        lines += [" | ".join(str(v) for v in row) for row in self.rows[:head]]
        return "\n".join(lines)


def value_from_text(cell: str) -> Any:
    """A CSV cell as the value it spells: "" is NULL, whole numbers are ints, other numbers floats, else text
    (how a table written as CSV, e.g. by the Python stage, is read back)."""
    if cell == "":
        return None
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        value = float(cell)
    except ValueError:
        return cell
    return int(value) if value.is_integer() and "." not in cell and "e" not in cell.lower() else value


def json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    return str(value)


def _cell(value: Any) -> str:
    text = "NULL" if value is None else str(json_safe(value))
    return text if len(text) <= CELL_LIMIT else text[: CELL_LIMIT - 1] + "…"


def _table_text(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    lines = [" | ".join(columns)]
    lines += [" | ".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines)


def _column_stats(name: str, values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    nulls = len(values) - len(present)
    distinct = len(set(map(repr, present)))
    kinds = Counter(type(json_safe(v)).__name__ for v in present)
    kind = kinds.most_common(1)[0][0] if kinds else "null"
    parts = [f"{name}: {kind}", f"distinct={distinct}", f"nulls={nulls}"]
    try:
        if present:
            parts.append(f"min={_cell(min(present))}")
            parts.append(f"max={_cell(max(present))}")
    except TypeError:
        pass
    return ", ".join(parts)
