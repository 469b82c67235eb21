"""A confidence from signals that separate right from wrong answers of a small model, for any preset.

Signals (`Signals`): the answer ran and returned rows; the exact findings on it (question-shape and sanity
checks); agreement among *diverse* candidates (different framings or schema views, never resamples of one prompt);
the share of candidates that agree with it; how complex the query is (joins, nested queries, set operations);
whether an exact repair changed it. `confidence` maps them to [0, 1] with weights read off the open Spider split
(`benchmarks/results/confidence.md` shows the reliability diagram they give); held-out databases are what tell
whether they generalise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate

#: Weights of the signals (see the module docstring); a starting score, additions and subtractions.
BASE = 0.55
AGREE = 0.3  # two diverse framings return the same rows
DISAGREE = -0.25  # they do not
SUPPORT = 0.15  # after escalation: most candidates agree with the answer
FINDING = -0.3  # per exact finding, at most two counted
COMPLEX = -0.1  # two joins or more, a nested query or a set operation
EMPTY = 0.35  # an empty result keeps this share of the score


@dataclass(frozen=True)
class Signals:
    ran: bool
    rows: bool
    findings: int = 0
    agree: bool | None = None  # diverse candidates agree (None: only one framing ran)
    support: float | None = None  # share of all candidates that return the answer's rows (None: no vote)
    candidates: int = 1
    complexity: int = 0  # joins + nested queries + set operations
    repaired: bool = False  # an exact repair (tree or shape) changed the query

    def to_dict(self) -> dict:
        return asdict(self)


def complexity(sql: str, dialect: str | None = None) -> int:
    """Joins + nested queries + set operations of a query (0 for one table and no subquery)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return 3
    joins = len(list(tree.find_all(exp.Join)))
    selects = len(list(tree.find_all(exp.Select)))
    return joins + max(selects - 1, 0)


def signals_for(candidate: Candidate, *, findings: int = 0, agree: bool | None = None,
                support: float | None = None, candidates: int = 1, dialect: str | None = None) -> Signals:
    return Signals(ran=candidate.ok, rows=bool(candidate.ok and candidate.result.row_count),
                   findings=findings, agree=agree, support=support, candidates=candidates,
                   complexity=complexity(candidate.sql, dialect) if candidate.sql else 0,
                   repaired=bool(candidate.repairs))


def confidence(signals: Signals) -> float:
    """The signals as one number in [0, 1]."""
    if not signals.ran:
        return 0.0
    score = BASE
    if signals.agree is True:
        score += AGREE
    elif signals.agree is False:
        score += DISAGREE
    if signals.support is not None and signals.candidates >= 3:
        score += SUPPORT if signals.support > 0.5 else -SUPPORT
    score += FINDING * min(signals.findings, 2)
    if signals.complexity >= 2:
        score += COMPLEX
    if not signals.rows:
        score *= EMPTY
    return round(max(0.0, min(1.0, score)), 3)
