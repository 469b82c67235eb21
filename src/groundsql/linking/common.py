"""Helpers every linker shares: the candidate schema a stage starts from, prompt text, JSON name lookups."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from groundsql.catalog import render_table_ddl, sample_rows
from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.linking.options import LinkOptions
from groundsql.linking.subset import SchemaSubset

log = logging.getLogger("groundsql")

T = TypeVar("T")
R = TypeVar("R")


def candidate_schema(ctx: Context, previous: SchemaSubset | None) -> Schema:
    """What a stage may choose from: the whole schema, or the tables of the previous stage (all their columns).

    Earlier stages narrow tables; later, costlier stages see each surviving table whole, so that a column an
    earlier, cheaper stage missed can still be recovered.
    """
    schema = base_schema(ctx)
    if previous is None:
        return schema
    return Schema(dialect=schema.dialect, tables=[t for t in schema.tables if previous.has(t.name)])


def base_schema(ctx: Context) -> Schema:
    """The catalog's schema (inferred keys, descriptions) when a catalog is available, else the introspected one."""
    schema = getattr(catalog_of(ctx), "schema", None)
    return schema if isinstance(schema, Schema) else ctx.schema


def table_text(ctx: Context, table: Table, sample_limit: int = 0) -> str:
    """DDL of one table (with `sample_limit` example rows read through the guarded path), cached per context."""
    cache = ctx.cache.texts
    key = ("link_table_text", table.name, tuple(c.name for c in table.columns), sample_limit)
    if key not in cache:
        sample = sample_rows(ctx.db, table.name, sample_limit) if sample_limit > 0 else None
        cache[key] = render_table_ddl(table, ctx.schema.dialect, sample)
    return cache[key]


def schema_text(ctx: Context, schema: Schema, sample_limit: int = 0) -> str:
    return "\n\n".join(table_text(ctx, t, sample_limit) for t in schema.tables)


def resolve_table(schema: Schema, name: object) -> Table | None:
    """A table named by a model: exact or case-insensitive, tolerating quotes and a schema prefix."""
    if not isinstance(name, str):
        return None
    cleaned = name.strip().strip('`"[]').split(".")[-1].strip('`"[]')
    return schema.table(cleaned)


def resolve_column(table: Table, name: object) -> str | None:
    if not isinstance(name, str):
        return None
    cleaned = name.strip().strip('`"[]').split(".")[-1].strip('`"[]')
    column = table.column(cleaned)
    return column.name if column else None


def parallel_map(ctx: Context, function: Callable[[T], R], items: list[T]) -> list[R]:
    """Apply `function` to every item concurrently (bounded by the `concurrency` option, default 4);
    serially when the model runs in-process, since the embedded model serves one call at a time anyway."""
    serial = any(getattr(m, "serial", False) for m in ctx.models.values())
    workers = 1 if serial else ctx.settings(LinkOptions).concurrency
    if workers == 1 or len(items) <= 1:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        return list(pool.map(function, items))


def catalog_of(ctx: Context) -> Any | None:
    """The profiled `Catalog` of the context's database when one is available (`ctx.catalog`); linkers then
    use its inferred join graph and value index."""
    return ctx.catalog


def ask_json(ctx: Context, step: str, messages: list[dict[str, str]], *, role: str, max_tokens: int,
             schema: dict[str, Any], temperature: float = 0.0, n: int = 1) -> list[Any]:
    """Call the role's model for JSON replies; returns one parsed object (or None) per completion.

    The JSON schema is passed to the model (structured output; grammar-constrained sampling for the embedded
    model, which otherwise often answers in prose). The option `link_json_schema=false` drops it: replies
    are then parsed leniently, which is faster on CPU, and a malformed one counts as no answer (every caller
    has a safe fallback).
    """
    from groundsql.models.base import parse_json

    constrained = ctx.settings(LinkOptions).link_json_schema
    try:
        completion = ctx.chat(step, messages, role=role, n=n, temperature=temperature, max_tokens=max_tokens,
                              json_schema=schema if constrained else None)
    except ModelError as exc:
        log.warning("%s failed: %s", step, exc)
        return [None] * n
    if constrained:
        return list(completion.data) + [None] * (n - len(completion.data))
    values = []
    for text in completion.texts:
        value, problem = parse_json(text, None)
        values.append(value if isinstance(value, dict) else None)
        if problem:
            log.debug("%s: unparsable reply (%s)", step, problem)
    return values
