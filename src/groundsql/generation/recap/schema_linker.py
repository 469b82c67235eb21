"""Schema linker: the schema in the compact `table(col:TYPE[v1,v2])` form with stored value examples and
descriptions, through the one renderer, for two moments.

- Before planning (`schema_linking=presql`, PET-SQL's PreSQL → linking → PostSQL that ReCAP encapsulates in this
  agent): one PreSQL draft over the full schema (the one-call generation prompt); the tables and columns it reads
  (`linking.presql.subset_from_drafts`) are the linked schema the planner and the action agent work on.
- On a table- or column-not-found error (`relink`): the model names the tables and columns the question needs,
  plus the tables the failing query named; the planner then re-plans on it.
"""

from __future__ import annotations

import logging

import sqlglot
from pydantic import Field
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.generation.direct import generate_sql
from groundsql.generation.recap.replies import Reply, ask_json
from groundsql.generation.refinement import execute_candidate
from groundsql.knowledge import render_text
from groundsql.linking.subset import SchemaSubset
from groundsql.prompts import render as render_prompt

log = logging.getLogger("groundsql")

NOT_FOUND = ("no_such_table", "no_such_column")


class LinkedTableReply(Reply):
    name: str
    columns: list[str] = Field(default_factory=list)


class LinkReply(Reply):
    tables: list[LinkedTableReply] = Field(default_factory=list, json_schema_extra={"maxItems": 12})


def presql_link(ctx: Context, full_schema: str, *, role: str = "generator") -> tuple[Candidate, str] | None:
    """The PreSQL draft (run) and the compact text of the schema it reads; None when the draft reads no known
    table (the caller keeps the full schema rather than lose the answer)."""
    from groundsql.linking.presql import subset_from_drafts

    try:
        draft = generate_sql(ctx, full_schema, step="recap:presql", role=role)[0]
    except ModelError as exc:
        log.warning("recap PreSQL draft failed: %s", exc)
        return None
    subset = subset_from_drafts(ctx.schema, [draft], ctx.db.dialect, linker="recap-presql")
    if not draft or not subset.tables:
        ctx.trace.note("recap", agent="schema-linker", mode="presql", tables={}, draft=draft)
        return None
    candidate = execute_candidate(ctx, draft, source="recap:presql", role=role)
    text = compact_text(ctx, subset)
    ctx.trace.note("recap", agent="schema-linker", mode="presql", tables=subset.as_mapping(), draft=draft)
    return candidate, text


def relink(ctx: Context, sql: str, error: str, *, role: str = "generator") -> tuple[SchemaSubset, str]:
    """The tables and columns the question needs (the model's choice, plus the tables the failing query named and
    the tables that own the columns it could not find) and their compact text with value examples."""
    prompt = render_prompt("recap_link", question=ctx.question, sql=sql, error=error, tables=_names_text(ctx))
    reply = ask_json(ctx, "recap:schema-link", prompt, LinkReply, role=role, max_tokens=250)
    subset = SchemaSubset(linker="recap")
    for table in reply.tables if reply else []:
        found = ctx.schema.table(table.name)
        if found is None:
            continue
        subset.add(found.name, role="model")
        for column in table.columns:
            if found.column(column) is not None:
                subset.add(found.name, found.column(column).name)
    for name in _tables_from_query(ctx, sql):
        subset.add(name, role="query")
    if not subset.tables:
        subset = SchemaSubset.from_schema(ctx.schema, linker="recap")
    text = compact_text(ctx, subset)
    ctx.trace.note("recap", agent="schema-linker", tables=subset.as_mapping(), error=error[:200])
    return subset, text


def compact_text(ctx: Context, subset: SchemaSubset) -> str:
    """`table(col:TYPE[v1,v2], …)` lines for the subset's tables (and the tables that join them), with their
    descriptions, then the question's knowledge block: from the one renderer (`knowledge.render_context`), so
    descriptions and knowledge reach this prompt as they reach every other. Without catalog context only these
    tables are profiled (a few cheap queries each)."""
    names = [t.name for t in ctx.schema.tables if t.name in subset.tables]
    if ctx.catalog is not None:
        names = ctx.catalog.join_graph.connect(names) or names
    return render_text(ctx, tables=names, linked=subset.as_mapping(), style="compact")


def _names_text(ctx: Context) -> str:
    return "\n".join(f"{t.name}({', '.join(c.name for c in t.columns)})" for t in ctx.schema.tables)


def _tables_from_query(ctx: Context, sql: str) -> list[str]:
    """Existing tables the query names, and the tables owning the columns none of those has."""
    try:
        tree = sqlglot.parse_one(sql, read=ctx.db.dialect)
    except (SqlglotError, ValueError):
        return []
    named = [ctx.schema.table(t.name) for t in tree.find_all(exp.Table)]
    tables = {t.name: t for t in named if t is not None}
    owners: list[str] = []
    for column in tree.find_all(exp.Column):
        if not column.name or any(t.column(column.name) is not None for t in tables.values()):
            continue
        owners += [t.name for t in ctx.schema.tables if t.column(column.name) is not None][:2]
    return list(dict.fromkeys(list(tables) + owners))
