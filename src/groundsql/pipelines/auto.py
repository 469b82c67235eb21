"""`auto`: two cheap, different candidates; more only where they disagree or an exact check objects.

1. **Direct**: the baseline prompt → execute → the exact tree repair (and a model repair on an error or an empty
   result) → the exact shape repair (`generation.shape_repair`). The answer is announced at once
   (`Context.provisional`), so a person sees rows while the rest runs.
2. **Shaped**: a second framing of the same prompt (`generation.framings`): the question's shape, read exactly
   from its words, stated under it. It shares the prompt's prefix, so the embedded model reads only its last lines.
   With `second_when=unsure` (the default) it runs only when the first answer is not *plain*: a plain answer ran,
   returned rows, drew no finding and no exact repair, reads one table with no subquery and filters on no string
   literal. On the open sample the embedded model's plain answers were right 44 times in 45 (the `auto`
   benchmark, `benchmarks/results/auto/auto.md`), so they stop at one call (`second_when=always`: the second
   framing on every question). So does a *sure* clean answer (`sure_draft`): it ran, returned rows, drew no
   finding and no exact repair, and no token of the model's first draft had a log-probability below -0.8; it is
   the answer with the confidence it has, neither a second candidate nor an escalation is spent on it (on the
   training databases they changed 1 in 90 of those answers; `benchmarks/results/one_call/`).
3. Exact findings on both (question-shape and sanity checks, `selection.shape`, `selection.checks`).
4. **Stop** when the two return the same rows and no check objects: two calls. The `advisory_checks` (`row_loss`,
   `type_trap`) only warn: on the training folds, escalating on them turned 5 right answers wrong and none right.
5. Else **escalate**, reusing both candidates (`escalation_steps`, in order): a *focused* framing that names the
   tables and columns the drafts read and the keys joining them under the shared prefix (SSEV's PostSQL linking
   as a hint: the embedded model reads only the last lines), then a model repair told the exact findings; after
   each, stop as soon as two candidates of different framings agree and lead the vote. The vote puts groups with
   a clean member (rows, no finding) before groups every member of which an exact check objects to. `postsql`
   (the paper's PostSQL on the pruned schema, a prompt that shares no prefix: about 300 more tokens read) and
   `sample` (a resample of the first prompt; it counts as the direct framing) are steps to choose;
   `escalation=ssev` runs the whole `ssev` preset instead, the earlier behaviour.
6. The confidence comes from the signals (`selection.calibration`); below `abstain_below` (0.7: on databases the
   fit never saw, answers scored 0.65–0.8 were right about half the time) the answer is flagged (with `clarify`,
   a clarifying question comes back instead of a guess).
Every decision is noted on the trace (`auto` notes) with the signals that led to it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import generate_sql, schema_prompt_text
from groundsql.generation.framings import generate_framed
from groundsql.generation.refinement import execute_candidate, refine, revise
from groundsql.generation.schema_text import render_subset
from groundsql.generation.shape_repair import shape_repair
from groundsql.generation.structure_examples import StructureExampleOptions, structure_examples_block
from groundsql.generation.tree_repair import TreeRepairOptions, tree_repair
from groundsql.generation.two_round import two_round_sql
from groundsql.linking.presql import subset_from_drafts
from groundsql.pipelines.registry import preset
from groundsql.pipelines.ssev import SsevOptions, ssev
from groundsql.selection import select
from groundsql.selection.calibration import Signals, confidence, draft_likelihood, query_signals, signals_for
from groundsql.selection.checks import (
    ADVISORY_CHECKS,
    CHECKS,
    Finding,
    findings_hint,
    sanity_check,
    settled_findings,
)
from groundsql.selection.grouping import result_key
from groundsql.selection.outcome import build_answer
from groundsql.selection.shape import SHAPE_CHECKS

SAMPLE_TEMPERATURE = 0.7
EscalationStep = Literal["focused", "shaped", "postsql", "findings", "sample"]
#: Escalation steps that are a framing of the prompt: skipped when a cheap candidate came from it already.
FRAMED_STEPS = ("focused", "shaped")
#: The escalation's extra candidates by default, in the order they are tried.
ESCALATION_STEPS: tuple[EscalationStep, ...] = ("focused", "findings")
#: `sure_draft`'s default, chosen on the training databases only (`benchmarks/one_call_replay.py` over the recorded
#: `auto` answers of 431 training questions, among -0.5, -0.7, -0.8, -1.0 and -1.5): at -0.8 the answers that stop
#: at one call go from 32% to 53% of the questions for one answer lost (the second candidate and escalation won 1
#: of the 90 more that stop); -0.7 loses none but stops on 47%, -1.0 stops on 60% and holds fewer answers at
#: confidence 0.8 or more (59% against 64%). Off as the default at e5c20f8, on all 646 held-out dev questions: the
#: same 513 right (645 of 646 the same SQL), confidence >= 0.8 62.8% / 89.2% against 62.2% / 88.8% with the stop,
#: at 2.27 calls a question against 2.02; so it stays on.
SURE_DRAFT_LEAST = -0.8


class AutoOptions(SsevOptions, StructureExampleOptions):
    """Settings of `auto`; with `escalation=ssev` the `ssev` settings apply to the escalation."""

    sanity: bool = Field(True, description="run the sanity and question-shape checks on the candidates")
    shape_repair: bool = Field(True, description="run the exact rewrites the question-shape checks propose")
    second: Literal["shaped", "focused", "sample", "none"] = Field(
        "shaped", description="the second cheap candidate: another framing of the prompt (shaped: the question's "
                              "shape stated; focused: the first draft's tables and their keys named), a resample "
                              "of the first prompt (sample), or none")
    second_candidate: bool = Field(True, description="make a second cheap candidate at all (false: as second=none)")
    second_when: Literal["unsure", "always"] = Field(
        "unsure", description="unsure: the second candidate only when the first is not plain (it failed, returned "
                              "no rows, drew a finding or an exact repair, joins, nests or filters on a string "
                              "literal); always: on every question")
    sure_draft: float | None = Field(
        SURE_DRAFT_LEAST, le=0.0,
        description="a first answer that ran, returned rows and drew no finding and no exact repair is the answer "
                    "at one call (no second candidate, no escalation, its confidence as it stands) when no token "
                    "of the model's first draft had a log-probability below this (none: only plain answers stop "
                    "at one call; a remote model that reports no likelihoods never qualifies)")
    escalate_below: float = Field(0.8, ge=0.0, le=1.0, description="escalate when the cheap confidence is below "
                                                                   "this (disagreement or a finding always is)")
    abstain_below: float = Field(0.7, ge=0.0, le=1.0, description="flag (with clarify: ask back) below this "
                                                                  "confidence")
    escalate: bool = Field(True, description="allow escalation at all")
    escalation: Literal["candidates", "ssev"] = Field(
        "candidates", description="candidates: add diverse candidates to the cheap ones and stop at agreement; "
                                  "ssev: run the whole ssev preset (the earlier behaviour)")
    escalation_steps: tuple[EscalationStep, ...] = Field(
        ESCALATION_STEPS, description="the extra candidates escalation tries, in order: focused (the drafts' tables "
                                      "as a hint under the shared prompt), shaped (the question's shape stated), "
                                      "postsql (SSEV's PostSQL on the pruned schema), findings (a repair told the "
                                      "exact findings), sample; a framing a cheap candidate already came from is "
                                      "skipped")
    max_candidates: int = Field(5, ge=2, le=12, description="most candidates in all, cheap ones included")
    max_calls: int | None = Field(None, ge=1, description="no escalation once this many model calls are spent")
    max_tokens: int | None = Field(None, ge=1, description="no escalation once this many tokens are spent")
    advisory_checks: list[str] = Field(
        list(ADVISORY_CHECKS),
        description="checks whose findings are shown as warnings but neither escalate, lower the confidence nor "
                    "reach a repair prompt (on the training folds, escalating on them turned 5 right answers wrong "
                    "and no wrong one right)")


    @field_validator("advisory_checks", mode="before")
    @classmethod
    def _known_checks(cls, value: object) -> object:
        names = [n.strip() for n in value.split(",") if n.strip()] if isinstance(value, str) else value
        unknown = sorted(set(names or []) - set(CHECKS + SHAPE_CHECKS))
        if unknown:
            raise ValueError(f"unknown check {', '.join(unknown)}")
        return names


@preset("auto", "one call when the answer is plain, else two different cheap candidates, with exact checks and "
                "repairs; more candidates only where they disagree or a check objects; calibrated confidence",
        options=AutoOptions)
def auto(ctx: Context, options: AutoOptions) -> Answer:
    schema_text = schema_prompt_text(ctx)
    drafted = execute_candidate(ctx, generate_sql(ctx, schema_text, hints=structure_examples_block(ctx))[0],
                                source="direct")
    if drafted.ok and drafted.result.row_count:
        ctx.provisional(drafted, stage="direct")  # rows to show while the checks and the second framing run
    first = _polish(ctx, drafted, options, schema_text=schema_text, rounds=options.refine_rounds)
    if first is not drafted or not (drafted.ok and drafted.result.row_count):
        ctx.provisional(first, stage="direct")
    cheap = [first]
    first_findings = _findings(ctx, first, options)
    second_kind = options.second if options.second_candidate else "none"
    sure = False
    if second_kind != "none" and options.second_when == "unsure":
        if _plain(ctx, first, first_findings):
            ctx.trace.note("auto", stage="plain", reason="one table, no string literal, no finding or repair: "
                                                         "no second candidate")
            second_kind = "none"
        elif _sure(ctx, first, first_findings, options.sure_draft):
            ctx.trace.note("auto", stage="sure", reason=f"clean, and no draft token below log-probability "
                                                        f"{options.sure_draft}: the answer at one call")
            second_kind, sure = "none", True
    if second_kind != "none":
        second = _second_candidate(ctx, second_kind, first, schema_text, options)
        if second is not None:
            cheap.append(second)
    findings = {id(c): first_findings if c is first else _findings(ctx, c, options) for c in cheap}
    agree = _agree(cheap[0], cheap[1]) if len(cheap) > 1 else None
    chosen = _cheap_choice(cheap, findings)
    signals = signals_for(chosen, findings=len(findings[id(chosen)]), agree=agree, dialect=ctx.db.dialect,
                          question=ctx.question, trace=ctx.trace)
    score = confidence(signals)
    ctx.trace.note("auto", stage="cheap", confidence=score, **signals.to_dict())
    stages = {"direct": first.sql}
    if len(cheap) > 1:
        stages[cheap[1].source] = cheap[1].sql
    settled = sure or (agree is not False and not findings[id(chosen)] and score >= options.escalate_below
                       and chosen.ok)
    if settled or not _may_escalate(ctx, options):
        answer = build_answer(ctx, chosen, cheap, confidence=score, options=_unflagged(options))
        final_findings = findings[id(chosen)]
    elif options.escalation == "ssev":
        answer = _escalated_ssev(ctx, cheap, options)
        stages["escalated"] = answer.sql
        final_findings = _findings(ctx, _chosen(answer), options)
    else:
        ctx.provisional(chosen, stage="cheap")
        answer, final_findings = _escalated(ctx, cheap, findings, schema_text, options)
        stages["escalated"] = answer.sql
    _flag(ctx, answer, options, final_findings)
    answer.stages = stages | {"final": answer.sql}
    return answer


def _second_candidate(ctx: Context, kind: str, first: Candidate, schema_text: str,
                      options: AutoOptions) -> Candidate | None:
    """The second cheap candidate of `kind`: a framing, made as the escalation step of that name makes it, or a
    resample (None: a focused framing with no tables to name, as when the first draft is unreadable)."""
    if kind in FRAMED_STEPS:
        return _extra_candidate(ctx, kind, [first], {}, schema_text, options)
    sql = generate_sql(ctx, schema_text, step="generate:sample", temperature=SAMPLE_TEMPERATURE)[0]
    return _polish(ctx, execute_candidate(ctx, sql, source=kind), options)


def _polish(ctx: Context, candidate: Candidate, options: AutoOptions, *, schema_text: str = "",
            rounds: int = 0) -> Candidate:
    """Exact repairs first (tree, then shape); a model repair only with `rounds` (the first candidate)."""
    if rounds and schema_text:
        candidate = refine(ctx, candidate, schema_text, rounds=rounds)
    elif not candidate.ok or not candidate.result.row_count:
        candidate = tree_repair(ctx, candidate, options=ctx.settings(TreeRepairOptions)).candidate
    if options.shape_repair and candidate.ok:
        candidate = shape_repair(ctx, candidate)[0]
    return candidate


def _plain(ctx: Context, candidate: Candidate, findings: list[Finding]) -> bool:
    """A plain answer: it ran and returned rows, no check objects, no exact repair changed it, and it reads one
    table with no subquery and no string literal (where the small model's slips concentrate)."""
    if not (candidate.ok and candidate.result.row_count) or findings or candidate.repairs:
        return False
    signals = query_signals(candidate.sql, ctx.question, ctx.db.dialect)
    return signals["complexity"] == 0 and signals["literals"] == 0


def _sure(ctx: Context, candidate: Candidate, findings: list[Finding], least: float | None) -> bool:
    """A clean answer (ran, rows, no finding, no exact repair) of a draft the model was sure of: no token of the
    first draft below log-probability `least` (on the training databases, more calls on such answers changed 1 in
    90 of them; a lower confidence alone is no reason for another call)."""
    if least is None or not (candidate.ok and candidate.result.row_count) or findings or candidate.repairs:
        return False
    draft = draft_likelihood(ctx.trace)
    return draft is not None and draft["least"] >= least


def _findings(ctx: Context, candidate: Candidate, options: AutoOptions) -> list[Finding]:
    """The findings auto decides on: every check's but the advisory ones."""
    if not options.sanity or not candidate.ok:
        return []
    return settled_findings(ctx, candidate, advisory=options.advisory_checks)


def _advisory(ctx: Context, candidate: Candidate, options: AutoOptions) -> list[Finding]:
    """The advisory checks' findings on the answer: warnings only."""
    if not options.sanity or not candidate.ok or not options.advisory_checks:
        return []
    known = CHECKS + SHAPE_CHECKS
    return sanity_check(ctx, candidate, checks=tuple(c for c in options.advisory_checks if c in known))


def _agree(a: Candidate, b: Candidate) -> bool:
    return a.ok and b.ok and result_key(a.result) == result_key(b.result)


def _rank(candidate: Candidate, findings: list[Finding]) -> tuple:
    """Higher is better: ran, returned rows, fewer findings."""
    return (candidate.ok, bool(candidate.ok and candidate.result.row_count), -len(findings))


def _cheap_choice(cheap: list[Candidate], findings: dict[int, list[Finding]]) -> Candidate:
    """The first candidate unless another ranks higher (it ran where the first failed, or has fewer findings)."""
    best = cheap[0]
    for candidate in cheap[1:]:
        if _rank(candidate, findings[id(candidate)]) > _rank(best, findings[id(best)]):
            best = candidate
    return best


def _may_escalate(ctx: Context, options: AutoOptions) -> bool:
    usage = ctx.trace.usage()
    if not options.escalate:
        reason = "escalation is off"
    elif options.max_calls is not None and usage.llm_calls >= options.max_calls:
        reason = f"call budget spent ({usage.llm_calls} of {options.max_calls})"
    elif options.max_tokens is not None and usage.prompt_tokens + usage.completion_tokens >= options.max_tokens:
        reason = f"token budget spent ({usage.prompt_tokens + usage.completion_tokens} of {options.max_tokens})"
    else:
        return True
    ctx.trace.note("auto", stage="no-escalation", reason=reason)
    return False


def _escalated(ctx: Context, candidates: list[Candidate], findings: dict[int, list[Finding]], schema_text: str,
               options: AutoOptions) -> tuple[Answer, list[Finding]]:
    """Add diverse candidates to the cheap ones until two of different framings agree and lead, or the steps or
    the budget run out; the leading group's best-ranked member is the answer."""
    ctx.trace.note("auto", stage="escalate", to="candidates")
    candidates = list(candidates)
    for step in options.escalation_steps:
        if len(candidates) >= options.max_candidates or _settled(candidates, findings) is not None:
            break
        if not _may_escalate(ctx, options):
            break
        if step in FRAMED_STEPS and any(c.source == step for c in candidates):
            continue  # that framing already answered (the second cheap candidate): the same prompt again
        extra = _extra_candidate(ctx, step, candidates, findings, schema_text, options)
        if extra is None:
            continue
        findings[id(extra)] = _findings(ctx, extra, options)
        candidates.append(extra)
        ctx.trace.note("auto", stage=f"escalate:{step}", sql=extra.sql, ok=extra.ok,
                       findings=[f.check for f in findings[id(extra)]])
    groups = _groups(candidates, findings)
    leader = groups[0]
    chosen = max(leader, key=lambda c: _rank(c, findings[id(c)]))
    working = [c for c in candidates if c.ok]
    support = len(leader) / max(len(working), 1) if chosen.ok else 0.0
    framings = {_framing(c) for c in leader}
    signals = signals_for(chosen, findings=len(findings[id(chosen)]), agree=len(framings) >= 2,
                          support=support, candidates=len(candidates), dialect=ctx.db.dialect,
                          question=ctx.question, escalated=True, trace=ctx.trace)
    score = confidence(signals)
    ctx.trace.note("auto", stage="escalated", confidence=score, **signals.to_dict())
    answer = build_answer(ctx, chosen, candidates, confidence=score, options=_unflagged(options),
                          alternatives=[g[0].sql for g in groups])
    return answer, findings[id(chosen)]


def _extra_candidate(ctx: Context, step: str, candidates: list[Candidate], findings: dict[int, list[Finding]],
                     schema_text: str, options: AutoOptions) -> Candidate | None:
    if step in ("focused", "postsql"):
        subset = subset_from_drafts(ctx.schema, [c.sql for c in candidates if c.sql], ctx.db.dialect,
                                    linker="presql-sql")
        if not subset.tables:
            return None
        if step == "focused":
            sql = generate_framed(ctx, schema_text, "focused", focus=subset)
            return _polish(ctx, execute_candidate(ctx, sql, source="focused"), options)
        sql = two_round_sql(ctx, render_subset(ctx, subset), step="postsql", pruned=True, fewshot=options)[0]
        return _polish(ctx, execute_candidate(ctx, sql, source="postsql"), options)
    if step == "shaped":
        return _polish(ctx, execute_candidate(ctx, generate_framed(ctx, schema_text, "shaped"), source="shaped"),
                       options)
    if step == "findings":
        flagged = next((c for c in candidates if c.ok and findings[id(c)]), None)
        if flagged is None:
            return None
        revised = revise(ctx, flagged, schema_text, problem="Exact checks of the query against the question found:",
                         hint=findings_hint(findings[id(flagged)]))
        if revised is None:
            return None
        revised.source = "findings"
        return _polish(ctx, revised, options)
    sql = generate_sql(ctx, schema_text, step="generate:sample", temperature=SAMPLE_TEMPERATURE)[0]
    return _polish(ctx, execute_candidate(ctx, sql, source="sample"), options)


def _framing(candidate: Candidate) -> str:
    """The prompt a candidate came from: a sample is a resample of the direct prompt, so its agreement with the
    direct candidate is no evidence of independence."""
    return "direct" if candidate.source == "sample" else candidate.source


def _weight(candidate: Candidate, findings: list[Finding]) -> float:
    if not candidate.ok:
        return 0.0
    weight = 1.0 if candidate.result.row_count else 0.4
    return weight * (0.5 if findings else 1.0)


def _clean(candidate: Candidate, findings: list[Finding]) -> bool:
    return bool(candidate.ok and candidate.result.row_count and not findings)


def _groups(candidates: list[Candidate], findings: dict[int, list[Finding]]) -> list[list[Candidate]]:
    """Candidates grouped by their rows (failures alone): groups with a clean member (rows, no finding) before
    groups whose every member an exact check objects to, then the heaviest first; ties keep the earlier group."""
    groups: dict[tuple, list[Candidate]] = {}
    for index, candidate in enumerate(candidates):
        key = ("rows", result_key(candidate.result)) if candidate.ok else ("failed", index)
        groups.setdefault(key, []).append(candidate)
    ordered = list(groups.values())
    ordered.sort(key=lambda g: (not any(_clean(c, findings[id(c)]) for c in g),
                                -sum(_weight(c, findings[id(c)]) for c in g)))
    return ordered


def _settled(candidates: list[Candidate], findings: dict[int, list[Finding]]) -> list[Candidate] | None:
    """The leading group once two candidates of different framings agree in it, it leads clearly, and none of
    them has a finding."""
    groups = _groups(candidates, findings)
    leader = groups[0]
    clean = [c for c in leader if _clean(c, findings[id(c)])]
    if len({_framing(c) for c in clean}) < 2:
        return None
    lead = sum(_weight(c, findings[id(c)]) for c in leader)
    runner_up = sum(_weight(c, findings[id(c)]) for c in groups[1]) if len(groups) > 1 else 0.0
    return leader if lead > runner_up else None


def _unflagged(options: AutoOptions) -> AutoOptions:
    """`auto` flags and clarifies by its own thresholds (`_flag`), not by the vote's."""
    return options.model_copy(update={"confidence_threshold": 0.0, "clarify": False})


def _escalated_ssev(ctx: Context, cheap: list[Candidate], options: AutoOptions) -> Answer:
    """The earlier escalation: the whole ssev preset; its candidates and the cheap ones vote together."""
    ctx.trace.note("auto", stage="escalate", to="ssev")
    answer = ssev(ctx, _unflagged(options))
    for candidate in cheap:
        candidate.expert = candidate.expert or "generator"
    candidates = answer.candidates + [c for c in cheap if c.sql]
    selection = select(ctx, candidates, method="majority", options=options)
    chosen = selection.chosen
    if chosen.sql != answer.sql:
        answer = build_answer(ctx, chosen, candidates, confidence=selection.confidence,
                              linked_schema=answer.linked_schema, options=_unflagged(options))
    else:
        answer.candidates = candidates
        answer.confidence = max(answer.confidence or 0.0, selection.confidence)
    return answer


def _chosen(answer: Answer) -> Candidate:
    return Candidate(sql=answer.sql, result=answer.result, error=answer.error)


def _flag(ctx: Context, answer: Answer, options: AutoOptions, findings: list[Finding]) -> None:
    """Warnings from the checks; below `abstain_below`, a low-confidence note or a clarifying question."""
    answer.warnings = [f.message for f in findings + _advisory(ctx, _chosen(answer), options)]
    confidence_ = answer.confidence or 0.0
    if confidence_ >= options.abstain_below or any("low confidence" in n for n in answer.notes):
        return
    answer.notes.append(f"low confidence ({confidence_:.2f}): check the SQL before relying on the result")
    if options.clarify and answer.result is not None:
        from groundsql.selection.confidence import clarifying_question

        alternatives = [c.sql for c in answer.candidates if c.sql][:4]
        question = clarifying_question(ctx, alternatives or [answer.sql])
        if question:
            answer.clarification = question
            answer.notes.append("not answered: a clarifying question was returned instead of a guess")
    ctx.trace.note("auto", stage="abstain", confidence=confidence_, clarified=bool(answer.clarification))


# `Signals` is re-exported for the benchmarks that read the trace's notes.
__all__ = ["AutoOptions", "Signals", "auto"]
