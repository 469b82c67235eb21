"""Shape repair: run the exact rewrites the question-shape checks propose, keep one that fixes its finding.

A rewrite (the count for 'how many', the query without an unasked LIMIT or an idle join, the two conditions of
'both A and B' as an INTERSECT, the ranking measure dropped from the shown columns, DISTINCT for 'different') is
executed through `Context.query` like any candidate and kept only when it runs, returns rows (or the finding says
the original is wrong whatever the data holds, `Finding.empty_ok`), and the check that proposed it no longer fires
on it. No model call.
"""

from __future__ import annotations

from dataclasses import replace

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.refinement import execute_candidate
from groundsql.selection.query_view import Finding
from groundsql.selection.shape import shape_findings


def shape_repair(ctx: Context, candidate: Candidate, *, rounds: int = 2) -> tuple[Candidate, list[Finding]]:
    """The candidate after up to `rounds` accepted rewrites, and the shape findings that remain on it."""
    findings = shape_findings(ctx, candidate)
    for _ in range(rounds):
        rewritten = next((f for f in findings if f.rewrite and f.rewrite != candidate.sql), None)
        if rewritten is None:
            break
        trial = execute_candidate(ctx, rewritten.rewrite, source=candidate.source, role=candidate.expert or "generator")
        if not trial.ok or not (trial.result.row_count or rewritten.empty_ok):
            findings = [f for f in findings if f is not rewritten]
            continue
        remaining = shape_findings(ctx, trial)
        if any(f.check == rewritten.check for f in remaining):
            findings = [f for f in findings if f is not rewritten]
            continue
        ctx.trace.note("shape-repair", check=rewritten.check, before=candidate.sql, after=trial.sql)
        candidate = replace(trial, expert=candidate.expert, strategy=candidate.strategy, rounds=candidate.rounds,
                            repairs=[*candidate.repairs, {"rule": f"shape:{rewritten.check}", "before": candidate.sql,
                                                          "after": trial.sql, "detail": rewritten.message}])
        findings = remaining
    return candidate, findings
