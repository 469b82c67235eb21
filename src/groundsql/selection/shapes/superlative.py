"""'Most', 'highest', '-est' but the query neither sorts nor takes a MIN/MAX. No rewrite."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape


def check(q: QueryView) -> list[Finding]:
    """A superlative in the question, and the query neither sorts, limits, nor takes a MIN/MAX anywhere."""
    shape, tree = question_shape(q), q.tree
    if not shape.superlative or shape.one_number:
        return []
    if any(tree.find_all(exp.Order, exp.Limit, exp.Max, exp.Min, exp.Having)):
        return []
    return [Finding(
        "superlative",
        "the question asks for the most / least of something, but the query neither sorts nor takes a MAX or MIN",
        "The question asks for an extreme (most, highest, -est): order by the measure and keep the top row(s), or "
        "compare with MAX/MIN in a subquery.")]
