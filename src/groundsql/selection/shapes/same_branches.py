"""``same_branches``: a UNION / INTERSECT / EXCEPT whose branches are one and the same query, so the set operation
does nothing (an intersection of a query with itself is that query; an EXCEPT of it is empty). It is how 'donors
to both Glenn and Triton' comes out when each branch keeps `IN ('Glenn', 'Triton')` instead of one value each.
Rewrite: where the branches share one literal list with as many values as there are branches, each branch keeps
its own value of it (branch k: `= value k`). The copies are wrong whatever the data holds, so the rewrite stands
even when no row has every value (`Finding.empty_ok`)."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView, set_branches
from groundsql.selection.shapes.common import to_sql

NAME = "same_branches"


def check(q: QueryView) -> list[Finding]:
    if not isinstance(q.tree, exp.SetOperation):
        return []
    branches = set_branches(q.tree)
    if len(branches) < 2 or len({b.sql() for b in branches}) > 1:
        return []
    kind = q.tree.key.upper()
    rewrite = _one_value_each(q, len(branches))
    return [Finding(
        NAME, f"the {kind} combines {len(branches)} copies of the same query, so it changes nothing",
        f"Each part of the {kind} is the same query; the condition that should tell them apart (one value per part, "
        f"one condition per part) is missing. Write each part with its own condition."
        + (f" With one value each: {rewrite}" if rewrite else ""), rewrite=rewrite or "", empty_ok=True)]


def _one_value_each(q: QueryView, count: int) -> str | None:
    """The set operation with branch k keeping the k-th value of the one literal list all branches share."""
    lists = [node for node in set_branches(q.tree)[0].find_all(exp.In)
             if node.expressions and len(node.expressions) == count
             and all(isinstance(e, exp.Literal) for e in node.expressions)]
    if len(lists) != 1:
        return None
    target = lists[0].sql()
    rewrite = q.tree.copy()
    for position, branch in enumerate(set_branches(rewrite)):
        node = next((n for n in branch.find_all(exp.In) if n.sql() == target), None)
        if node is None:
            return None
        node.replace(exp.EQ(this=node.this.copy(), expression=node.expressions[position].copy()))
    return to_sql(q, rewrite)
