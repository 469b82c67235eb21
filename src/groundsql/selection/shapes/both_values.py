"""One column required to equal two different values at once (always empty).
Rewrite: the two conditions as an INTERSECT."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import aggregates, to_sql


def check(q: QueryView) -> list[Finding]:
    """`c = 'a' AND c = 'b'` on one column: no row can match. The question most often means 'items that have a
    row with a and a row with b' (rewrite: the two conditions as an INTERSECT of the shown columns)."""
    select = q.select
    where = select.args.get("where")
    if where is None:
        return []
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    by_column: dict[str, list[exp.EQ]] = {}
    for node in conjuncts:
        if isinstance(node, exp.EQ) and isinstance(node.left, exp.Column) and isinstance(node.right, exp.Literal):
            by_column.setdefault(node.left.sql(), []).append(node)
    for column, equalities in by_column.items():
        values = {e.right.this for e in equalities}
        if len(equalities) != 2 or len(values) != 2:
            continue
        rewrite = None
        if not any(aggregates(e) for e in select.expressions) and select.args.get("group") is None:
            first, second = select.copy(), select.copy()
            for part, dropped in ((first, equalities[1]), (second, equalities[0])):
                part.set("where", exp.Where(this=exp.and_(*[c.copy() for c in conjuncts if c is not dropped])))
                for key in ("order", "limit", "offset", "distinct"):
                    part.set(key, None)
            rewrite = exp.intersect(first, second, distinct=True)
        shown = " and ".join(f"'{v}'" for v in sorted(values))
        return [Finding(
            "both_values",
            f"{column} must equal {shown} at once, which no row can",
            f"No single row has {column} equal to both {shown}. For items that have one row with each value, "
            f"intersect two queries (one per value) or group and count the distinct values.",
            rewrite=to_sql(q, rewrite) if rewrite is not None else "")]
    return []
