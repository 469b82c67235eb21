"""'Average', 'maximum', 'minimum' asked and the query neither computes nor sorts for it. No rewrite."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape

_EXPLICIT_AGGREGATES = {"average": exp.Avg, "mean": exp.Avg, "maximum": exp.Max, "minimum": exp.Min}


def check(q: QueryView) -> list[Finding]:
    """'average', 'maximum', 'minimum' asked, and the query neither computes it nor sorts to find it."""
    words = question_shape(q).words
    missing = []
    for word, function in _EXPLICIT_AGGREGATES.items():
        if word not in words or q.tree.find(function):
            continue
        if function in (exp.Max, exp.Min) and q.tree.find(exp.Order):
            continue
        missing.append(word)
    if not missing:
        return []
    names = " and ".join(missing)
    return [Finding(
        "aggregate_asked", f"the question asks for the {names}, which the query does not compute",
        f"The question asks for the {names}; compute it with the matching aggregate (AVG, MAX, MIN).")]
