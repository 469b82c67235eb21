"""Linkers register themselves by name; `link` runs a comma chain of them and records the subset on the trace."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.linking.subset import SchemaSubset

log = logging.getLogger("groundsql")

#: A linker narrows the schema: it gets the previous stage's subset (None for the first stage: the whole schema).
Linker = Callable[[Context, "SchemaSubset | None"], SchemaSubset]
LINKERS: dict[str, Linker] = {}
DESCRIPTIONS: dict[str, str] = {}
DEFAULT_LINKER = "full"
#: A sensible `link_full_budget` for presets that opt in: half the embedded models' 8k-token context.
DEFAULT_FULL_BUDGET = 4000


def linker(name: str, description: str) -> Callable[[Linker], Linker]:
    """Register a linker under `name` (used by `--linker` and the `linker` context option)."""

    def register(function: Linker) -> Linker:
        LINKERS[name] = function
        DESCRIPTIONS[name] = description
        return function

    return register


def get_linker(name: str) -> Linker:
    try:
        return LINKERS[name]
    except KeyError:
        raise ConfigError(f"unknown linker {name!r}; choose from: {', '.join(sorted(LINKERS))}, "
                          "or a comma chain such as 'vector,apex'") from None


def parse_spec(spec: str) -> list[str]:
    """'vector, apex' → ['vector', 'apex']; every name must be registered."""
    names = [part.strip().lower() for part in (spec or "").split(",") if part.strip()]
    if not names:
        raise ConfigError("empty linker specification; use e.g. 'full', 'apex' or 'vector,apex'")
    for name in names:
        get_linker(name)
    return names


def linker_spec(ctx: Context, default: str = DEFAULT_LINKER) -> str:
    """The linker a preset should use: `ctx.options['linker']` when set (the CLI's --linker), else `default`."""
    return str(ctx.options.get("linker") or default)


def link(ctx: Context, spec: str = DEFAULT_LINKER, subset: SchemaSubset | None = None) -> SchemaSubset:
    """Run the linkers named in `spec` in order, each narrowing the previous subset.

    Args:
        ctx: the question's context.
        spec: one linker name or a comma chain ('vector,apex').
        subset: an optional starting subset (default: the whole schema).

    Returns:
        The final `SchemaSubset`, literal-grounded and connected; it is also noted on the trace as step 'link'.
    """
    from groundsql.linking.connectivity import connect_subset
    from groundsql.linking.grounding import ground_literals

    names = parse_spec(spec)
    started = time.perf_counter()
    before = ctx.trace.usage()
    if names != ["full"] and _fits_budget(ctx, subset):
        log.info("schema fits the linking budget; using the full schema instead of %s", spec)
        names = ["full"]
    for name in names:
        stage_started = time.perf_counter()
        stage_before = ctx.trace.usage()
        previous = subset
        subset = get_linker(name)(ctx, previous)
        subset.linker = name
        ground_literals(ctx, subset, within=previous)
        connect_subset(ctx, subset)
        used = ctx.trace.usage()
        ctx.trace.note("link_stage", linker=name, tables=subset.as_mapping(),
                       seconds=round(time.perf_counter() - stage_started, 3),
                       prompt_tokens=used.prompt_tokens - stage_before.prompt_tokens,
                       completion_tokens=used.completion_tokens - stage_before.completion_tokens)
    assert subset is not None
    subset.linker = ",".join(names)
    used = ctx.trace.usage()
    ctx.trace.note("link", linker=subset.linker, requested=spec, tables=subset.as_mapping(),
                   detail=subset.to_dict(), seconds=round(time.perf_counter() - started, 3),
                   prompt_tokens=used.prompt_tokens - before.prompt_tokens,
                   completion_tokens=used.completion_tokens - before.completion_tokens)
    return subset


def _fits_budget(ctx: Context, subset: SchemaSubset | None) -> bool:
    """AgentNLQ: skip linking when the whole (remaining) schema already fits the prompt budget."""
    budget = ctx.options.get("link_full_budget")
    if budget is None or subset is not None:
        return False
    from groundsql.linking.budget import schema_tokens

    return schema_tokens(ctx) <= int(budget)
