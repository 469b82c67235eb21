"""A confidence from signals that separate right from wrong answers of a small model, for any preset.

Signals (`Signals`): the answer ran and returned rows; the exact findings on it (question-shape and sanity
checks); agreement among *diverse* candidates (different framings or schema views, never resamples of one prompt);
the share of candidates that agree with it; how complex the query is (joins, nested queries, set operations);
whether it filters on string literals, and on ones the question does not say (a literal is where a small model
most often picks the wrong value or column); whether the result is empty; whether an exact repair changed it;
whether auto had to escalate (such an answer stays below 0.8, `ESCALATED_CEILING`); and how probable the model
found its first draft, token by token (`draft_likelihood`: the embedded model reports it, a remote one may not).
`confidence` is a logistic
model of them whose weights
(`calibration_weights.json`) are fitted on the open Spider split by `benchmarks/calibration_fit.py`, which also
reports the fit's reliability on databases left out of it; held-out databases are what tell whether they
generalise.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.trace import Trace

#: The highest confidence an answer reached only through auto's escalation is given: the cheap candidates
#: disagreed or an exact check objected, and the later agreement involves candidates made from theirs (the focused
#: framing, a repair), so it is not independent. On the open sample such answers scored at or above 0.8 by the
#: logistic model were right 3 times in 5 (two runs) and 5 in 10 on databases the fit left out.
ESCALATED_CEILING = 0.79
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between, exp.Like, exp.ILike)
WEIGHTS_FILE = Path(__file__).with_name("calibration_weights.json")


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
    literals: int = 0  # string literals the query compares with
    numbers: int = 0  # numeric literals the query compares with
    unsaid: int = 0  # string literals the question does not say (a derived or invented value)
    escalated: bool = False  # the answer was reached through auto's escalation (capped at ESCALATED_CEILING)
    draft_logprob: float | None = None  # mean log-probability of the first draft's tokens (None: not reported)
    draft_least: float | None = None  # the lowest log-probability of one of its tokens
    draft_content_logprob: float | None = None  # the same two over the tokens that carry content (no fence,
    draft_content_least: float | None = None  # whitespace or semicolon): recorded, not weighted

    def to_dict(self) -> dict:
        return asdict(self)


def _parsed(sql: str, dialect: str | None) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None


def _complexity(tree: exp.Expression | None) -> int:
    if tree is None:
        return 3
    joins = len(list(tree.find_all(exp.Join)))
    selects = len(list(tree.find_all(exp.Select)))
    return joins + max(selects - 1, 0)


def _filter_literals(tree: exp.Expression | None) -> list[exp.Literal]:
    found = []
    for literal in tree.find_all(exp.Literal) if tree is not None else ():
        parent = literal.parent
        while isinstance(parent, (exp.Paren, exp.Neg, exp.Cast, exp.Tuple)):
            parent = parent.parent
        if isinstance(parent, _COMPARISONS):
            found.append(literal)
    return found


def complexity(sql: str, dialect: str | None = None) -> int:
    """Joins + nested queries + set operations of a query (0 for one table and no subquery; 3 unparsable)."""
    return _complexity(_parsed(sql, dialect))


def filter_literals(sql: str, dialect: str | None = None) -> list[exp.Literal]:
    """The literals the query compares with: operands of a comparison, IN, BETWEEN or LIKE (a LIMIT or a literal
    in the SELECT list is not a filter)."""
    return _filter_literals(_parsed(sql, dialect))


def compared_literals(sql: str, dialect: str | None = None) -> tuple[int, int]:
    """(string, numeric) literals the query compares with (`filter_literals`)."""
    literals = filter_literals(sql, dialect)
    strings = sum(1 for literal in literals if literal.is_string)
    return strings, len(literals) - strings


def said_in(value: str, question: str) -> bool:
    """Whether the question says the value exactly (case aside; LIKE's % and _ at the ends aside) as whole words:
    'France' in 'singers from France?', but not 'L' for 'left handed' nor 'Anthony ' (a trailing space)."""
    value = value.strip("%_").lower()
    if not value:
        return True
    text, start = question.lower(), 0
    while (at := text.find(value, start)) >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(value)] if at + len(value) < len(text) else " "
        if not (before.isalnum() or after.isalnum()):
            return True
        start = at + 1
    return False


def query_signals(sql: str, question: str = "", dialect: str | None = None) -> dict[str, int]:
    """The signals read from the query itself, from one parse: `complexity`, `literals` (string literals it
    filters on), `numbers` (numeric ones) and `unsaid` (string literals the question does not say, `said_in`;
    0 without a question)."""
    if not sql:
        return {"complexity": 0, "literals": 0, "numbers": 0, "unsaid": 0}
    tree = _parsed(sql, dialect)
    literals = _filter_literals(tree)
    strings = [literal for literal in literals if literal.is_string]
    unsaid = sum(1 for literal in strings if not said_in(literal.this, question)) if question else 0
    return {"complexity": _complexity(tree), "literals": len(strings), "numbers": len(literals) - len(strings),
            "unsaid": unsaid}


def signals_for(candidate: Candidate, *, findings: int = 0, agree: bool | None = None,
                support: float | None = None, candidates: int = 1, dialect: str | None = None,
                question: str = "", escalated: bool = False, trace: Trace | None = None) -> Signals:
    """The signals of `candidate`; with `trace`, also the likelihood of the run's first draft."""
    draft = draft_likelihood(trace) if trace is not None else None
    return Signals(ran=candidate.ok, rows=bool(candidate.ok and candidate.result.row_count),
                   findings=findings, agree=agree, support=support, candidates=candidates, escalated=escalated,
                   repaired=bool(candidate.repairs), **query_signals(candidate.sql, question, dialect),
                   draft_logprob=draft["mean"] if draft else None, draft_least=draft["least"] if draft else None,
                   draft_content_logprob=draft.get("content_mean") if draft else None,
                   draft_content_least=draft.get("content_least") if draft else None)


#: A first draft is *sure* when no token of it had a log-probability below this (a probability of about 0.5). Chosen
#: on the training databases (431 answers of `auto`, 45 databases, each scored by a fit that left its database
#: out): among -0.3, -0.5, -0.7 and -1.0, and a continuous mean and least log-probability, -0.7 gave the lowest
#: Brier score (0.128 against 0.130 without the signal). It is weak beside the other signals (alone, an AUC of
#: 0.69 over the answers): the small model is rarely unsure token by token even where it is wrong.
DRAFT_SURE_LOGPROB = -0.7

#: The step of the first draft: the one-shot query every SQL-writing preset starts from.
DRAFT_STEP = "generate"


def draft_likelihood(trace: Trace) -> dict[str, float | int] | None:
    """How probable the model found the run's first draft (`ModelCall.likelihoods` of the first `generate` call):
    a question-level signal of how sure the model was before any check or repair; None where the model did not
    report it or no such call was made."""
    for call in trace.model_calls():
        if call.step == DRAFT_STEP or call.step.endswith(":draft"):  # a seed preset's plain draft (generation.draft)
            return call.likelihoods[0] if call.likelihoods else None
    return None


def features(signals: Signals) -> dict[str, float]:
    """The logistic model's inputs: each a 0/1 indicator (findings counted up to two)."""
    voted = signals.support is not None and signals.candidates >= 3
    return {
        "agree": float(signals.agree is True),
        "disagree": float(signals.agree is False),
        "escalated": float(signals.candidates >= 3),
        "supported": float(voted and (signals.support or 0.0) > 0.5),
        "findings": float(min(signals.findings, 2)),
        "complex": float(signals.complexity >= 2),
        "joined": float(signals.complexity == 1),
        "string_literal": float(signals.literals > 0),
        "unsaid_literal": float(signals.unsaid > 0),
        "empty": float(not signals.rows),
        "number_literal": float(signals.numbers > 0),
        "repaired": float(signals.repaired),
        # every token of the first draft was likely (the summary the model reported; 0 where it reported none)
        "draft_sure": float(signals.draft_least is not None and signals.draft_least >= DRAFT_SURE_LOGPROB),
    }


@cache
def weights() -> dict[str, float]:
    """The fitted weights (`bias` and one per feature)."""
    return json.loads(WEIGHTS_FILE.read_text())["weights"]


def confidence(signals: Signals, fitted: dict[str, float] | None = None) -> float:
    """The signals as one number in [0, 1]: the probability that the answer is right under the `fitted` weights
    (default: `weights()`), an escalated answer capped at `ESCALATED_CEILING`."""
    if not signals.ran:
        return 0.0
    fitted = weights() if fitted is None else fitted
    score = fitted["bias"] + sum(fitted.get(name, 0.0) * value for name, value in features(signals).items())
    probability = round(1.0 / (1.0 + math.exp(-score)), 3)
    return min(probability, ESCALATED_CEILING) if signals.escalated else probability
