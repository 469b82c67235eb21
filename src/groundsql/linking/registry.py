"""Linkers register themselves by name (with their options model); `link` runs a comma chain of them and
records the subset on the trace."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.linking.options import LinkerChoice, LinkOptions
from groundsql.linking.subset import SchemaSubset
from groundsql.options import NoOptions, Options, register

log = logging.getLogger("groundsql")

#: A linker narrows the schema: it gets the previous stage's subset (None for the first stage: the whole schema).
Linker = Callable[[Context, "SchemaSubset | None"], SchemaSubset]
LINKERS: dict[str, Linker] = {}
DESCRIPTIONS: dict[str, str] = {}
OPTIONS: dict[str, type[Options]] = {}
DEFAULT_LINKER = "full"


def linker(name: str, description: str, *, options: type[Options] = NoOptions) -> Callable[[Linker], Linker]:
    """Register a linker under `name` (used by `--linker` and the `linker` option) with its options model,
    which the linker reads with `ctx.settings(options)`."""

    def add(function: Linker) -> Linker:
        LINKERS[name] = function
        DESCRIPTIONS[name] = description
        OPTIONS[name] = register(options, f"linker {name!r}")
        return function

    return add


def linker_options(spec: str) -> list[type[Options]]:
    """The options models that hold when the linkers of `spec` run: `LinkOptions` and each linker's own."""
    return [LinkOptions, *(OPTIONS[name] for name in parse_spec(spec))]


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
    """The linker a preset should use: the `linker` option when set (the CLI's --linker), else `default`."""
    return ctx.settings(LinkerChoice).linker or default


def link(ctx: Context, spec: str = DEFAULT_LINKER, subset: SchemaSubset | None = None, *,
         full_budget: int | None = None) -> SchemaSubset:
    """Run the linkers named in `spec` in order, each narrowing the previous subset.

    Args:
        ctx: the question's context.
        spec: one linker name or a comma chain ('vector,apex').
        subset: an optional starting subset (default: the whole schema).
        full_budget: skip linking when the whole schema fits this many tokens (default: the
            `link_full_budget` option; none: always link).

    Returns:
        The final `SchemaSubset`, literal-grounded and connected; it is also noted on the trace as step 'link'.
    """
    from groundsql.linking.connectivity import connect_subset
    from groundsql.linking.grounding import ground_literals

    names = parse_spec(spec)
    started = time.perf_counter()
    before = ctx.trace.usage()
    budget = full_budget if full_budget is not None else ctx.settings(LinkOptions).link_full_budget
    if names != ["full"] and _fits_budget(ctx, subset, budget):
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


def _fits_budget(ctx: Context, subset: SchemaSubset | None, budget: int | None) -> bool:
    """AgentNLQ: skip linking when the whole (remaining) schema already fits the prompt budget."""
    if budget is None or subset is not None:
        return False
    from groundsql.linking.budget import schema_tokens

    return schema_tokens(ctx) <= int(budget)


def link_or_whole(ctx: Context, options: LinkOptions, default: str, *, shortcut: bool = True) -> SchemaSubset:
    """`link` with the `linker` option (else `default`) for a preset whose options mix in `LinkOptions` and
    `LinkerChoice`; a linker failure falls back to the whole schema (an empty subset) rather than failing the
    question.

    The `link_full_budget` option, when given, takes a schema whose DDL fits it whole (AgentNLQ). With `shortcut`
    (prospy) and no explicit linker, an unset `link_full_budget` means `DEFAULT_FULL_BUDGET`; without it (apex,
    which links as the paper does on a schema of any size) an unset budget means always link."""
    from groundsql.errors import GroundsqlError
    from groundsql.linking.options import DEFAULT_FULL_BUDGET

    budget = options.link_full_budget
    if budget is None and shortcut and not options.linker:
        budget = DEFAULT_FULL_BUDGET
    try:
        return link(ctx, options.linker or default, full_budget=budget)
    except (GroundsqlError, NotImplementedError) as exc:
        log.warning("schema linking failed (%s); using the whole schema", exc)
        ctx.trace.note("link", linker="failed", error=str(exc))
        return SchemaSubset()
