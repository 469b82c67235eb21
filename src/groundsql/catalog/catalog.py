"""`Catalog`: everything groundsql knows about one database before the first question."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.profiles import ColumnProfile, TableProfile
from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
from groundsql.catalog.values import ValueIndex, ValueMatch

#: Bumped whenever the profile format or the profiling rules change; old cache files are then rebuilt.
CATALOG_VERSION = 1


@dataclass
class Catalog:
    """The profiled database.

    Attributes:
        schema: the introspected structure (declared keys, plus inferred foreign keys flagged `inferred`,
            and descriptions filled in), usable wherever a `Schema` is.
        tables: one `TableProfile` per table or view, in schema order.
        join_graph: declared and inferred relationships; `shortest_join_path(a, b)` connects two tables.
        value_index: distinct stored values of text and categorical columns; `lookup(text)` maps literals.
        fingerprint: hash of the structure the catalog was built from (the cache key).
    """

    schema: Schema
    tables: list[TableProfile] = field(default_factory=list)
    join_graph: JoinGraph = field(default_factory=JoinGraph)
    value_index: ValueIndex = field(default_factory=ValueIndex)
    fingerprint: str = ""
    database: str = ""
    built_at: str = ""
    build_seconds: float = 0.0
    enriched: bool = False
    from_cache: bool = False
    version: int = CATALOG_VERSION

    @property
    def dialect(self) -> str:
        return self.schema.dialect

    @property
    def table_names(self) -> list[str]:
        return [t.name for t in self.tables]

    def table(self, name: str) -> TableProfile | None:
        """The profile of table `name` (case-insensitive), or None."""
        lowered = name.lower()
        return next((t for t in self.tables if t.name.lower() == lowered), None)

    def column(self, table: str, column: str) -> ColumnProfile | None:
        profile = self.table(table)
        return profile.column(column) if profile else None

    def shortest_join_path(self, start: str, end: str) -> list[Relationship] | None:
        """See `JoinGraph.shortest_join_path`."""
        return self.join_graph.shortest_join_path(start, end)

    def lookup_value(self, text: str, **options: Any) -> list[ValueMatch]:
        """See `ValueIndex.lookup`."""
        return self.value_index.lookup(text, **options)

    def to_dict(self, *, include_values: bool = True, include_schema: bool = True) -> dict[str, Any]:
        """A JSON-ready dict. The `tables` list is the stable shape `groundsql profile --json` prints."""
        data: dict[str, Any] = {
            "version": self.version,
            "database": self.database,
            "dialect": self.dialect,
            "fingerprint": self.fingerprint,
            "built_at": self.built_at,
            "build_seconds": round(self.build_seconds, 3),
            "enriched": self.enriched,
            "tables": [t.to_dict() for t in self.tables],
            "join_graph": self.join_graph.to_dict(),
        }
        if include_schema:
            data["schema"] = asdict(self.schema)
        if include_values:
            data["value_index"] = self.value_index.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        schema_data = data.get("schema") or {"dialect": data.get("dialect", ""), "tables": []}
        schema = Schema(dialect=schema_data["dialect"], tables=[_table_from_dict(t) for t in schema_data["tables"]])
        return cls(
            schema=schema,
            tables=[TableProfile.from_dict(t) for t in data.get("tables") or []],
            join_graph=JoinGraph.from_dict(data.get("join_graph") or {}),
            value_index=ValueIndex.from_dict(data.get("value_index") or {}),
            fingerprint=data.get("fingerprint", ""),
            database=data.get("database", ""),
            built_at=data.get("built_at", ""),
            build_seconds=float(data.get("build_seconds") or 0.0),
            enriched=bool(data.get("enriched")),
            version=int(data.get("version") or 0),
        )


def _table_from_dict(data: dict[str, Any]) -> Table:
    values = dict(data)
    values["columns"] = [Column(**c) for c in data.get("columns") or []]
    values["foreign_keys"] = [ForeignKey(**fk) for fk in data.get("foreign_keys") or []]
    return Table(**values)
