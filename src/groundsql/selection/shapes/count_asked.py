"""'How many …' (no 'each') but the query lists rows instead of counting them (not when it puts them in order,
nor when it shows a stored measure: 'the number of X' is then a column). Rewrite: the count (`COUNT(DISTINCT x)`
for a distinct list)."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import aggregates, question_shape, to_sql


def check(q: QueryView) -> list[Finding]:
    """'How many …' with no grouping words, but the query returns rows of values instead of a count."""
    shape, select = question_shape(q), q.select
    if not (shape.counts and shape.one_number) or any(aggregates(e) for e in select.expressions):
        return []
    if select.args.get("order") is not None or _stored_number_shown(q):
        return []  # rows put in order were asked for; or 'the number of …' is a number the data stores
    if select.args.get("having") is not None or select.find(exp.Star) and not select.args.get("distinct"):
        rewrite = None
    else:
        rewrite = _count_of(select)
    rows = q.candidate.result.row_count
    return [Finding(
        "count_asked",
        f"the question asks how many, but the query lists {rows} row(s) instead of counting them",
        "The question asks for a number (how many), but the query returns the rows themselves; count them "
        "with COUNT(…) (COUNT(DISTINCT …) for different values) in one row.",
        rewrite=to_sql(q, rewrite) if rewrite is not None else "")]


def _stored_number_shown(q: QueryView) -> bool:
    """Whether the query shows a measure column ('the total number of horses' read from `Total_Horses`)."""
    for output in q.select.expressions:
        column = output.unalias()
        table = q.table_of(column) if isinstance(column, exp.Column) else None
        profile = q.profile(table, column.name) if table is not None else None
        if profile is not None and profile.semantic_type == "metric":
            return True
    return False


def _count_of(select: exp.Select) -> exp.Select | None:
    """The count of what `select` lists: COUNT(DISTINCT x) for a distinct (or grouped) single column, else
    COUNT(*) over the same rows."""
    counted = select.copy()
    group = counted.args.get("group")
    distinct = counted.args.get("distinct") is not None
    outputs = [e.unalias() for e in counted.expressions]
    for key in ("order", "limit", "offset", "distinct", "group"):
        counted.set(key, None)
    if distinct or group is not None:
        keys = outputs if distinct else list(group.expressions)
        if len(keys) != 1 or isinstance(keys[0], exp.Star):
            return None
        counted.set("expressions", [exp.Count(this=exp.Distinct(expressions=[keys[0].copy()]))])
    else:
        counted.set("expressions", [exp.Count(this=exp.Star())])
    return counted
