"""Schema merging and token-budgeted batches (APEX-SQL §4.2.5, ProSPy A.2).

Tables with identical columns (e.g. sales_2019, sales_2020) become one entry shown once with all their names;
entries are packed into batches whose rendered text stays under a token budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context
from groundsql.linking.budget import estimate_tokens
from groundsql.linking.common import table_text
from groundsql.linking.options import LinkOptions


@dataclass
class Entry:
    """One prompt entry: a representative table and every table sharing its columns."""

    tables: list[Table]

    @property
    def representative(self) -> Table:
        return self.tables[0]

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tables]


def merge_identical(schema: Schema) -> list[Entry]:
    """Group tables whose column names and types are identical, keeping schema order."""
    groups: dict[tuple, Entry] = {}
    for table in schema.tables:
        key = tuple((c.name.lower(), (c.type or "").upper()) for c in table.columns)
        if key in groups and key:
            groups[key].tables.append(table)
        else:
            groups[key if key else ("__empty__", table.name)] = Entry([table])
    return list(groups.values())


def names_text(table: Table) -> str:
    """One line per table: its name and its columns (keys marked), about a third of the DDL's tokens."""
    keys = {c.lower() for c in table.primary_key}
    links = {c.lower(): f"{fk.ref_table}" for fk in table.foreign_keys for c in fk.columns}
    columns = []
    for column in table.columns:
        mark = " (key)" if column.name.lower() in keys else ""
        if column.name.lower() in links:
            mark += f" (→ {links[column.name.lower()]})"
        columns.append(column.name + mark)
    return f"{table.name}: {', '.join(columns)}"


def entry_text(ctx: Context, entry: Entry, sample_limit: int = 0, style: str = "ddl") -> str:
    if style == "names":
        text = names_text(entry.representative)
        if len(entry.tables) > 1:
            text += f"  [same columns: {', '.join(entry.names[1:])}]"
        return text
    text = table_text(ctx, entry.representative, sample_limit)
    if len(entry.tables) > 1:
        others = ", ".join(entry.names[1:])
        text = f"-- The tables {others} have exactly the same columns as {entry.representative.name}.\n{text}"
    return text


def batches(ctx: Context, schema: Schema, *, budget: int | None = None, sample_limit: int = 0,
            style: str = "ddl") -> list[list[Entry]]:
    """Merged entries packed in order into batches of at most `budget` estimated tokens (at least one entry), each
    entry measured as shown: DDL (`style="ddl"`) or one line of names (`style="names"`)."""
    budget = int(budget or ctx.settings(LinkOptions).link_batch_tokens)
    result: list[list[Entry]] = []
    current: list[Entry] = []
    used = 0
    for entry in merge_identical(schema):
        cost = estimate_tokens(entry_text(ctx, entry, sample_limit, style))
        if current and used + cost > budget:
            result.append(current)
            current, used = [], 0
        current.append(entry)
        used += cost
    if current:
        result.append(current)
    return result


def batch_text(ctx: Context, batch: list[Entry], sample_limit: int = 0, style: str = "ddl") -> str:
    joiner = "\n" if style == "names" else "\n\n"
    return joiner.join(entry_text(ctx, e, sample_limit, style) for e in batch)


def batch_schema(schema: Schema, batch: list[Entry]) -> Schema:
    return Schema(dialect=schema.dialect, tables=[t for e in batch for t in e.tables])
