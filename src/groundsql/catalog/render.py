"""Render a schema as prompt text: CREATE TABLE statements with sample rows as comments."""

from __future__ import annotations

import logging

from sqlglot import exp

from groundsql.catalog.schema import Schema, Table
from groundsql.db import Database, Result
from groundsql.errors import DatabaseError

log = logging.getLogger("groundsql")

SAMPLE_CELL_LIMIT = 40


def quote_name(name: str, dialect: str) -> str:
    """An identifier as the dialect writes it, quoted only where needed."""
    plain = name.isidentifier() and name.upper() not in _RESERVED
    return exp.to_identifier(name, quoted=not plain).sql(dialect=dialect)


def select_sample_sql(table: str, dialect: str, limit: int) -> str:
    return exp.select("*").from_(exp.table_(exp.to_identifier(table, quoted=True))).limit(limit).sql(dialect=dialect)


def sample_rows(db: Database, table: str, limit: int = 3) -> Result | None:
    """A few rows of `table` through the guarded path; None when the table cannot be read."""
    try:
        return db.execute(select_sample_sql(table, db.dialect, limit), max_rows=limit)
    except DatabaseError as exc:
        log.debug("cannot sample %s: %s", table, exc)
        return None


def render_table_ddl(table: Table, dialect: str, sample: Result | None = None) -> str:
    entries: list[tuple[str, str | None]] = []
    for column in table.columns:
        code = f"  {quote_name(column.name, dialect)} {column.type or 'TEXT'}"
        if column.primary_key and len(table.primary_key) == 1:
            code += " PRIMARY KEY"
        entries.append((code, column.description or column.comment))
    if len(table.primary_key) > 1:
        keys = ", ".join(quote_name(c, dialect) for c in table.primary_key)
        entries.append((f"  PRIMARY KEY ({keys})", None))
    for fk in table.foreign_keys:
        cols = ", ".join(quote_name(c, dialect) for c in fk.columns)
        refs = ", ".join(quote_name(c, dialect) for c in fk.ref_columns)
        entries.append((f"  FOREIGN KEY ({cols}) REFERENCES {quote_name(fk.ref_table, dialect)}({refs})", None))
    lines = []
    for index, (code, note) in enumerate(entries):
        separator = "," if index < len(entries) - 1 else ""
        lines.append(code + separator + (f"  -- {note}" if note else ""))
    kind = "VIEW" if table.is_view else "TABLE"
    text = f"CREATE {kind} {quote_name(table.name, dialect)} (\n" + "\n".join(lines) + "\n);"
    if table.comment:
        text = f"-- {table.comment}\n{text}"
    if sample is not None and sample.rows:
        text += "\n" + render_sample(table.name, sample)
    return text


def render_sample(table: str, sample: Result) -> str:
    """Example rows of `table` as one SQL comment ('' when there are none)."""
    if not sample.rows:
        return ""
    header = " | ".join(sample.columns)
    rows = "\n".join(" | ".join(_cell(v) for v in row) for row in sample.rows)
    return f"/* {len(sample.rows)} example rows from {table}:\n{header}\n{rows}\n*/"


def render_schema_ddl(schema: Schema, db: Database | None = None, sample_limit: int = 3,
                      tables: list[str] | None = None) -> str:
    """The whole schema (or the named tables) as DDL, with `sample_limit` example rows per table."""
    chosen = [t for t in schema.tables if tables is None or t.name in tables]
    parts = []
    for table in chosen:
        sample = sample_rows(db, table.name, sample_limit) if db is not None and sample_limit > 0 else None
        parts.append(render_table_ddl(table, schema.dialect, sample))
    return "\n\n".join(parts)


def _cell(value: object) -> str:
    text = "NULL" if value is None else repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= SAMPLE_CELL_LIMIT else text[: SAMPLE_CELL_LIMIT - 1] + "…"


_RESERVED = {
    "SELECT", "FROM", "WHERE", "GROUP", "ORDER", "BY", "TABLE", "INDEX", "KEY", "PRIMARY", "FOREIGN", "CHECK",
    "DEFAULT", "LIMIT", "OFFSET", "JOIN", "ON", "AS", "AND", "OR", "NOT", "NULL", "IN", "IS", "CASE", "WHEN",
    "THEN", "ELSE", "END", "UNION", "ALL", "DISTINCT", "HAVING", "VALUES", "INSERT", "UPDATE", "DELETE",
    "CREATE", "DROP", "ALTER", "USER", "TO", "DESC", "ASC", "LIKE", "BETWEEN", "EXISTS", "CAST", "WITH",
    "COLUMN", "REFERENCES", "UNIQUE", "GRANT", "RANK", "ROWS", "YEAR", "DATE", "TIME", "SHOW",
}
