"""Turning a selection into an `Answer`: confidence, a low-confidence note and, when asked, a clarifying question."""

from __future__ import annotations

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.selection.confidence import clarifying_question
from groundsql.selection.options import SelectionOptions


def build_answer(ctx: Context, chosen: Candidate, candidates: list[Candidate], *, confidence: float,
                 linked_schema: dict[str, list[str]] | None = None, alternatives: list[str] | None = None,
                 options: SelectionOptions | None = None) -> Answer:
    """The answer for `chosen`; below the option `confidence_threshold` (0.5) it says so, and with `clarify`
    it asks the user back instead of returning the guess (kept in `candidates`)."""
    options = options or ctx.settings(SelectionOptions)
    answer = Answer(question=ctx.question, sql=chosen.sql, result=chosen.result, error=chosen.error, preset="",
                    model=ctx.model().spec, trace=ctx.trace, confidence=confidence, candidates=candidates,
                    linked_schema=linked_schema)
    threshold = options.confidence_threshold
    if confidence < threshold:
        answer.notes.append(f"low confidence ({confidence:.2f} < {threshold:.2f}): the candidate queries disagree "
                            "or the result is empty; check the SQL before relying on it")
        if options.clarify:
            question = clarifying_question(ctx, alternatives or [chosen.sql])
            if question:
                answer.clarification = question
                answer.sql, answer.result = "", None
                answer.notes.append("not answered: a clarifying question was returned instead of a guess")
    return answer
