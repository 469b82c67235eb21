"""`ssev` (SSEV stage 6): PreSQL → repair → linking → PostSQL → repair → validation → weighted vote.

PreSQL candidates are repaired before linking, so the schema is linked from queries that run (SSEV Fig. 5:
self-refinement in both stages)."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import schema_prompt_text
from groundsql.generation.fewshot import FewShotOptions
from groundsql.generation.refinement import execute_candidate, refine, revise
from groundsql.generation.schema_text import render_subset
from groundsql.generation.tree_repair import TreeRepairOptions
from groundsql.generation.two_round import two_round_sql
from groundsql.generation.validator import validate
from groundsql.linking.options import LinkerChoice
from groundsql.linking.presql import subset_from_drafts
from groundsql.linking.subset import SchemaSubset
from groundsql.options import Options, shadowing_allowed
from groundsql.pipelines.registry import preset
from groundsql.selection import SelectionOptions, learn, select
from groundsql.selection.experts import Expert, resolve_experts
from groundsql.selection.outcome import build_answer

SAMPLE_TEMPERATURE = 0.7


with shadowing_allowed():
    class _Validation(Options):
        validate: bool = Field(True, description="validate the winner's result; one more repair if it is rejected")


class SsevOptions(_Validation, SelectionOptions, FewShotOptions, TreeRepairOptions, LinkerChoice):
    samples: int | None = Field(None, ge=1, description="queries per expert and round (none: --samples)")
    postsql: bool = Field(True, description="run the second round on the linked schema")
    refine_rounds: int = Field(2, ge=0, description="repair rounds per failing or empty candidate")
    vote: Literal["majority", "wma", "rwma"] = Field("wma", description="voting method over all candidates")


@preset("ssev", "two rounds (PreSQL on the full schema, PostSQL on the schema it used), repair, "
                "validation and a WMA vote over all candidates", options=SsevOptions)
def ssev(ctx: Context, options: SsevOptions) -> Answer:
    """PreSQL → repair → link (from the drafts, or the `linker` option) → PostSQL → repair → vote → validate."""
    experts = resolve_experts(ctx, options)
    samples = options.samples if options.samples is not None else ctx.samples
    full_text = schema_prompt_text(ctx)
    rounds = options.refine_rounds
    drafts = [c for e in experts for c in _round(ctx, e, full_text, pruned=False, samples=samples, fewshot=options)]
    pre = _refine_all(ctx, drafts, full_text, rounds)
    subset = _link(ctx, [c.sql for c in drafts + pre], options.linker)
    pruned_text = render_subset(ctx, subset)
    post = [c for e in experts for c in _round(ctx, e, pruned_text, pruned=True, samples=samples, fewshot=options)] \
        if options.postsql else []
    texts = {"presql": full_text, "postsql": pruned_text}
    post_refined = _refine_all(ctx, post, pruned_text, rounds)
    candidates = pre + post_refined
    method = options.vote
    names = [e.name for e in experts]
    selection = select(ctx, candidates, method=method, experts=names, options=options)
    voted = selection.chosen.sql
    if options.validate and selection.chosen.ok:
        fixed = _validated(ctx, selection.chosen, texts.get(selection.chosen.source, pruned_text), experts)
        if fixed is not None:  # the repair takes over the votes of the result the validator rejected
            rejected = {id(c) for c in selection.vote.winner.candidates}
            candidates = [replace(fixed, expert=c.expert) if id(c) in rejected else c for c in candidates]
            selection = select(ctx, candidates, method=method, experts=names, options=options)
    learn(ctx, candidates, experts=names, options=options)
    alternatives = [g.representative.sql for g in selection.vote.groups]
    answer = build_answer(ctx, selection.chosen, candidates, confidence=selection.confidence,
                          linked_schema=subset.as_mapping() if subset.tables else None, alternatives=alternatives,
                          options=options)
    answer.stages = _stages(drafts, pre, post, post_refined, voted, answer.sql)
    return answer


def _stages(drafts: list[Candidate], pre: list[Candidate], post: list[Candidate], post_refined: list[Candidate],
            voted: str, final: str) -> dict[str, str]:
    """The answer after each stage: first expert's greedy PreSQL, repaired, its PostSQL, repaired, the vote,
    the validated vote (the preset's answer)."""
    stages = {"presql": drafts[0].sql if drafts else "", "presql_repaired": pre[0].sql if pre else ""}
    if post:
        stages.update(postsql=post[0].sql, postsql_repaired=post_refined[0].sql if post_refined else post[0].sql)
    stages.update(vote=voted, validate=final)
    return stages


def _round(ctx: Context, expert: Expert, schema_text: str, *, pruned: bool, samples: int,
           fewshot: FewShotOptions) -> list[Candidate]:
    """One greedy query per expert, plus `samples - 1` sampled ones; each executed at once."""
    source = "postsql" if pruned else "presql"
    sqls = two_round_sql(ctx, schema_text, step=source, pruned=pruned, role=expert.role, fewshot=fewshot)
    if samples > 1:
        sqls += two_round_sql(ctx, schema_text, step=source, pruned=pruned, role=expert.role, n=samples - 1,
                              temperature=SAMPLE_TEMPERATURE, fewshot=fewshot)
    candidates = []
    for sql in sqls:
        candidate = execute_candidate(ctx, sql, source=source, role=expert.role)
        candidate.expert = expert.name
        candidates.append(candidate)
    return candidates


def _link(ctx: Context, sqls: list[str], linker: str | None) -> SchemaSubset:
    """The schema the PreSQL queries used; a configured `linker` replaces it."""
    if linker:
        from groundsql.linking import link

        return link(ctx, linker)
    subset = subset_from_drafts(ctx.schema, sqls, ctx.db.dialect, linker="presql-sql")
    ctx.trace.note("link", linker="presql-sql", tables=subset.as_mapping())
    return subset


def _refine_all(ctx: Context, candidates: list[Candidate], schema_text: str, rounds: int) -> list[Candidate]:
    """Repair failing or empty candidates (each distinct query once); failures that remain still vote."""
    done: dict[tuple[str, str], Candidate] = {}
    refined = []
    for candidate in candidates:
        key = (candidate.expert, candidate.sql)
        if key not in done:
            repaired = refine(ctx, candidate, schema_text, rounds=rounds, role=_role(ctx, candidate),
                              retry_temperature=SAMPLE_TEMPERATURE)
            repaired.expert = candidate.expert
            done[key] = repaired
        refined.append(done[key])
    return refined


def _validated(ctx: Context, chosen: Candidate, schema_text: str, experts: list[Expert]) -> Candidate | None:
    """ReCAPAgent validation of the winner; an invalid verdict earns one more repair round."""
    verdict = validate(ctx, chosen)
    if verdict.valid:
        return None
    role = next((e.role for e in experts if e.name == chosen.expert), "generator")
    revised = revise(ctx, chosen, schema_text, problem="A reviewer found a problem with its result.",
                     hint=verdict.feedback(), role=role)
    if revised is None or not revised.ok:
        return None
    revised.expert, revised.source = chosen.expert, "validated"
    return revised


def _role(ctx: Context, candidate: Candidate) -> str:
    for role, model in ctx.models.items():
        if role.startswith("expert:") and (candidate.expert in (role, model.spec)):
            return role
    return "generator"
