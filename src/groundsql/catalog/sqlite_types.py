"""A column's type and values as SQLite reads them, for prompts that ask for SQLite SQL on any engine.

With `model_dialect=sqlite` the model writes SQLite SQL whatever the engine, so the schema it reads should be the
same on every engine: each column's type as SQLite declares it and each value as SQLite would return it. A copy
made by `groundsql eval load` records the original's declared type in the column's comment
(`source_type_comment`), and the original's declared keys in the table's comment (`keys_comment`: SQLite keeps a
key its rows break, a server does not); introspection takes them back out (`split_comment`, `restore_keys`), so
that a copy reads exactly as its SQLite original. Any other column gets the SQLite name of its type's family
(BIGINT → INTEGER, DOUBLE → REAL, VARCHAR → TEXT …).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from groundsql.catalog import types as T
from groundsql.catalog.catalog import Catalog
from groundsql.catalog.profiles import ColumnProfile
from groundsql.catalog.schema import ForeignKey, Schema, Table

#: How a copy's column comment carries the SQLite original's declared type (nothing else is in that comment).
SOURCE_TYPE_MARKER = "groundsql:sqlite_type="

#: How a copy's table comment carries the SQLite original's declared keys (JSON; nothing else is in that comment).
KEYS_MARKER = "groundsql:sqlite_keys="

#: The SQLite name of each physical family (temporal and the rest keep their own name).
_FAMILY_NAMES = {T.INTEGER: "INTEGER", T.FLOAT: "REAL", T.STRING: "TEXT", T.BINARY: "BLOB", T.BOOLEAN: "BOOLEAN"}


def source_type_comment(declared: str) -> str:
    """The column comment that records `declared` (the SQLite original's type) on a copy."""
    return SOURCE_TYPE_MARKER + declared


def split_comment(comment: str | None) -> tuple[str | None, str | None]:
    """(the recorded SQLite type, the comment left) of a column comment; (None, comment) when none is recorded."""
    if comment and comment.startswith(SOURCE_TYPE_MARKER):
        return comment[len(SOURCE_TYPE_MARKER):], None
    return None, comment


def keys_comment(table: Table) -> str:
    """The table comment that records `table`'s declared primary and foreign keys (the original's) on a copy."""
    keys = {"pk": list(table.primary_key),
            "fks": [[list(fk.columns), fk.ref_table, list(fk.ref_columns)] for fk in table.foreign_keys]}
    return KEYS_MARKER + json.dumps(keys, separators=(",", ":"))


def restore_keys(table: Table) -> None:
    """Give `table` the keys its comment records (`keys_comment`) in place of the engine's, and drop the comment;
    a table whose comment records none is left as it is."""
    if not (table.comment or "").startswith(KEYS_MARKER):
        return
    keys = json.loads(table.comment[len(KEYS_MARKER):])
    table.comment = None
    table.primary_key = list(keys["pk"])
    for column in table.columns:
        column.primary_key = column.name in table.primary_key
    table.foreign_keys = [ForeignKey(list(cols), ref, list(refs)) for cols, ref, refs in keys["fks"]]


def sqlite_type(declared: str, dialect: str, source_type: str | None = None) -> str:
    """A column's type as SQLite declares it: its own on SQLite, the recorded original's on a copy, else the
    SQLite name of the engine type's family (DECIMAL and NUMERIC → NUMERIC; DATE, TIME and DATETIME kept)."""
    if source_type is not None:
        return source_type
    if dialect == "sqlite":
        return declared
    upper = (declared or "").upper()
    family = T.physical_family(declared)
    if family == T.FLOAT and ("DEC" in upper or "NUM" in upper):
        return "NUMERIC"
    if family == T.TEMPORAL:
        return "DATETIME" if "TIMESTAMP" in upper or "DATETIME" in upper else upper.split("(")[0].split(" ")[0]
    return _FAMILY_NAMES.get(family, declared)


def sqlite_schema(schema: Schema) -> Schema:
    """A copy of `schema` as SQLite would declare it: the SQLite dialect (for quoting) and each column's
    `sqlite_type`; `schema` itself when it is SQLite's."""
    if schema.dialect == "sqlite":
        return schema
    tables = copy.deepcopy(schema.tables)
    for table in tables:
        for column in table.columns:
            column.type = sqlite_type(column.type, schema.dialect, column.source_type)
    return Schema(dialect="sqlite", tables=tables)


def sqlite_catalog(catalog: Catalog) -> Catalog:
    """A copy of `catalog` as SQLite would show it: `sqlite_schema`, and each profile's declared type and stored
    values (top values, samples, range) as SQLite holds them; `catalog` itself when it is SQLite's."""
    if catalog.dialect == "sqlite":
        return catalog
    tables = copy.deepcopy(catalog.tables)
    for table in tables:
        for column in table.columns:
            _as_sqlite(column, catalog.dialect)
    return replace(catalog, schema=sqlite_schema(catalog.schema), tables=tables)


def _as_sqlite(column: ColumnProfile, dialect: str) -> None:
    declared = column.declared_type = sqlite_type(column.declared_type, dialect, column.source_type)
    for counted in column.top_values:
        counted.value = sqlite_value(counted.value, declared)
    column.sample_values = [sqlite_value(v, declared) for v in column.sample_values]
    if affinity(declared) != "TEXT":  # a text column's range of numbers is computed, not stored
        column.min, column.max = sqlite_value(column.min, declared), sqlite_value(column.max, declared)


def sqlite_row(row: tuple | list, types: list[str]) -> tuple:
    """A result row as SQLite would return it from columns declared `types` (one per cell)."""
    return tuple(sqlite_value(v, t) for v, t in zip(row, types, strict=False))


def affinity(declared: str) -> str:
    """SQLite's type affinity of a declared type (its five rules, in their order)."""
    upper = (declared or "").upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in upper or not upper:
        return "BLOB"
    if any(word in upper for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def sqlite_value(value: Any, declared: str) -> Any:
    """`value` as SQLite stores it in a column declared `declared`: a number in a TEXT column is text, an integral
    REAL in an INTEGER or NUMERIC column an integer, an integer in a REAL column a float, a numeric string in a
    numeric column a number. Values of other kinds (None, bytes, dates) are returned as they are."""
    kind = affinity(declared)
    if isinstance(value, bool) or value is None:
        return value
    if kind == "TEXT" and isinstance(value, (int, float)):
        return _text(value)
    if kind in ("INTEGER", "NUMERIC", "REAL") and isinstance(value, str):
        number = _number(value)
        if number is None:
            return value
        value = number
    if kind in ("INTEGER", "NUMERIC") and isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    if kind == "REAL" and isinstance(value, int):
        return float(value)
    return value


def _text(number: int | float) -> str:
    """How SQLite writes a number as text (`9.0` → '9.0', `1e20` → '1.0e+20' is left to Python's repr)."""
    return str(number) if isinstance(number, int) else repr(number)


def _number(text: str) -> int | float | None:
    """The number SQLite's numeric affinity reads from a string (a well-formed integer or real), or None."""
    stripped = text.strip()  # SQLite reads ' 5' as 5 too
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        number = float(stripped)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None
