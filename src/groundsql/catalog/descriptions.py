"""User-supplied descriptions: BIRD-style `database_description/*.csv` folders, or one YAML file.

YAML shape::

    tables:
      orders:
        description: One row per customer order.
        columns:
          status: "Order state: D delivered, S shipped, P pending, X cancelled."
          order_date: {description: Day the order was placed, values: "text, mixed formats"}
"""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from groundsql.catalog.profiles import TableProfile
from groundsql.catalog.schema import Schema
from groundsql.errors import ConfigError

log = logging.getLogger("groundsql")


@dataclass
class ColumnNote:
    description: str | None = None
    values: str | None = None  # what the stored values mean (codes, units, formats)
    display_name: str | None = None


@dataclass
class Descriptions:
    """table → description, and table → column → `ColumnNote`; names are matched case-insensitively."""

    tables: dict[str, str] = field(default_factory=dict)
    columns: dict[str, dict[str, ColumnNote]] = field(default_factory=dict)

    def table(self, name: str) -> str | None:
        return _get(self.tables, name)

    def column(self, table: str, column: str) -> ColumnNote | None:
        cols = _get(self.columns, table)
        return _get(cols, column) if cols else None


def load_descriptions(path: str | Path) -> Descriptions:
    """Read a BIRD `database_description` folder (or the database folder holding one), or a YAML file."""
    source = Path(path).expanduser()
    if source.is_dir():
        folder = source / "database_description" if (source / "database_description").is_dir() else source
        return _from_csv_folder(folder)
    if source.suffix.lower() in (".yaml", ".yml"):
        return _from_yaml(source)
    if source.suffix.lower() == ".csv":
        found = Descriptions()
        _read_csv(source, found)
        return found
    raise ConfigError(f"descriptions must be a folder of BIRD .csv files or a .yaml file, not {source}")


def apply_descriptions(tables: list[TableProfile], schema: Schema, notes: Descriptions) -> int:
    """Fill user descriptions into the profiles and the schema; returns how many columns got one."""
    applied = 0
    for profile in tables:
        text = notes.table(profile.name)
        if text:
            profile.description, profile.description_source = text, "user"
        schema_table = schema.table(profile.name)
        for column in profile.columns:
            note = notes.column(profile.name, column.name)
            if note is None:
                continue
            description = note.description or note.display_name
            if description:
                column.description, column.description_source = description, "user"
                applied += 1
                if schema_table is not None and schema_table.column(column.name) is not None:
                    schema_table.column(column.name).description = description  # type: ignore[union-attr]
            if note.values:
                column.value_description = note.values
    return applied


def _from_csv_folder(folder: Path) -> Descriptions:
    found = Descriptions()
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ConfigError(f"no .csv description files in {folder}")
    for path in files:
        _read_csv(path, found)
    return found


def _read_csv(path: Path, found: Descriptions) -> None:
    table = path.stem
    raw = path.read_bytes()
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    reader = csv.DictReader(io.StringIO(text))
    columns = found.columns.setdefault(table, {})
    for row in reader:
        row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items() if k}
        name = row.get("original_column_name")
        if not name:
            continue
        display = row.get("column_name") or None
        description = row.get("column_description") or None
        if description and display and description.lower() == name.lower():
            description = display
        values = row.get("value_description") or None
        if values and values.lower() in ("unuseful", "useless", "not useful"):
            values = None
        if values and row.get("data_format"):
            values = f"{values} (format: {row['data_format']})"
        columns[name] = ColumnNote(description=description, values=values, display_name=display)


def _from_yaml(path: Path) -> Descriptions:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    found = Descriptions()
    tables = data.get("tables") if isinstance(data, dict) else None
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: expected a mapping 'tables: {{name: {{description, columns}}}}'")
    for name, entry in tables.items():
        if isinstance(entry, str):
            found.tables[str(name)] = entry
            continue
        entry = entry or {}
        if entry.get("description"):
            found.tables[str(name)] = str(entry["description"])
        for column, note in (entry.get("columns") or {}).items():
            found.columns.setdefault(str(name), {})[str(column)] = _note(note)
    return found


def _note(value: Any) -> ColumnNote:
    if isinstance(value, dict):
        return ColumnNote(description=value.get("description"), values=value.get("values"))
    return ColumnNote(description=None if value is None else str(value))


def _get(mapping: dict[str, Any], name: str) -> Any:
    if name in mapping:
        return mapping[name]
    lowered = name.lower()
    return next((v for k, v in mapping.items() if k.lower() == lowered), None)
