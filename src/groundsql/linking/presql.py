"""`presql` (PET-SQL, SSEV §3.1.1): draft queries over the full schema; the schema they touch is the subset."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import Field

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.knowledge.grounding import written_dialect
from groundsql.linking.common import candidate_schema, schema_text
from groundsql.linking.registry import linker
from groundsql.linking.subset import SchemaSubset
from groundsql.models.base import Message
from groundsql.options import Options
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.sql.extract import extract_sql
from groundsql.sql.references import owners_of, sql_refs

log = logging.getLogger("groundsql")

PRESQL_MAX_TOKENS = 200  # PET-SQL caps the draft at 200 tokens
SAMPLE_ROWS = 3
MISPLACED_LIMIT = 2  # tables kept for a group of columns a draft put on the wrong table


class PresqlOptions(Options):
    presql_roles: list[str] = Field(["generator"], min_length=1, description="model roles that draft, one draft "
                                                                             "each")
    presql_samples: int = Field(1, ge=1, description="drafts per role (sampled at temperature 0.7 when more "
                                                     "than one)")
    examples: list[Any] | None = Field(None, exclude=True, description="few-shot examples: records with "
                                                                       "question and sql (API only)")


@linker("presql", "PreSQL drafts from the full schema with example rows; the tables and columns they use",
        options=PresqlOptions)
def presql(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    """The tables and columns that PreSQL drafts use (see `PresqlOptions`)."""
    schema = candidate_schema(ctx, previous)
    messages = presql_messages(ctx, schema_text(ctx, schema, SAMPLE_ROWS))
    options = ctx.settings(PresqlOptions)
    roles = list(options.presql_roles)
    samples = options.presql_samples
    drafts: list[str] = []
    for role in roles:
        try:
            completion = ctx.chat("link.presql", messages, role=role, n=samples,
                                  temperature=0.0 if samples == 1 else 0.7, max_tokens=PRESQL_MAX_TOKENS)
        except ModelError as exc:
            log.warning("PreSQL draft by %s failed: %s", role, exc)
            continue
        drafts.extend(extract_sql(text, written_dialect(ctx)) for text in completion.texts)
    subset = subset_from_drafts(schema, drafts, written_dialect(ctx), linker="presql")
    subset.notes.append(f"{len([d for d in drafts if d])} PreSQL draft(s)")
    if not subset.tables:  # no usable draft: keep everything rather than lose the answer
        subset = SchemaSubset.from_schema(schema, reason="no usable PreSQL draft")
        subset.notes.append("no usable PreSQL draft; kept the whole candidate schema")
    ctx.trace.note("link.presql", drafts=drafts)
    return subset


def presql_messages(ctx: Context, schema: str) -> list[Message]:
    dialect = dialect_name(written_dialect(ctx))
    examples = ctx.settings(PresqlOptions).examples or []
    examples_block = "".join(f"Example question: {e['question']}\nExample query: {e['sql']}\n\n"
                             for e in examples if isinstance(e, dict) and e.get("question") and e.get("sql"))
    return [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render("link_presql", dialect=dialect, schema=schema,
                                           examples_block=examples_block, evidence_block=evidence_block(ctx.evidence),
                                           question=ctx.question)},
    ]


def subset_from_drafts(schema: Schema, drafts: list[str], dialect: str, *, linker: str = "") -> SchemaSubset:
    """The union of the schema elements the draft queries read (PET-SQL linking), resolved with sqlglot.

    Aliases, subqueries and CTEs are resolved and `*` keeps a table whole. A column a draft asks of a table
    that lacks it (a frequent draft error) brings in the tables that have it, best match first: most of the
    group's columns, then the name closest to the table the draft used. Unparseable drafts add nothing.
    """
    subset = SchemaSubset(linker=linker)
    for draft in filter(None, drafts):
        refs = sql_refs(draft, schema, dialect)
        for table, columns in refs.columns.items():
            subset.add(table, role="target", reason="used by a PreSQL draft")
            for column in sorted(columns):
                subset.add(table, column, reason="used by a PreSQL draft")
        for placed_on, names in refs.misplaced.items():
            for table in owners_of(schema, names, near=placed_on)[:MISPLACED_LIMIT]:
                reason = f"has columns a PreSQL draft asked of {placed_on or 'another table'}"
                subset.add(table.name, role="target", reason=reason)
                for name in sorted(names):
                    if table.column(name) is not None:
                        subset.add(table.name, table.column(name).name, reason=reason)
        if refs.unknown:
            subset.notes.append(f"draft names unknown to the schema: {', '.join(refs.unknown[:10])}")
    return subset
