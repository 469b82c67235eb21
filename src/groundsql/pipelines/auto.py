"""`auto`: cheap first, escalate only when unsure, abstain when still unsure.

1. One cheap pass: the `refine` path (generate, execute, repair on an error or an empty result).
2. Sanity checks on the result it returns; a finding earns one targeted repair round.
3. A confidence from concrete signals: the query ran, returned rows, passed the sanity checks, and a second cheap
   candidate (one sampled reply to the same prompt, so the model's prompt cache makes it cheap) agrees.
4. Below `escalate_below`, and within the budget: the `ssev` path (more candidates, linking, vote, validation);
   the cheap candidates join its vote.
5. Below `abstain_below` at the end: the answer is flagged low confidence, or with `clarify` a clarifying
   question comes back instead of a guess.
Every decision is noted on the trace (`auto` notes) with the signals that led to it.
"""

from __future__ import annotations

from pydantic import Field

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import generate_sql, schema_prompt_text
from groundsql.generation.refinement import execute_candidate, refine, revise
from groundsql.pipelines.registry import preset
from groundsql.pipelines.ssev import SsevOptions, ssev
from groundsql.selection import select
from groundsql.selection.checks import Finding, findings_hint, sanity_check
from groundsql.selection.grouping import result_key
from groundsql.selection.outcome import build_answer

SAMPLE_TEMPERATURE = 0.7


class AutoOptions(SsevOptions):
    """Settings of `auto`; the `ssev` settings apply to the escalation (`refine_rounds` to both paths)."""

    sanity: bool = Field(True, description="run the result sanity checks; a finding earns one repair round")
    second_candidate: bool = Field(True, description="sample a second cheap candidate to check agreement")
    escalate_below: float = Field(0.8, ge=0.0, le=1.0, description="escalate to the ssev path below this "
                                                                   "confidence")
    abstain_below: float = Field(0.5, ge=0.0, le=1.0, description="flag (with clarify: ask back) below this "
                                                                  "confidence")
    escalate: bool = Field(True, description="allow escalation to the ssev path at all")
    max_calls: int | None = Field(None, ge=1, description="no escalation once this many model calls are spent")
    max_tokens: int | None = Field(None, ge=1, description="no escalation once this many tokens are spent")


@preset("auto", "refine first; sanity checks and a second sample decide the confidence; escalate to ssev only "
                "when unsure; flag or abstain when still unsure", options=AutoOptions)
def auto(ctx: Context, options: AutoOptions) -> Answer:
    schema_text = schema_prompt_text(ctx)
    first = execute_candidate(ctx, generate_sql(ctx, schema_text)[0], source="cheap")
    first = refine(ctx, first, schema_text, rounds=options.refine_rounds)
    findings = sanity_check(ctx, first) if options.sanity else []
    if findings:
        first, findings = _repair_findings(ctx, first, findings, schema_text)
    cheap = [first]
    if options.second_candidate and first.ok:
        cheap.append(execute_candidate(ctx, generate_sql(ctx, schema_text, temperature=SAMPLE_TEMPERATURE)[0],
                                       source="cheap-sample"))
    score, signals = cheap_confidence(first, cheap[1:], findings)
    ctx.trace.note("auto", stage="cheap", confidence=score, **signals)
    stages = {"cheap": first.sql}
    if score >= options.escalate_below or not _may_escalate(ctx, options):
        answer = build_answer(ctx, first, cheap, confidence=score, options=_unflagged(options))
    else:
        answer = _escalated(ctx, cheap, options)
        stages["escalated"] = answer.sql
    _flag(ctx, answer, options, findings if answer.sql == first.sql else sanity_check(ctx, _chosen(answer)))
    answer.stages = stages | {"final": answer.sql}
    return answer


def cheap_confidence(first: Candidate, others: list[Candidate], findings: list[Finding]) -> tuple[float, dict]:
    """A confidence in [0, 1] from the cheap pass's signals, and the signals themselves (for the trace)."""
    signals = {"ran": first.ok, "rows": bool(first.ok and first.result.row_count),
               "sane": not findings, "agrees": None}
    if not first.ok:
        return 0.0, signals
    score = 0.6 if signals["rows"] else 0.3
    if others:
        agreeing = [c for c in others if c.ok and result_key(c.result) == result_key(first.result)]
        signals["agrees"] = len(agreeing) == len(others)
        score += 0.3 if signals["agrees"] else -0.1
    if findings:
        score -= 0.25
    return round(max(0.0, min(1.0, score)), 3), signals


def _repair_findings(ctx: Context, candidate: Candidate, findings: list[Finding],
                     schema_text: str) -> tuple[Candidate, list[Finding]]:
    """One model round with the findings as hints; kept only when it runs and the checks find less."""
    ctx.trace.note("auto", stage="sanity-repair", findings=[f.check for f in findings])
    revised = revise(ctx, candidate, schema_text, problem="Its result looks suspicious:",
                     hint=findings_hint(findings))
    if revised is None or not revised.ok or not revised.result.row_count:
        return candidate, findings
    remaining = sanity_check(ctx, revised)
    return (revised, remaining) if len(remaining) < len(findings) else (candidate, findings)


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


def _unflagged(options: AutoOptions) -> AutoOptions:
    """`auto` flags and clarifies by its own thresholds (`_flag`), not by the vote's."""
    return options.model_copy(update={"confidence_threshold": 0.0, "clarify": False})


def _escalated(ctx: Context, cheap: list[Candidate], options: AutoOptions) -> Answer:
    """The ssev path; its candidates and the cheap ones vote together."""
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
    """Warnings from the sanity checks; below `abstain_below`, a low-confidence note or a clarifying question."""
    answer.warnings = [f.message for f in findings]
    confidence = answer.confidence or 0.0
    if confidence >= options.abstain_below or any("low confidence" in n for n in answer.notes):
        return
    answer.notes.append(f"low confidence ({confidence:.2f}): check the SQL before relying on the result")
    if options.clarify and answer.result is not None:
        from groundsql.selection.confidence import clarifying_question

        alternatives = [c.sql for c in answer.candidates if c.sql][:4]
        question = clarifying_question(ctx, alternatives or [answer.sql])
        if question:
            answer.clarification = question
            answer.notes.append("not answered: a clarifying question was returned instead of a guess")
    ctx.trace.note("auto", stage="abstain", confidence=confidence, clarified=bool(answer.clarification))
