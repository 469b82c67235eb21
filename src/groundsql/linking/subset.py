"""`SchemaSubset`: the tables and columns a linker kept, each with its role, reason and evidence."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from groundsql.catalog.schema import Schema


@dataclass
class LinkedColumn:
    name: str
    reason: str = ""
    evidence: list[str] = field(default_factory=list)  # observations, stored spellings of values, …


@dataclass
class LinkedTable:
    name: str
    role: str = ""  # target | bridge | filter | join | …
    reason: str = ""
    columns: dict[str, LinkedColumn] = field(default_factory=dict)


@dataclass
class SchemaSubset:
    """Table name → `LinkedTable`. Names are spelled as in the database."""

    tables: dict[str, LinkedTable] = field(default_factory=dict)
    linker: str = ""
    notes: list[str] = field(default_factory=list)

    def add(self, table: str, column: str | None = None, *, role: str = "", reason: str = "",
            evidence: list[str] | None = None) -> None:
        entry = self.tables.setdefault(table, LinkedTable(name=table, role=role, reason=reason))
        if role and not entry.role:
            entry.role = role
        if column is not None:
            linked = entry.columns.setdefault(column, LinkedColumn(name=column, reason=reason))
            linked.evidence.extend(evidence or [])

    def merge(self, other: SchemaSubset) -> SchemaSubset:
        for table in other.tables.values():
            self.add(table.name, role=table.role, reason=table.reason)
            for column in table.columns.values():
                self.add(table.name, column.name, reason=column.reason, evidence=column.evidence)
        return self

    @classmethod
    def from_schema(cls, schema: Schema, *, reason: str = "", linker: str = "") -> SchemaSubset:
        """Every table and column of `schema`."""
        subset = cls(linker=linker)
        for table in schema.tables:
            subset.add(table.name, reason=reason)
            for column in table.columns:
                subset.add(table.name, column.name)
        return subset

    def copy(self) -> SchemaSubset:
        other = SchemaSubset(linker=self.linker, notes=list(self.notes))
        return other.merge(self)

    def has(self, table: str, column: str | None = None) -> bool:
        """Case-insensitive membership of a table (or one of its columns)."""
        entry = self.get(table)
        if entry is None or column is None:
            return entry is not None
        lowered = column.lower()
        return any(name.lower() == lowered for name in entry.columns)

    def get(self, table: str) -> LinkedTable | None:
        if table in self.tables:
            return self.tables[table]
        lowered = table.lower()
        return next((t for name, t in self.tables.items() if name.lower() == lowered), None)

    def discard(self, table: str) -> None:
        entry = self.get(table)
        if entry is not None:
            del self.tables[entry.name]

    def column_count(self) -> int:
        return sum(len(t.columns) for t in self.tables.values())

    def restrict(self, schema: Schema) -> Schema:
        """The part of `schema` this subset keeps, as a `Schema` (for rendering prompts).

        A table listed without columns keeps all of them; key columns of kept tables are always kept so that
        joins stay expressible. Unknown names are ignored.
        """
        kept = []
        for table in schema.tables:
            entry = self.get(table.name)
            if entry is None:
                continue
            wanted = {c.lower() for c in entry.columns}
            keys = {c.lower() for c in table.primary_key}
            for fk in table.foreign_keys:
                keys.update(c.lower() for c in fk.columns)
            columns = [c for c in table.columns if not wanted or c.name.lower() in wanted | keys]
            kept_names = {c.name.lower() for c in columns}
            fks = [fk for fk in table.foreign_keys
                   if self.has(fk.ref_table) and all(c.lower() in kept_names for c in fk.columns)]
            kept.append(replace(table, columns=columns, foreign_keys=fks,
                                primary_key=[c for c in table.primary_key if c.lower() in kept_names]))
        return Schema(dialect=schema.dialect, tables=kept)

    def table_names(self) -> list[str]:
        return list(self.tables)

    def as_mapping(self) -> dict[str, list[str]]:
        """{table: [columns]}: the form recorded on the trace and in eval output."""
        return {name: list(table.columns) for name, table in self.tables.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "linker": self.linker,
            "tables": {
                name: {"role": t.role, "reason": t.reason,
                       "columns": {c.name: {"reason": c.reason, "evidence": c.evidence} for c in t.columns.values()}}
                for name, t in self.tables.items()
            },
        }
