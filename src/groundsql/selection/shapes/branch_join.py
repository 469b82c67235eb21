"""``branch_join``: the branch of a UNION / INTERSECT / EXCEPT joins a table that it shows, filters, groups and
orders by nothing from, and the join changes the combined result ('nations with hosts over 45 and hosts under
35' answered with each host joined to the parties they hosted, which keeps only hosts who hosted one). The
`extra_join` check, for the branches of a set operation, where every branch makes the same idle join (one
branch alone joining a table is how 'X except those with a Y' is written). Rewrite: every branch without its
idle join to that table, when the combined result then differs."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView, set_branches, short
from groundsql.selection.shapes.common import to_sql
from groundsql.selection.shapes.extra_join import idle_joins

NAME = "branch_join"


def check(q: QueryView) -> list[Finding]:
    if not isinstance(q.tree, exp.SetOperation) or q.candidate.result.truncated:
        return []
    # Only a table every branch joins idly: a join in one branch alone is that branch's own condition ('services
    # EXCEPT services joined to their uses' is how a never-used service is written).
    per_branch = [{join.this.name.lower() for join in idle_joins(q, branch)} for branch in set_branches(q.tree)]
    tables = sorted(set.intersection(*per_branch)) if per_branch else []
    findings = []
    for name in tables:
        rewrite = q.tree.copy()
        for branch in set_branches(rewrite):
            idle = {id(j) for j in idle_joins(q, branch) if j.this.name.lower() == name}
            branch.set("joins", [j for j in branch.args.get("joins") or [] if id(j) not in idle] or None)
        rows = q.probe(exp.select(exp.Count(this=exp.Star()).as_("n")).from_(rewrite.subquery("branch_join")),
                       NAME)
        if not rows or rows[0][0] is None or int(rows[0][0]) == q.candidate.result.row_count:
            continue
        kept, alone = q.candidate.result.row_count, int(rows[0][0])
        sql = to_sql(q, rewrite)
        findings.append(Finding(
            NAME, f"a branch of the set operation joins {name} for nothing but changes the result: {kept} rows with "
                  f"it, {alone} without",
            f"Each part of the UNION / INTERSECT / EXCEPT joins {name} yet shows, filters, groups and orders by "
            f"nothing from it; the join only keeps the rows that have a match there ({kept} rows with it, {alone} "
            f"without). Remove it unless the question asks only for rows with a match in {name}. Without it: "
            f"{short(sql)}", rewrite=sql))
    return findings
