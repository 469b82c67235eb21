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
from groundsql.selection.checks import CHECKS, JOIN_CHECKS, Finding, findings_hint, sanity_check

log = logging.getLogger("groundsql")

__all__ = ["check_rewrite", "findings_hint", "result_findings", "shape_checks_available"]

#: The sanity checks run on a result before it is confirmed or rewritten: the default set plus `extra_join` (the
#: 1.5B model joins tables it explored but does not use, which drops or repeats rows).
CONFIRM_CHECKS = (*CHECKS, *JOIN_CHECKS)


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
        findings.extend(sanity_check(ctx, candidate, checks=CONFIRM_CHECKS))
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


def check_rewrite(ctx: Context, candidate: Candidate) -> tuple[str, Finding] | None:
    """The first exact rewrite a check proposes for a query that ran, with its finding: the query without the
    flagged problem. A rewrite that drops a table the question names (a word of the table's name, plural folded)
    is not taken: the join may be the question's own condition ("teachers who teach a course")."""
    for finding in result_findings(ctx, candidate):
        if not finding.rewrite or finding.rewrite.strip() == candidate.sql.strip():
            continue
        dropped = _tables(candidate.sql, ctx.db.dialect) - _tables(finding.rewrite, ctx.db.dialect)
        if any(_named_in(table, ctx.question) for table in dropped):
            continue
        return finding.rewrite, finding
    return None


def _tables(sql: str, dialect: str) -> set[str]:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        return {t.name.lower() for t in sqlglot.parse_one(sql, read=dialect).find_all(exp.Table) if t.name}
    except SqlglotError:
        return set()


def _named_in(table: str, question: str) -> bool:
    """Whether a word of `table`'s name (split on _ and case changes, 3+ letters, plural folded) is a word of
    `question`."""
    import re

    def fold(word: str) -> str:
        word = word.lower()
        return word[:-1] if word.endswith("s") and len(word) > 3 else word

    parts = re.split(r"_|(?<=[a-z])(?=[A-Z])|\W+", table)
    words = {fold(w) for w in re.findall(r"[A-Za-z]+", question)}
    return any(len(p) >= 3 and fold(p) in words for p in parts if p)
