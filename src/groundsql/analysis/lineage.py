"""Lineage-aware view descriptions (ProSPy §A.1 "Lineage-aware descriptions"): a fetched view is described by
what it reads — its source tables with their descriptions, and for each output column the base-table columns it
comes from (through the CTEs of earlier views) with theirs — so that later rounds and the Python stage reason
about a derived table in the vocabulary of the base tables. Static analysis of the view's SQL (sqlglot's
lineage); no model call, and a column whose lineage cannot be traced is shown by its expression only.
"""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.lineage import lineage

from groundsql.context import Context

log = logging.getLogger("groundsql")

MAX_DESCRIPTION = 80  # characters of a base column's description shown per source


def describe_view(ctx: Context, sql: str, columns: list[str]) -> str:
    """'from: table (description); …' then one line per output column: its expression and its source columns
    with their descriptions. Empty when the SQL cannot be analysed."""
    dialect = ctx.db.dialect
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return ""
    if not isinstance(tree, exp.Query):
        return ""
    mapping = {t.name: {c.name: c.type or "TEXT" for c in t.columns} for t in ctx.schema.tables}
    outputs = {_output_name(e): e for e in tree.selects}
    tables: list[str] = []
    lines = []
    for column in columns:
        sources = _sources(column, tree, mapping, dialect)
        for source in sources:
            table = source.split(".")[0]
            if table not in tables:
                tables.append(table)
        expression = outputs.get(column)
        shown = _expression_text(expression, dialect) if expression is not None else column
        described = [_with_description(ctx, s) for s in sources]
        if shown == (sources[0] if len(sources) == 1 else None):
            lines.append(f"- {column}: {described[0]}")
        elif described:
            lines.append(f"- {column}: {shown}, from {', '.join(described)}")
        else:
            lines.append(f"- {column}: {shown}")
    if not tables and not lines:
        return ""
    head = "from: " + "; ".join(_table_text(ctx, t) for t in tables) if tables else ""
    return "\n".join([head, *lines] if head else lines)


def _sources(column: str, tree: exp.Expression, mapping: dict, dialect: str) -> list[str]:
    """The base `table.column` names an output column is computed from (empty when untraceable)."""
    try:
        node = lineage(column, tree.copy(), schema=mapping, dialect=dialect)
    except (SqlglotError, ValueError, KeyError, AttributeError, TypeError) as exc:
        log.debug("no lineage for %s: %s", column, exc)
        return []
    found: list[str] = []
    for leaf in node.walk():
        if leaf.downstream or not isinstance(leaf.source, exp.Table):
            continue
        column_name = leaf.expression.name if isinstance(leaf.expression, exp.Column) else \
            leaf.name.split(".")[-1].strip('"`[]')
        name = f"{leaf.source.name}.{column_name}"
        if leaf.source.name in mapping and name not in found:
            found.append(name)
    return found


def _output_name(expression: exp.Expression) -> str:
    return expression.alias_or_name


def _expression_text(expression: exp.Expression, dialect: str) -> str:
    inner = expression.unalias() if isinstance(expression, exp.Alias) else expression
    if isinstance(inner, exp.Column) and inner.table:
        return f"{inner.table}.{inner.name}"
    plain = inner.copy()
    for identifier in plain.find_all(exp.Identifier):
        identifier.set("quoted", False)  # the model reads names, not the dialect's quoting
    return plain.sql(dialect=dialect)


def _with_description(ctx: Context, source: str) -> str:
    table_name, _, column_name = source.partition(".")
    text = _column_description(ctx, table_name, column_name)
    return f"{source} ({text[:MAX_DESCRIPTION]})" if text else source


def _column_description(ctx: Context, table_name: str, column_name: str) -> str:
    if ctx.catalog is not None:
        profile = ctx.catalog.column(table_name, column_name)
        if profile is not None and profile.description:
            return profile.description
    table = ctx.schema.table(table_name)
    column = table.column(column_name) if table is not None else None
    return (getattr(column, "description", "") or "") if column is not None else ""


def _table_text(ctx: Context, name: str) -> str:
    text = ""
    if ctx.catalog is not None:
        profile = ctx.catalog.table(name) if hasattr(ctx.catalog, "table") else None
        text = getattr(profile, "description", "") or ""
    if not text:
        table = ctx.schema.table(name)
        text = (getattr(table, "description", "") or "") if table is not None else ""
    return f"{name} ({text[:MAX_DESCRIPTION]})" if text else name
