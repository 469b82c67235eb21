"""'Different' / 'distinct' asked, and the result repeats rows. Rewrite: SELECT DISTINCT."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import aggregates, question_shape, to_sql


def check(q: QueryView) -> list[Finding]:
    """'Different' / 'distinct' asked, no DISTINCT or grouping, and the result repeats rows."""
    shape, select = question_shape(q), q.select
    result = q.candidate.result
    if (not shape.distinct or shape.counts or select.args.get("distinct") or select.args.get("group")
            or any(aggregates(e) for e in select.expressions) or result.row_count < 2 or result.truncated):
        return []
    if len({tuple(row) for row in result.rows}) == result.row_count:
        return []
    rewrite = select.copy()
    rewrite.set("distinct", exp.Distinct())
    return [Finding(
        "distinct_asked",
        "the question asks for different values, but the result repeats rows",
        "The question asks for different (distinct) values; use SELECT DISTINCT.",
        rewrite=to_sql(q, rewrite))]
