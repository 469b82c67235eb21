"""Schema context (AgentNLQ §3.2, §3.3.2): the whole enriched schema when it fits the budget, else retrieval.

The budget check is explicit and noted on the trace: the estimated tokens of the whole schema text against
`schema_budget`. Over budget, the question's entities are matched against (table, column) descriptions by the
`vector` linker (or the chain in the `linker` option) and the top-k columns plus their tables' keys are shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from groundsql.catalog import estimate_tokens
from groundsql.context import Context
from groundsql.errors import GroundsqlError
from groundsql.generation.direct import schema_prompt_text
from groundsql.generation.schema_text import render_subset

log = logging.getLogger("groundsql")

DEFAULT_RETRIEVER = "vector"


@dataclass(frozen=True)
class SchemaContext:
    """The schema text the agents see and how it was chosen."""

    text: str
    mode: str  # "full": the whole schema fits; "retrieved": top-k columns; "full-fallback": retrieval failed
    tokens: int  # estimated tokens of `text`
    full_tokens: int  # estimated tokens of the whole schema text
    budget: int
    tables: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"mode": self.mode, "tokens": self.tokens, "full_tokens": self.full_tokens, "budget": self.budget,
                "tables": list(self.tables)}


def build_schema_context(ctx: Context, *, budget: int, retriever: str | None = None) -> SchemaContext:
    """The whole schema text when its estimate is within `budget` tokens; else the retrieved subset."""
    full = schema_prompt_text(ctx)
    full_tokens = estimate_tokens(full)
    all_tables = list(ctx.schema.table_names)
    if full_tokens <= budget:
        context = SchemaContext(full, "full", full_tokens, full_tokens, budget, all_tables)
    else:
        context = _retrieved(ctx, full, full_tokens, budget, retriever or DEFAULT_RETRIEVER)
    ctx.trace.note("agentnlq", stage="schema_context", **context.to_dict())
    return context


def _retrieved(ctx: Context, full: str, full_tokens: int, budget: int, retriever: str) -> SchemaContext:
    from groundsql.linking import link

    try:
        subset = link(ctx, retriever)
    except (GroundsqlError, NotImplementedError) as exc:
        log.warning("schema retrieval failed (%s); using the whole schema", exc)
        return SchemaContext(full, "full-fallback", full_tokens, full_tokens, budget, list(ctx.schema.table_names))
    if not subset.tables:
        return SchemaContext(full, "full-fallback", full_tokens, full_tokens, budget, list(ctx.schema.table_names))
    text = render_subset(ctx, subset)
    return SchemaContext(text, "retrieved", estimate_tokens(text), full_tokens, budget, subset.table_names())
