"""Confirmation from the data (apex's `confirm_checks` step): before a trajectory's [CONFIRM] is accepted, its
query's result goes through the exact checks — the result sanity checks of `selection.checks` and, where the
lead's `selection.shape` module is present, the question-shape checks — and any finding goes back to the model
instead of taking its word that the query is right. No model call; probes run through `Context.query`.
"""

from __future__ import annotations

import logging

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.errors import GroundsqlError
from groundsql.selection.checks import Finding, findings_hint, sanity_check

log = logging.getLogger("groundsql")

__all__ = ["findings_hint", "result_findings", "shape_checks_available"]


def shape_checks_available() -> bool:
    """Whether the question-shape checks (`groundsql.selection.shape`) are installed."""
    try:
        import groundsql.selection.shape  # noqa: F401
    except ImportError:
        return False
    return True


def result_findings(ctx: Context, candidate: Candidate) -> list[Finding]:
    """The findings of the sanity checks and the shape checks on a query that ran (empty when it did not)."""
    if not candidate.ok:
        return []
    findings: list[Finding] = []
    try:
        findings.extend(sanity_check(ctx, candidate))
    except (GroundsqlError, ValueError) as exc:  # a check that cannot read the query finds nothing
        log.debug("sanity checks skipped: %s", exc)
    if shape_checks_available():
        from groundsql.selection.shape import shape_findings

        try:
            findings.extend(shape_findings(ctx, candidate))
        except (GroundsqlError, ValueError) as exc:
            log.debug("shape checks skipped: %s", exc)
    seen: set[tuple[str, str]] = set()
    unique = []
    for finding in findings:
        if (finding.check, finding.message) not in seen:
            seen.add((finding.check, finding.message))
            unique.append(finding)
    return unique
