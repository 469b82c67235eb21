"""Profiles: what the catalog records about each column and table (plain dataclasses, JSON round-trip)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from groundsql.catalog.schema import ForeignKey

#: Sample values and top values are cut to this many characters (ProSPy bounds previews the same way).
VALUE_CHAR_LIMIT = 120


@dataclass
class ValueCount:
    """One value of a dimension with how often it occurs (in the profiled rows)."""

    value: Any
    count: int
    ratio: float


@dataclass
class ColumnProfile:
    """A column: declared and physical type, semantic type, statistics for its type, description.

    `semantic_type` is one of identifier, dimension, metric, time, other (see `groundsql.catalog.types`).
    Fields that do not apply to a column's type stay None / empty.
    """

    name: str
    declared_type: str = ""
    source_type: str | None = None  # the SQLite original's declared type, on a copy (`catalog.sqlite_types`)
    physical_type: str = "string"  # one of types.PHYSICAL_FAMILIES
    semantic_type: str = "other"
    nullable: bool = True
    primary_key: bool = False
    # hidden encodings found by inference: a datetime format list, 'epoch_s', a numeric text kind, 'json', 'boolean'
    hidden_type: str | None = None
    time_formats: list[str] = field(default_factory=list)
    # statistics over the profiled rows (all rows, or a sample when `TableProfile.sampled`)
    null_count: int = 0
    null_ratio: float = 0.0
    distinct_count: int | None = None
    unique_ratio: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    top_values: list[ValueCount] = field(default_factory=list)  # dimensions
    sample_values: list[Any] = field(default_factory=list)
    min: Any = None  # metrics (and raw MIN of anything comparable)
    max: Any = None
    avg: float | None = None
    stddev: float | None = None
    earliest: str | None = None  # time, ISO 8601
    latest: str | None = None
    true_ratio: float | None = None  # boolean-like columns
    false_ratio: float | None = None
    nested: list[ColumnProfile] = field(default_factory=list)  # JSON leaf paths such as $.tags[].name
    description: str | None = None
    description_source: str | None = None  # comment | user | generated
    value_description: str | None = None  # BIRD-style notes on what the values mean

    def to_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ColumnProfile:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["top_values"] = [ValueCount(**v) for v in data.get("top_values") or []]
        values["nested"] = [ColumnProfile.from_dict(n) for n in data.get("nested") or []]
        return cls(**values)


@dataclass
class TableProfile:
    """A table or view: its columns' profiles, row count, declared and inferred keys, description."""

    name: str
    columns: list[ColumnProfile] = field(default_factory=list)
    row_count: int | None = None
    is_view: bool = False
    primary_key: list[str] = field(default_factory=list)
    primary_key_inferred: bool = False
    foreign_keys: list[ForeignKey] = field(default_factory=list)  # declared first, then inferred
    is_bridge: bool = False  # links two or more tables many-to-many (ProSPy case study: FILM_ACTOR)
    sampled: bool = False
    sample_size: int | None = None
    description: str | None = None
    description_source: str | None = None
    profile_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def column(self, name: str) -> ColumnProfile | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def to_dict(self) -> dict[str, Any]:
        data = _clean(asdict(self))
        data["columns"] = [c.to_dict() for c in self.columns]
        data["foreign_keys"] = [asdict(fk) for fk in self.foreign_keys]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableProfile:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["columns"] = [ColumnProfile.from_dict(c) for c in data.get("columns") or []]
        values["foreign_keys"] = [ForeignKey(**fk) for fk in data.get("foreign_keys") or []]
        return cls(**values)


#: Keys scripts rely on (`groundsql profile --json`): always present, even when empty or null.
_ALWAYS = frozenset({"name", "row_count", "columns", "semantic_type", "null_ratio", "top_values", "primary_key",
                     "foreign_keys", "ref_columns", "inferred"})


def _clean(data: Any) -> Any:
    """Drop None values and empty lists so the JSON stays readable; keep the keys scripts rely on."""
    if isinstance(data, dict):
        return {k: _clean(v) for k, v in data.items() if k in _ALWAYS or (v is not None and v != [])}
    if isinstance(data, list):
        return [_clean(v) for v in data]
    return data
