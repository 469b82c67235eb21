"""``both_union``: 'which X have both A and B' answered with a UNION of one query per condition, which keeps the X
that meet either. When every branch shows the same columns of the same tables (one kind of item, one condition
each), the items wanted are those every branch returns. Rewrite: the branches combined with INTERSECT, kept even
when no item has both (the UNION answers another question whatever the data holds: `Finding.empty_ok`).

Branches over different tables ('the names of both the teachers and the students') are two lists, which UNION
is right for; the check stays silent there."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView, set_branches
from groundsql.selection.shapes.common import to_sql

NAME = "both_union"
_BOTH = re.compile(r"\bboth\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    tree = q.tree
    if not isinstance(tree, exp.Union) or _BOTH.search(q.ctx.question) is None:
        return []
    branches = set_branches(tree)
    if len(branches) != 2 or any(_set_operations_below(b) for b in branches):
        return []
    if len({_shown(b) for b in branches}) != 1 or len({_tables(b) for b in branches}) != 1:
        return []
    if branches[0].args.get("where") is None and branches[1].args.get("where") is None:
        return []
    rewrite = exp.Intersect(this=branches[0].copy(), expression=branches[1].copy(), distinct=True)
    for key in ("order", "limit", "offset"):
        if tree.args.get(key) is not None:
            rewrite.set(key, tree.args[key].copy())
    return [Finding(
        NAME, "the question asks for the items that have both, but the UNION keeps those that have either",
        "'Both' asks for the items each part returns; the parts show the same columns of the same tables, so "
        "combine them with INTERSECT, not UNION.", rewrite=to_sql(q, rewrite), empty_ok=True)]


def _shown(select: exp.Select) -> str:
    return ", ".join(e.unalias().sql().lower() for e in select.expressions)


def _tables(select: exp.Select) -> frozenset[str]:
    return frozenset(t.name.lower() for t in select.find_all(exp.Table))


def _set_operations_below(select: exp.Select) -> bool:
    return any(True for _ in select.find_all(exp.SetOperation))
