"""``both_in``: 'both A and B' answered with `c IN ('A', 'B')` (or `c = 'A' OR c = 'B'`), which keeps the rows
with either value, or with two ranges of one column no value can be in at once (`c > 2005 AND c < 2000`: always
empty). Where the question says 'both', the items wanted have a row with each. Rewrite: the two conditions as an
INTERSECT of the shown columns."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView

NAME = "both_in"
_BOTH = re.compile(r"\bboth\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    select, text = q.select, q.ctx.question
    match = _BOTH.search(text)
    where = select.args.get("where")
    if match is None or where is None or select.args.get("group") is not None \
            or any(e.find(exp.AggFunc) for e in select.expressions):
        return []
    after = text[match.end():].lower()
    disjoint = _disjoint_ranges(where.this)
    if disjoint is not None:
        first, second = disjoint
        parts = []
        for dropped in (second, first):
            part = select.copy()
            target = next(n for n in part.find_all(type(dropped)) if n == dropped)
            if isinstance(target.parent, exp.And):
                target.parent.replace(next(s for s in (target.parent.this, target.parent.expression)
                                           if s is not target))
            else:
                continue
            for key in ("order", "limit", "offset"):
                part.set(key, None)
            parts.append(part)
        if len(parts) == 2:
            sql = exp.intersect(parts[0], parts[1], distinct=True).sql(dialect=q.ctx.db.dialect)
            shown = " and ".join(c.sql(dialect=q.ctx.db.dialect) for c in (first, second))
            return [Finding(
                NAME, f"the question asks for both, but the query requires {shown} of one row at once, which none "
                      "can satisfy", f"No value satisfies {shown} at once; items with one row of each kind are the "
                                      "intersection of one query per condition.", rewrite=sql)]
    for node in where.find_all(exp.In, exp.Or):
        pair = _either(node)
        if pair is None:
            continue
        column, values = pair
        if len(values) != 2 or not all(v.lower() in after for v in values):
            continue
        parts = []
        for value in values:
            part = select.copy()
            target = next(n for n in part.find_all(type(node)) if n == node)
            target.replace(exp.EQ(this=column.copy(), expression=exp.Literal.string(value)))
            for key in ("order", "limit", "offset"):
                part.set(key, None)
            parts.append(part)
        rewrite = exp.intersect(parts[0], parts[1], distinct=True)
        sql = rewrite.sql(dialect=q.ctx.db.dialect)
        shown = " and ".join(f"'{v}'" for v in values)
        return [Finding(
            NAME, f"the question asks for both {shown}, but the query keeps rows with either one",
            f"'Both {values[0]} and {values[1]}' asks for items that have a row with each value; "
            f"{column.sql()} IN (…) keeps items with either. Intersect one query per value.", rewrite=sql)]
    return []


def _disjoint_ranges(condition: exp.Expression) -> tuple[exp.Expression, exp.Expression] | None:
    """Two conjuncts bounding one column to ranges that do not meet (`c > 2005 AND c < 2000`)."""
    parts = list(condition.flatten()) if isinstance(condition, exp.And) else []
    bounds = []
    for part in parts:
        if isinstance(part, (exp.GT, exp.GTE, exp.LT, exp.LTE)) and isinstance(part.this, exp.Column) \
                and isinstance(part.expression, exp.Literal) and not part.expression.is_string:
            bounds.append(part)
    for i, low in enumerate(bounds):
        for high in bounds[i + 1:]:
            if low.this != high.this:
                continue
            below = next((b for b in (low, high) if isinstance(b, (exp.LT, exp.LTE))), None)
            above = next((b for b in (low, high) if isinstance(b, (exp.GT, exp.GTE))), None)
            if below is None or above is None:
                continue
            if float(above.expression.this) >= float(below.expression.this):
                return above, below
    return None


def _either(node: exp.Expression) -> tuple[exp.Column, list[str]] | None:
    """`c IN ('a', 'b')` or `c = 'a' OR c = 'b'` → (c, ['a', 'b'])."""
    if isinstance(node, exp.In) and isinstance(node.this, exp.Column) and not node.args.get("query"):
        values = [e.this for e in node.expressions if isinstance(e, exp.Literal) and e.is_string]
        return (node.this, values) if len(values) == len(node.expressions) else None
    if isinstance(node, exp.Or):
        sides = [node.this, node.expression]
        if all(isinstance(s, exp.EQ) and isinstance(s.this, exp.Column) and isinstance(s.expression, exp.Literal)
               and s.expression.is_string for s in sides) and sides[0].this == sides[1].this:
            return sides[0].this, [s.expression.this for s in sides]
    return None
