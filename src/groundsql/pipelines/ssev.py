"""`ssev` (SSEV stage 6): PreSQL → repair → linking → PostSQL → repair → validation → weighted vote.

PreSQL candidates are repaired before linking, so the schema is linked from queries that run (SSEV Fig. 5:
self-refinement in both stages)."""

from __future__ import annotations

from dataclasses import replace

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import schema_prompt_text
from groundsql.generation.refinement import execute_candidate, refine, revise
from groundsql.generation.schema_text import render_subset
from groundsql.generation.two_round import two_round_sql
from groundsql.generation.validator import validate
from groundsql.linking.presql import subset_from_drafts
from groundsql.pipelines.registry import preset
from groundsql.selection import learn, select
from groundsql.selection.experts import Expert, resolve_experts
from groundsql.selection.outcome import build_answer

SAMPLE_TEMPERATURE = 0.7


@preset("ssev", "two rounds (PreSQL on the full schema, PostSQL on the schema it used), repair, "
                "validation and a WMA vote over all candidates")
def ssev(ctx: Context) -> Answer:
    """Options: `samples` per expert and round (default 1), `postsql` (True), `refine_rounds` (2), `validate` (True),
    `vote` ('wma'; 'majority', 'rwma'), `linker` (replaces PreSQL linking), `examples`/`examples_path`,
    `fewshot` (3), `db_id` (excluded from examples), `confidence_threshold`, `clarify`."""
    experts = resolve_experts(ctx)
    samples = int(ctx.options.get("samples", ctx.samples))
    full_text = schema_prompt_text(ctx)
    rounds = int(ctx.options.get("refine_rounds", 2))
    drafts = [c for e in experts for c in _round(ctx, e, full_text, pruned=False, samples=samples)]
    pre = _refine_all(ctx, drafts, full_text, rounds)
    subset = _link(ctx, [c.sql for c in drafts + pre])
    pruned_text = render_subset(ctx, subset)
    post = [c for e in experts for c in _round(ctx, e, pruned_text, pruned=True, samples=samples)] \
        if ctx.options.get("postsql", True) else []
    texts = {"presql": full_text, "postsql": pruned_text}
    post_refined = _refine_all(ctx, post, pruned_text, rounds)
    candidates = pre + post_refined
    method = str(ctx.options.get("vote", "wma"))
    names = [e.name for e in experts]
    selection = select(ctx, candidates, method=method, experts=names)
    voted = selection.chosen.sql
    if ctx.options.get("validate", True) and selection.chosen.ok:
        fixed = _validated(ctx, selection.chosen, texts.get(selection.chosen.source, pruned_text), experts)
        if fixed is not None:  # the repair takes over the votes of the result the validator rejected
            rejected = {id(c) for c in selection.vote.winner.candidates}
            candidates = [replace(fixed, expert=c.expert) if id(c) in rejected else c for c in candidates]
            selection = select(ctx, candidates, method=method, experts=names)
    learn(ctx, candidates, experts=names)
    alternatives = [g.representative.sql for g in selection.vote.groups]
    answer = build_answer(ctx, selection.chosen, candidates, confidence=selection.confidence,
                          linked_schema=subset.as_mapping() if subset.tables else None, alternatives=alternatives)
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


def _round(ctx: Context, expert: Expert, schema_text: str, *, pruned: bool, samples: int) -> list[Candidate]:
    """One greedy query per expert, plus `samples - 1` sampled ones; each executed at once."""
    source = "postsql" if pruned else "presql"
    sqls = two_round_sql(ctx, schema_text, step=source, pruned=pruned, role=expert.role)
    if samples > 1:
        sqls += two_round_sql(ctx, schema_text, step=source, pruned=pruned, role=expert.role, n=samples - 1,
                              temperature=SAMPLE_TEMPERATURE)
    candidates = []
    for sql in sqls:
        candidate = execute_candidate(ctx, sql, source=source, role=expert.role)
        candidate.expert = expert.name
        candidates.append(candidate)
    return candidates


def _link(ctx: Context, sqls: list[str]):
    """The schema the PreSQL queries used; a configured linker (`ctx.options['linker']`) replaces it."""
    if ctx.options.get("linker"):
        from groundsql.linking import link, linker_spec

        return link(ctx, linker_spec(ctx))
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
