"""An inner join that shows, filters, groups and orders by nothing but changes the rows, to a table the question
never names (a named one is asked for: 'customers with an account'). Rewrite: the query without it."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView, direct_tables, inner_joins, short
from groundsql.selection.shapes.common import named_by_own_words


def check(q: QueryView) -> list[Finding]:
    """A list query (no grouping, no aggregate) with an inner join whose table appears only in that join's own
    condition, and whose removal changes how many rows come back: the join repeats or drops rows and adds
    nothing the answer shows, filters, groups or orders by. A probe counts the rows without it."""
    select = q.select
    if (select.args.get("group") or any(e.find(exp.AggFunc) for e in select.expressions)
            or select.find(exp.Star) or q.candidate.result.truncated):
        return []
    dialect = q.ctx.db.dialect
    findings = []
    for join in idle_joins(q, select):
        table = join.this
        alias = table.alias_or_name
        without = select.copy()
        without.set("joins", [j for j in without.args.get("joins") or [] if j.this.alias_or_name != alias])
        rows = q.probe(exp.select(exp.Count(this=exp.Star()).as_("n")).from_(without.subquery("extra_join")),
                       "extra_join")
        if not rows or rows[0][0] is None or int(rows[0][0]) == q.candidate.result.row_count:
            continue
        kept, alone = q.candidate.result.row_count, int(rows[0][0])
        rewrite = without.sql(dialect=dialect)
        findings.append(Finding(
            "extra_join",
            f"the join to {table.name} adds no column or condition but changes the rows: {kept} with it, "
            f"{alone} without",
            f"The query joins {table.name} yet shows, filters, groups and orders by nothing from it; the join only "
            f"changes which rows come back, repeating or dropping some ({kept} rows with it, {alone} without). "
            f"Remove that join unless the question asks only for rows that have a match in {table.name}. "
            f"The query without it: {short(rewrite)}", rewrite=rewrite))
    return findings


def idle_joins(q: QueryView, select: exp.Select) -> list[exp.Join]:
    """`select`'s inner joins (with an ON condition) to a table the question does not name, used nowhere in
    `select` but in that join's own condition."""
    idle = []
    for join in inner_joins(select):
        table = join.this
        if not isinstance(table, exp.Table) or join.args.get("using") or join.args.get("on") is None:
            continue
        alias = table.alias_or_name
        others = [t.name for t in direct_tables(select) if t.alias_or_name != alias]
        if named_by_own_words(q, table.name, others):
            continue  # 'customers with an account': the question asks for rows with a match
        uses = [c for c in select.find_all(exp.Column) if c.table == alias]
        if not uses or any(c.find_ancestor(exp.Join) is not join for c in uses):
            continue
        idle.append(join)
    return idle
