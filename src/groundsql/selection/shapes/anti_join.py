"""``anti_join``: 'which X have no Y' written as an inner join. Either the joined table's join column is tested
IS NULL (an inner join never leaves it NULL: the result is always empty; rewrite: the join made a LEFT JOIN, the
anti-join meant), or the question negates ('not', 'no', 'never', 'without') and the query keeps the X rows joined
to some Y that differs (`y.c != v`) while each X has many Y (the join is on X's key), where X rows with no such
Y were asked for (rewrite: `x.key NOT IN (SELECT
y.fk FROM y WHERE y.c = v)`)."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView, inner_joins
from groundsql.selection.shapes.common import is_own_key

NAME = "anti_join"
_NEGATION = re.compile(r"\b(not|no|never|without|none|nobody|nothing)\b|n't\b", re.IGNORECASE)


def negated(question: str) -> bool:
    """Whether the question's words negate (a word of negation, or a contraction with n't)."""
    return bool(_NEGATION.search(question))


def check(q: QueryView) -> list[Finding]:
    return _null_after_inner_join(q) or _negation_as_inequality(q)


def _null_after_inner_join(q: QueryView) -> list[Finding]:
    where = q.select.args.get("where")
    if where is None:
        return []
    rewrite = q.select.copy()
    changed = []
    inner = {id(j) for j in inner_joins(q.select)}
    for join, copied in zip(q.select.args.get("joins") or [], rewrite.args.get("joins") or []):
        if id(join) not in inner or not isinstance(join.this, exp.Table) or join.args.get("on") is None:
            continue
        alias = join.this.alias_or_name
        keys = {c.name.lower() for c in join.args["on"].find_all(exp.Column) if c.table == alias}
        tested = [n for n in where.find_all(exp.Is) if isinstance(n.this, exp.Column) and n.this.table == alias
                  and n.this.name.lower() in keys and isinstance(n.expression, exp.Null)
                  and not isinstance(n.parent, exp.Not)]
        if not tested:
            continue
        copied.set("side", "LEFT")
        copied.set("kind", None)
        changed.append(join.this.name)
    if not changed:
        return []
    sql = rewrite.sql(dialect=q.ctx.db.dialect)
    names = ", ".join(changed)
    return [Finding(
        NAME, f"an inner join to {names} tests its join column IS NULL, which an inner join never leaves NULL",
        f"Rows with no match in {names} are wanted: an inner join drops exactly those rows. Use a LEFT JOIN (or "
        f"NOT IN / NOT EXISTS) so the unmatched rows remain and their {names} columns are NULL.", rewrite=sql)]



def _negation_as_inequality(q: QueryView) -> list[Finding]:
    select = q.select
    joins = select.args.get("joins") or []
    if not negated(q.ctx.question) or len(joins) != 1 or len(inner_joins(select)) != 1 \
            or select.args.get("group") is not None or len(q.sources) != 2:
        return []
    join = joins[0]
    on = join.args.get("on")
    if not isinstance(join.this, exp.Table) or not isinstance(on, exp.EQ) \
            or not all(isinstance(side, exp.Column) for side in (on.this, on.expression)):
        return []
    joined = join.this.alias_or_name
    kept = next((alias for alias in q.sources if alias != joined), None)
    if kept is None or any(c.table != kept for e in select.expressions for c in e.find_all(exp.Column)):
        return []
    own, other = (on.this, on.expression) if on.this.table == kept else (on.expression, on.this)
    if own.table != kept or other.table != joined or not is_own_key(q, q.sources[kept], own.name):
        return []  # each kept row meets one joined row (it refers to it): its != filter is already right
    where = select.args.get("where")
    if where is None:
        return []
    parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    unequal = [p for p in parts if isinstance(p, exp.NEQ) and any(
        isinstance(side, exp.Column) and side.table == joined for side in (p.this, p.expression))]
    rest = [p for p in parts if p not in unequal]
    if len(unequal) != 1 or any(c.table != kept for p in rest for c in p.find_all(exp.Column)):
        return []
    inequality = unequal[0]
    inner = exp.select(exp.column(other.name, table=joined)).from_(join.this.copy()).where(
        exp.EQ(this=inequality.this.copy(), expression=inequality.expression.copy()))
    rewrite = select.copy()
    rewrite.set("joins", None)
    condition = exp.column(own.name, table=kept).isin(query=inner).not_()
    rewrite.set("where", exp.Where(this=exp.and_(*[p.copy() for p in rest], condition)))
    sql = rewrite.sql(dialect=q.ctx.db.dialect)
    table = q.sources[joined].name
    return [Finding(
        NAME, f"the question negates, but the query keeps rows joined to a {table} row that differs "
              f"({inequality.sql(dialect=q.ctx.db.dialect)}) instead of rows with no such {table} row",
        f"'Not … any' means rows with no matching {table} row at all; a join with != keeps every row that has some "
        f"other {table} row. Exclude the matching rows with NOT IN (or NOT EXISTS / EXCEPT).", rewrite=sql)]
