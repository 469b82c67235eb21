"""``group_key``: a count or total per group that shows only the numbers, not which group each belongs to
('how many invoices for each order id' answered with the counts alone). Rewrite: the grouping columns shown first."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView

NAME = "group_key"


def check(q: QueryView) -> list[Finding]:
    select = q.select
    group = select.args.get("group")
    if group is None or not select.expressions or select.args.get("having") is not None:
        return []
    outputs = [e.unalias() for e in select.expressions]
    if not all(isinstance(o, exp.AggFunc) for o in outputs) or q.candidate.result.row_count < 2:
        return []
    keys = [k for k in group.expressions if isinstance(k, exp.Column)]
    if len(keys) != len(group.expressions) or not keys:
        return []
    rewrite = select.copy()
    rewrite.set("expressions", [k.copy() for k in keys] + [e.copy() for e in rewrite.expressions])
    names = ", ".join(k.sql(dialect=q.ctx.db.dialect) for k in keys)
    return [Finding(
        NAME, f"the query shows one number per group of {names} without saying which group each number is for",
        f"Each row is the aggregate of one group of {names}; show {names} beside it so the rows can be told apart.",
        rewrite=rewrite.sql(dialect=q.ctx.db.dialect))]
