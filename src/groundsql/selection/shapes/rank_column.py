"""An aggregate shown only because it ranks the rows ('which city has the most flights' answered with the city
and its count). Rewrite: the ranking kept, the column dropped."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import aggregates, question_shape, to_sql

_ASKS_NUMBER_TOO = re.compile(r"\b(and|with|along with|as well as|together with|including|plus)\s+(the\s+|its\s+|"
                              r"their\s+)?(number|count|total|how many|average|sum|amount|quantity|frequency)\b",
                              re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    """'Which X has the most Y': an aggregate output column that only ranks the rows, beside the asked columns."""
    shape, select = question_shape(q), q.select
    order = select.args.get("order")
    if (not shape.superlative or shape.counts or shape.one_number or order is None
            or _ASKS_NUMBER_TOO.search(shape.text) or re.search(r"\b(how|what)\s+(many|much)\b", shape.text, re.I)):
        return []
    outputs = select.expressions
    ranked = {o.this.sql() for o in order.expressions}
    dropped = []
    for output in outputs:
        inner = output.unalias()
        if not aggregates(inner):
            continue
        if inner.sql() in ranked or (isinstance(output, exp.Alias) and output.alias in ranked):
            dropped.append(output)
    kept = [o for o in outputs if o not in dropped]
    if not dropped or not kept or any(aggregates(o) for o in kept):
        return []
    rewrite = select.copy()
    rewrite.set("expressions", [o.copy() for o in kept])
    rewrite.set("order", exp.Order(expressions=[_ordered_by_expression(o, outputs) for o in order.expressions]))
    names = ", ".join(o.sql(dialect=q.ctx.db.dialect) for o in dropped)
    return [Finding(
        "rank_column",
        f"{names} is shown although the question only uses it to rank the rows",
        f"The question asks which item ranks first, not for the measure itself; keep ordering by {names} but do "
        f"not select it.", rewrite=to_sql(q, rewrite))]


def _ordered_by_expression(ordered: exp.Ordered, outputs: list[exp.Expression]) -> exp.Ordered:
    """`ordered` with an output alias replaced by the aliased expression (the alias leaves the SELECT list)."""
    copy = ordered.copy()
    key = copy.this
    if isinstance(key, exp.Column) and not key.table:
        for output in outputs:
            if isinstance(output, exp.Alias) and output.alias == key.name:
                copy.set("this", output.this.copy())
    return copy
