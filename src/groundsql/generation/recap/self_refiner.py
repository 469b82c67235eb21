"""Self-refiner (on an execution error or an empty result): the shared repair round (`refinement.revise`) with
the error taxonomy's targeted hint, the latest critique and the expected output format; bounded rounds."""

from __future__ import annotations

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.diagnosis import diagnose
from groundsql.generation.recap.state import RecapState
from groundsql.generation.refinement import REPAIRABLE, revise

RETRY_TEMPERATURE = 0.7


def needs_refinement(ctx: Context, candidate: Candidate) -> str | None:
    """The taxonomy's kind of failure when `candidate` errs or returns nothing, else None."""
    kind = diagnose(candidate.sql, candidate.result, candidate.error, ctx.schema).kind
    return kind if kind != "ok" and kind in REPAIRABLE else None


def self_refine(ctx: Context, candidate: Candidate, state: RecapState, *, rounds: int,
                role: str = "generator") -> Candidate:
    """Up to `rounds` repairs; returns the first candidate that runs with rows, else the best one seen."""
    best = current = candidate
    for round_number in range(1, rounds + 1):
        verdict = diagnose(current.sql, current.result, current.error, ctx.schema)
        if verdict.kind == "ok" or verdict.kind not in REPAIRABLE:
            break
        state.refine_rounds += 1
        ctx.trace.note("recap", agent="self-refiner", round=round_number, kind=verdict.kind)
        revised = revise(ctx, current, state.schema_text, problem=verdict.problem, hint=_hint(verdict.hint, state),
                         role=role, retry_temperature=RETRY_TEMPERATURE)
        if revised is None:
            break
        revised.rounds = candidate.rounds + round_number
        current = revised
        if _score(current) > _score(best):
            best = current
        if _score(current) == 2:
            return current
    return best


def _hint(hint: str, state: RecapState) -> str:
    parts = [hint] if hint else []
    if state.critique:
        parts.append(f"Earlier feedback: {state.critique}")
    if state.plan.expected_columns:
        parts.append(f"The answer should have these columns: {state.plan.format_text()}.")
    return "\n".join(parts)


def _score(candidate: Candidate) -> int:
    if not candidate.ok:
        return 0
    return 2 if candidate.result.row_count > 0 else 1
