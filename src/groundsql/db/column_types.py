"""Each result column's type as the engine reports it, in one vocabulary of names.

DuckDB names its types in the cursor description; PostgreSQL gives type OIDs and MySQL field codes, mapped here;
SQLite reports none, so a column read straight from a table (or CAST to a type) takes the type the table declares.
The names feed `groundsql.db.frames`, which turns a result into a DataFrame or an Arrow table with those types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

#: PostgreSQL type OIDs of the common scalar types (pg_type.oid).
_POSTGRES = {16: "BOOLEAN", 17: "BYTEA", 20: "BIGINT", 21: "SMALLINT", 23: "INTEGER", 25: "TEXT", 700: "REAL",
             701: "DOUBLE PRECISION", 1042: "CHAR", 1043: "VARCHAR", 1082: "DATE", 1083: "TIME",
             1114: "TIMESTAMP", 1184: "TIMESTAMPTZ", 1700: "NUMERIC", 2950: "UUID", 114: "JSON", 3802: "JSONB"}
#: MySQL/MariaDB field type codes (pymysql.constants.FIELD_TYPE).
_MYSQL = {0: "DECIMAL", 1: "TINYINT", 2: "SMALLINT", 3: "INT", 4: "FLOAT", 5: "DOUBLE", 7: "TIMESTAMP",
          8: "BIGINT", 9: "MEDIUMINT", 10: "DATE", 11: "TIME", 12: "DATETIME", 13: "YEAR", 15: "VARCHAR",
          16: "BIT", 245: "JSON", 246: "DECIMAL", 249: "BLOB", 250: "BLOB", 251: "BLOB", 252: "BLOB",
          253: "VARCHAR", 254: "CHAR"}


def engine_types(backend: str, description: Any) -> list[str | None]:
    """The type name of each column of a DB-API cursor `description` (None where the engine gives none)."""
    names: list[str | None] = []
    for column in description or []:
        code = column[1] if len(column) > 1 else None
        if code is None:
            names.append(None)
        elif backend in ("postgresql", "mysql"):
            table = _POSTGRES if backend == "postgresql" else _MYSQL
            name = table.get(code) if isinstance(code, int) else None
            precision, scale = (column[4], column[5]) if len(column) > 5 else (None, None)
            if backend == "mysql" and isinstance(precision, int) and isinstance(scale, int):
                # MySQL reports the display width: the digits, the decimal point and (signed) the sign; a
                # precision one too large for a signed column holds every value, one too small would not
                precision -= 1 if scale > 0 else 0
            if name in ("NUMERIC", "DECIMAL") and isinstance(precision, int) and isinstance(scale, int) \
                    and 0 < precision <= 76:
                name = f"{name}({precision},{scale})"
            names.append(name)
        elif backend == "duckdb":
            names.append(str(code).upper() or None)
        else:
            names.append(None)
    return names


def declared_types(statement: exp.Expression, columns: list[str],
                   table_types: Callable[[str], dict[str, str] | None]) -> list[str | None]:
    """For an engine that reports no types (SQLite): each output column's declared type, where it is a column read
    straight from a table (or its MIN/MAX, or a CAST); None elsewhere.

    Args:
        statement: the parsed query (as the guard returned it).
        columns: the result's column names (one type is returned per name).
        table_types: {column: declared type} of a table by name (lowercase keys), or None when unknown.
    """
    select = statement
    while isinstance(select, (exp.Subquery, exp.Paren)):
        select = select.this
    if not isinstance(select, exp.Select) or len(select.expressions) != len(columns):
        return [None] * len(columns)
    aliases: dict[str, str] = {}
    for table in select.find_all(exp.Table):
        if table.find_ancestor(exp.Select) is select:
            aliases[(table.alias_or_name or "").lower()] = table.name
    plain = list(dict.fromkeys(aliases.values()))
    found: list[str | None] = []
    for projection in select.expressions:
        node = projection.this if isinstance(projection, exp.Alias) else projection
        found.append(_node_type(node, aliases, plain, table_types))
    return found


def _node_type(node: exp.Expression, aliases: dict[str, str], tables: list[str],
               table_types: Callable[[str], dict[str, str] | None]) -> str | None:
    if isinstance(node, exp.Cast) and node.to is not None:
        return node.to.sql(dialect="sqlite").upper()
    if isinstance(node, (exp.Min, exp.Max)) and isinstance(node.this, exp.Column):
        node = node.this
    if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
        return None
    qualifier = node.table.lower()
    candidates = [aliases[qualifier]] if qualifier in aliases else ([] if qualifier else tables)
    hits = []
    for table in candidates:
        known = table_types(table) or {}
        if node.name.lower() in known:
            hits.append(known[node.name.lower()])
    return hits[0].upper() if len(hits) == 1 and hits[0] else None
