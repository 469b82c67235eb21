"""`apex` (APEX-SQL): planning → pruning → verification → synthesis → tips → exploration × n → vote."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.exploration import Budget, ExploreOptions, explore
from groundsql.generation.paths import RealizationPaths, realization_paths
from groundsql.generation.refinement import refine
from groundsql.generation.schema_text import render_subset
from groundsql.generation.tips import TipQuery, render_tips, retrieve
from groundsql.generation.tree_repair import TreeRepairOptions
from groundsql.linking.options import LinkerChoice, LinkOptions
from groundsql.linking.subset import SchemaSubset
from groundsql.pipelines.registry import preset
from groundsql.selection import SelectionOptions, learn, select
from groundsql.selection.experts import Expert, resolve_experts
from groundsql.selection.outcome import build_answer

log = logging.getLogger("groundsql")

DEFAULT_SAMPLES = 2
SAMPLE_TEMPERATURE = 0.7
DEFAULT_TIPS = 8
DEFAULT_REPAIR_ROUNDS = 2


class ApexOptions(SelectionOptions, ExploreOptions, LinkOptions, LinkerChoice, TreeRepairOptions):
    """The switches double as the benchmark's ablation settings."""

    samples: int | None = Field(None, ge=1, description=f"exploration trajectories per expert (none: --samples "
                                                        f"when above 1, else {DEFAULT_SAMPLES})")
    tips: int = Field(DEFAULT_TIPS, ge=0, description="retrieved tips per prompt (0: none)")
    paths: bool = Field(True, description="write realization paths (a plan with schema keywords) first")
    repair_rounds: int = Field(DEFAULT_REPAIR_ROUNDS, ge=0, description="repair rounds for a trajectory that ends "
                                                                        "in an error or an empty result")
    vote: Literal["majority", "wma", "rwma"] | None = Field(None, description="voting method (none: majority "
                                                                              "for one expert, else wma)")


@preset("apex", "APEX-SQL: agentic schema linking, realization paths, retrieved tips, n exploration "
                "trajectories (explore / refine / SQL / confirm) and a result vote", options=ApexOptions,
        linker="apex")
def apex(ctx: Context, options: ApexOptions) -> Answer:
    """Link (the `apex` linker; the whole schema when it fits `link_full_budget`), write realization paths,
    retrieve tips, explore `samples` trajectories per expert, repair the failed ones, vote. Each exploration
    step goes to `ctx.on_step` (default: logged at INFO)."""
    subset = _link(ctx, options)
    plan = _plan(ctx)
    paths = RealizationPaths(text=plan)
    if options.paths:
        paths = realization_paths(ctx, plan, subset.table_names() or ctx.schema.table_names)
    limit = options.tips
    tips = retrieve(TipQuery(question=ctx.question, evidence=ctx.evidence or "", plan=paths.text or plan,
                             keywords=paths.keywords, schema_names=_names(ctx, subset), dialect=ctx.db.dialect),
                    limit=limit) if limit > 0 else []
    ctx.trace.note("tips", ids=[t.id for t in tips])
    schema_text = render_subset(ctx, subset)
    experts = resolve_experts(ctx, options)
    samples = options.samples or (ctx.samples if ctx.samples > 1 else DEFAULT_SAMPLES)
    listener = ctx.on_step or _log_step
    budget = Budget.from_options(options)
    candidates: list[Candidate] = []
    for expert in experts:
        for sample in range(samples):
            candidate = explore(ctx, schema_text, tips=render_tips(tips), plan=paths.text or plan, role=expert.role,
                                sample=sample, temperature=0.0 if sample == 0 else SAMPLE_TEMPERATURE,
                                budget=budget, listener=listener)
            candidate.expert = expert.name
            candidates.append(candidate)
    explored = list(candidates)
    rounds = options.repair_rounds
    if rounds > 0:
        candidates = [_repaired(ctx, c, schema_text, rounds, experts) for c in candidates]
    names = [e.name for e in experts]
    method = options.vote or ("wma" if len(experts) > 1 else "majority")
    selection = select(ctx, candidates, method=method, experts=names, options=options)
    learn(ctx, candidates, experts=names, options=options)
    answer = build_answer(ctx, selection.chosen, candidates, confidence=selection.confidence,
                          linked_schema=subset.as_mapping() if subset.tables else None,
                          alternatives=[g.representative.sql for g in selection.vote.groups], options=options)
    if candidates:  # one greedy trajectory, then repaired, versus the vote over all of them
        answer.stages = {"exploration": explored[0].sql}
        if rounds > 0:
            answer.stages["repaired"] = candidates[0].sql
        answer.stages["vote"] = answer.sql
    return answer


def _repaired(ctx: Context, candidate: Candidate, schema_text: str, rounds: int, experts: list[Expert]) -> Candidate:
    """A trajectory's SQL after execution-guided repair (shared with ssev) when it failed or returned nothing;
    the same candidate otherwise. Exploration shows the model its errors too, but a small model's last SQL,
    often forced by the budget, still fails; the repair prompt adds a targeted hint (e.g. the real columns of
    the table an alias points to)."""
    if candidate.ok and candidate.result is not None and candidate.result.row_count > 0:
        return candidate
    role = next((e.role for e in experts if e.name == candidate.expert), "generator")
    fixed = refine(ctx, candidate, schema_text, rounds=rounds, role=role, retry_temperature=SAMPLE_TEMPERATURE)
    fixed.expert, fixed.source = candidate.expert, candidate.source
    return fixed


def _link(ctx: Context, options: ApexOptions) -> SchemaSubset:
    """The linked subset (see `linking.link_or_whole`: a small schema is explored whole)."""
    from groundsql.linking.registry import link_or_whole

    return link_or_whole(ctx, options, "apex")


def _plan(ctx: Context) -> str:
    """The master logical plan if the linker made one; otherwise the realization-path step writes the steps
    itself, which saves the planning calls on small models."""
    return ctx.cache.master_plan or ""


def _names(ctx: Context, subset: SchemaSubset) -> list[str]:
    tables = [t for t in ctx.schema.tables if not subset.tables or t.name in subset.tables]
    return [t.name for t in tables] + [c.name for t in tables for c in t.columns]


def _log_step(event: str, data: dict) -> None:
    detail = data.get("sql") or data.get("plan") or "; ".join(q["sql"] for q in data.get("queries", [])) or ""
    log.info("explore %s · [%s] %s", data.get("sample"), data.get("action"), " ".join(str(detail).split())[:160])
