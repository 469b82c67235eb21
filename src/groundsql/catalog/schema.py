"""Plain data describing a database's structure: tables, columns, keys."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Column:
    name: str
    type: str = ""
    nullable: bool = True
    primary_key: bool = False
    comment: str | None = None
    description: str | None = None  # user-supplied or generated
    source_type: str | None = None  # the SQLite original's declared type, on a copy (`catalog.sqlite_types`)


@dataclass
class ForeignKey:
    columns: list[str]
    ref_table: str
    ref_columns: list[str]
    inferred: bool = False


@dataclass
class Table:
    name: str
    columns: list[Column] = field(default_factory=list)
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    comment: str | None = None
    is_view: bool = False
    row_count: int | None = None

    def column(self, name: str) -> Column | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)


@dataclass
class Schema:
    dialect: str
    tables: list[Table] = field(default_factory=list)

    def table(self, name: str) -> Table | None:
        lowered = name.lower()
        return next((t for t in self.tables if t.name.lower() == lowered), None)

    @property
    def table_names(self) -> list[str]:
        return [t.name for t in self.tables]
