"""A LIMIT where the question names no number and no superlative, or another number than it names.
Rewrite: the query without the LIMIT, or with the named number."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import limit_value, question_shape, to_sql


def check(q: QueryView) -> list[Finding]:
    """LIMIT with no number or superlative in the question, or a LIMIT other than the number it names."""
    shape, select = question_shape(q), q.select
    value = limit_value(select)
    if value is None or select.args.get("offset") is not None:
        return []
    wanted = shape.row_count
    if wanted is not None and wanted != value:
        rewrite = select.copy()
        rewrite.set("limit", exp.Limit(expression=exp.Literal.number(wanted)))
        return [Finding(
            "unasked_limit", f"the question asks for {wanted} rows but the query keeps {value}",
            f"The question names {wanted} rows; use LIMIT {wanted}, not LIMIT {value}.",
            rewrite=to_sql(q, rewrite))]
    if shape.grouped and wanted is None and value > 1 and q.candidate.result.row_count >= value:
        return [Finding(
            "unasked_limit",
            f"LIMIT {value} keeps {value} rows overall, but the question asks for the top row of each group",
            f"The question asks for the most / least per group ('each'), which one LIMIT {value} over all rows "
            f"does not give; pick the top row within each group (compare with the group's MAX/MIN).")]
    if shape.restricts_rows or q.candidate.result.row_count < value:
        return []
    rewrite = select.copy()
    rewrite.set("limit", None)
    return [Finding(
        "unasked_limit",
        f"LIMIT {value} cuts the result, but the question names no number of rows and no superlative",
        f"The question does not ask for the top {value} (no number, no 'most'/'highest'); drop the LIMIT so every "
        f"matching row is returned.", rewrite=to_sql(q, rewrite))]
