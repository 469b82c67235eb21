"""Token estimates for schema text, so that linkers can batch tables under a prompt budget."""

from __future__ import annotations

from groundsql.catalog import estimate_tokens, render_table_ddl
from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context

__all__ = ["estimate_tokens", "schema_tokens", "table_tokens"]


def table_tokens(table: Table, dialect: str) -> int:
    return estimate_tokens(render_table_ddl(table, dialect))


def schema_tokens(ctx: Context, schema: Schema | None = None) -> int:
    """Estimated tokens of the schema's DDL without example rows."""
    schema = schema or ctx.schema
    return sum(table_tokens(t, schema.dialect) for t in schema.tables)
