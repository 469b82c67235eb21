"""Prompt text for a linked schema subset: only the linked columns plus the keys that join them."""

from __future__ import annotations

import logging

from sqlglot import exp

from groundsql.catalog import render_table_ddl
from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context
from groundsql.db import Result
from groundsql.errors import DatabaseError
from groundsql.linking.subset import SchemaSubset

log = logging.getLogger("groundsql")


def pruned_table(table: Table, keep: list[str] | None, kept_tables: set[str]) -> Table:
    """A copy of `table` with the `keep` columns (all when None or empty) plus its primary and foreign keys.

    Foreign keys to tables outside `kept_tables` are dropped, so the prompt shows only joins it can use.
    """
    wanted = {c.lower() for c in keep or []}
    foreign = [fk for fk in table.foreign_keys if fk.ref_table.lower() in kept_tables]
    if wanted:
        wanted |= {c.lower() for c in table.primary_key}
        wanted |= {c.lower() for fk in foreign for c in fk.columns}
    columns = [c for c in table.columns if not wanted or c.name.lower() in wanted]
    return Table(name=table.name, columns=columns, primary_key=list(table.primary_key), foreign_keys=foreign,
                 comment=table.comment, is_view=table.is_view, row_count=table.row_count)


def subset_tables(schema: Schema, subset: SchemaSubset) -> list[Table]:
    """The subset's tables, pruned to their linked columns, in schema order; unknown names are skipped."""
    mapping = {name.lower(): columns for name, columns in subset.as_mapping().items()}
    kept = {t.name.lower() for t in schema.tables if t.name.lower() in mapping}
    return [pruned_table(t, mapping[t.name.lower()], kept) for t in schema.tables if t.name.lower() in kept]


def render_subset(ctx: Context, subset: SchemaSubset | None, *, sample_limit: int = 3) -> str:
    """DDL of the linked tables and columns with a few example rows; the whole schema when `subset` is empty."""
    if subset is None or not subset.tables:
        from groundsql.generation.direct import schema_prompt_text

        return schema_prompt_text(ctx, sample_limit=sample_limit)
    key = ("subset_text", tuple(sorted((t, tuple(c)) for t, c in subset.as_mapping().items())), sample_limit)
    cache = ctx.cache.texts
    if key not in cache:
        parts = []
        for table in subset_tables(ctx.schema, subset):
            sample = _sample(ctx, table, sample_limit) if sample_limit > 0 else None
            parts.append(render_table_ddl(table, ctx.schema.dialect, sample))
        matched = value_evidence(subset)
        if matched:
            parts.append("-- Stored values that match words of the question:\n" + matched)
        cache[key] = "\n\n".join(parts)
    return cache[key]


def value_evidence(subset: SchemaSubset, limit: int = 6) -> str:
    """The linker's evidence on columns (stored spellings of the question's literals), one comment line each."""
    lines = []
    for table in subset.tables.values():
        for column in table.columns.values():
            for item in column.evidence[:2]:
                lines.append(f"-- {table.name}.{column.name}: {item}")
    return "\n".join(lines[:limit])


def _sample(ctx: Context, table: Table, limit: int) -> Result | None:
    columns = [exp.column(exp.to_identifier(c.name, quoted=True)) for c in table.columns]
    sql = (exp.select(*columns).from_(exp.table_(exp.to_identifier(table.name, quoted=True)))
           .limit(limit).sql(dialect=ctx.db.dialect))
    try:
        return ctx.db.execute(sql, max_rows=limit)
    except DatabaseError as exc:
        log.debug("cannot sample %s: %s", table.name, exc)
        return None
