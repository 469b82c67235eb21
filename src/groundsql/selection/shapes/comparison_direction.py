"""The question bounds a number on one side ('before 1945', 'more than 20') and the query compares with that
number only on the other side (`BETWEEN 1945 AND …`, `< 20`). No rewrite."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape

#: Words that put a bound on a value: the value must lie below the number that follows, or above it.
_BELOW = r"before|earlier than|less than|fewer than|under|below|younger than|smaller than|lower than|shorter than|" \
         r"cheaper than|at most|no more than"
_ABOVE = r"after|later than|more than|greater than|over|above|older than|bigger than|larger than|higher than|" \
         r"longer than|at least|exceeding|exceeds"
_BOUND = re.compile(rf"\b(?:(?P<below>{_BELOW})|(?P<above>{_ABOVE}))\s+(?:the\s+year\s+|year\s+|\$)?"
                    r"(?P<number>\d[\d,]*(?:\.\d+)?)\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    """'Before 1945', 'more than 20': the query compares with that number, but only on the other side of it
    (BETWEEN 1945 AND … for 'before 1945', `< 20` for 'more than 20')."""
    asked = _question_bounds(question_shape(q).text)
    if not asked:
        return []
    written = _query_bounds(q.tree)
    wrong = [(value, side) for value, side in asked.items() if value in written and side not in written[value]]
    if not wrong:
        return []
    value, side = wrong[0]
    shown = f"{value:g}"
    return [Finding(
        "comparison_direction",
        f"the question wants values {side} {shown}, but the query keeps the values on the other side of it",
        f"The question bounds the value {side} {shown}; compare with {'<' if side == 'below' else '>'} "
        f"{shown} (a BETWEEN keeps the values between its two bounds, both sides included).")]


def _question_bounds(text: str) -> dict[float, str]:
    """Numbers the question bounds, each with its side: 'below' for 'before 1945', 'above' for 'more than 20'."""
    bounds: dict[float, str] = {}
    for match in _BOUND.finditer(text):
        before = re.findall(r"[a-z']+", text[:match.start()].lower())[-3:]
        if any(word in ("not", "never", "no") or word.endswith("n't") for word in before):
            continue  # 'do not last more than': the bound is negated
        side = "below" if match.group("below") else "above"
        try:
            bounds.setdefault(float(match.group("number").replace(",", "")), side)
        except ValueError:
            continue
    return bounds


def _query_bounds(tree: exp.Expression) -> dict[float, set[str]]:
    """Numbers the query compares a value with, each with the side(s) it keeps the value on."""
    sides: dict[float, set[str]] = {}

    def number(node: exp.Expression) -> float | None:
        inner = node.this if isinstance(node, exp.Paren) else node
        if isinstance(inner, exp.Literal) and not inner.is_string:
            try:
                return float(inner.this)
            except ValueError:
                return None
        return None

    for comparison in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        above = isinstance(comparison, (exp.GT, exp.GTE))
        right, left = number(comparison.expression), number(comparison.this)
        if right is not None:
            sides.setdefault(right, set()).add("above" if above else "below")
        elif left is not None:
            sides.setdefault(left, set()).add("below" if above else "above")
    for between in tree.find_all(exp.Between):
        low, high = number(between.args["low"]), number(between.args["high"])
        if low is not None:
            sides.setdefault(low, set()).add("above")
        if high is not None:
            sides.setdefault(high, set()).add("below")
    return sides
