"""The last look at every preset's answer: the exact findings on it as `warnings`, and a confidence where the
preset computed none (from the same signals `auto` uses, `selection.calibration`)."""

from __future__ import annotations

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.selection.calibration import confidence, signals_for
from groundsql.selection.checks import CHECKS, sanity_check
from groundsql.selection.shape import SHAPE_CHECKS


def review(ctx: Context, answer: Answer) -> None:
    """Fill `answer.warnings` (when the preset left it empty) and `answer.confidence` (when None)."""
    if answer.result_source != "sql" or not answer.sql:
        return
    chosen = Candidate(sql=answer.sql, result=answer.result, error=answer.error,
                       repairs=next((c.repairs for c in answer.candidates if c.sql == answer.sql), []))
    findings = None
    if not answer.warnings and chosen.ok:
        findings = sanity_check(ctx, chosen, checks=CHECKS + SHAPE_CHECKS)
        answer.warnings = [f.message for f in findings]
    if answer.confidence is None:
        count = len(findings) if findings is not None else len(answer.warnings)
        signals = signals_for(chosen, findings=count, dialect=ctx.db.dialect, question=ctx.question,
                              trace=ctx.trace)
        answer.confidence = confidence(signals)
        ctx.trace.note("confidence", source="signals", confidence=answer.confidence, **signals.to_dict())
