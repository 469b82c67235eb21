"""Self-refiner (on an execution error or an empty result): the shared repair path (`refinement.refine`: exact
tree repairs first, then model rounds with the error taxonomy's targeted hint), given the latest critique and the
expected output format as well; bounded rounds."""

from __future__ import annotations

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.diagnosis import diagnose
from groundsql.generation.recap.state import RecapState
from groundsql.generation.refinement import REPAIRABLE, refine

RETRY_TEMPERATURE = 0.7


def needs_refinement(ctx: Context, candidate: Candidate) -> str | None:
    """The taxonomy's kind of failure when `candidate` errs or returns nothing, else None."""
    kind = diagnose(candidate.sql, candidate.result, candidate.error, ctx.schema).kind
    return kind if kind != "ok" and kind in REPAIRABLE else None


def self_refine(ctx: Context, candidate: Candidate, state: RecapState, *, rounds: int,
                role: str = "generator") -> Candidate:
    """Up to `rounds` model repairs; returns the first candidate that runs with rows, else the best one seen."""
    before = len(ctx.trace.notes("refine"))
    refined = refine(ctx, candidate, state.schema_text, rounds=rounds, role=role,
                     retry_temperature=RETRY_TEMPERATURE, hint=feedback_hint(state))
    state.refine_rounds += len(ctx.trace.notes("refine")) - before
    return refined


def feedback_hint(state: RecapState) -> str:
    """What the loop knows that the taxonomy does not: the latest critique and the expected output format."""
    parts = []
    if state.critique:
        parts.append(f"Earlier feedback: {state.critique}")
    if state.plan.expected_columns:
        parts.append(f"The answer should have these columns: {state.plan.format_text()}.")
    return "\n".join(parts)
