"""A plain first draft that may stand on its own: one query over the whole schema, kept when it settles.

The seed presets' switch for the small model (`agentnlq` and `apex` with `draft=true`; `recap`'s `loop=flagged`
keeps its PreSQL draft, which is this same query, the same way): the preset's own steps run only when the draft
fails, returns no rows or an exact check finds something in it (`selection.checks.settles`). A kept draft's
confidence comes from the calibrated signals of a one-call answer, as `auto`'s plain answers do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.direct import generate_sql, schema_prompt_text
from groundsql.generation.refinement import execute_candidate, refine
from groundsql.selection.calibration import confidence, signals_for
from groundsql.selection.checks import settled_findings
from groundsql.selection.query_view import Finding


@dataclass
class Draft:
    candidate: Candidate
    kept: bool  # it settles: the preset answers with it
    findings: list[Finding] = field(default_factory=list)  # the exact checks' (read only when it ran with rows)

    def confidence(self, ctx: Context) -> float:
        """The draft's confidence: the calibrated model's for a one-call answer with its findings (none when kept)."""
        return confidence(signals_for(self.candidate, findings=len(self.findings), question=ctx.question,
                                      dialect=ctx.db.dialect, trace=ctx.trace))


def plain_draft(ctx: Context, *, step: str, repair_rounds: int = 0) -> Draft:
    """Write, run and check the one-call query (model step `step`); noted on the trace as `draft`. With
    `repair_rounds`, a draft that fails to run gets refine's repair first (the exact tree repair, then up to that
    many model repairs told the error), as the `refine` preset does; a draft that ran is left as it is."""
    schema_text = schema_prompt_text(ctx)
    sql = generate_sql(ctx, schema_text, step=step)[0]
    candidate = execute_candidate(ctx, sql, source=step)
    if repair_rounds and not candidate.ok:
        repaired = refine(ctx, candidate, schema_text, rounds=repair_rounds)
        ctx.trace.note("draft-repair", by=step, before=candidate.sql, after=repaired.sql, ok=repaired.ok)
        candidate = repaired if repaired.ok else candidate
    ran_with_rows = bool(candidate.ok and candidate.result.row_count)
    findings = settled_findings(ctx, candidate) if ran_with_rows else []
    kept = ran_with_rows and not findings  # selection.checks.settles, keeping the findings it read
    ctx.trace.note("draft", by=step, sql=candidate.sql, kept=kept)
    return Draft(candidate, kept, findings)
