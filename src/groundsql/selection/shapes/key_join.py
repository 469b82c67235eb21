"""``key_join``: a join that equates the keys of two tables no relationship connects (an author's id equated with a
student's id): the rows it pairs share a number, not a thing. Rewrite, for 'both' over a column the two tables
share ('names used both by authors and by students'): an INTERSECT of that column from each table."""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.schema import Table
from groundsql.selection.query_view import Finding, QueryView, inner_joins
from groundsql.selection.shapes.common import is_own_key, question_shape

NAME = "key_join"


def check(q: QueryView) -> list[Finding]:
    catalog = q.ctx.catalog
    if catalog is None:
        return []
    findings: list[Finding] = []
    for join in inner_joins(q.select):
        on = join.args.get("on")
        if not isinstance(on, exp.EQ) or not isinstance(on.this, exp.Column) or not isinstance(on.expression,
                                                                                               exp.Column):
            continue
        left, right = on.this, on.expression
        left_table, right_table = q.table_of(left), q.table_of(right)
        if left_table is None or right_table is None or left_table.name.lower() == right_table.name.lower():
            continue
        if not (is_own_key(q, left_table, left.name) and is_own_key(q, right_table, right.name)):
            continue
        if _connected(q, left_table.name, right_table.name) or _refers(q, left_table.name, left.name) \
                or _refers(q, right_table.name, right.name):
            continue
        condition = on.sql(dialect=q.ctx.db.dialect)
        findings.append(Finding(
            NAME,
            f"the join equates {left_table.name}.{left.name} with {right_table.name}.{right.name}: each is its own "
            f"table's key and no relationship connects the two tables",
            f"{condition} pairs rows that only share an id number: {left_table.name} and {right_table.name} are not "
            f"related by any key. To compare the two tables, compare the values the question names (INTERSECT, "
            f"IN or EXCEPT on that column), or join them through a table that refers to both.",
            rewrite=_intersect(q, left_table, right_table)))
    return findings[:1]



def _connected(q: QueryView, a: str, b: str) -> bool:
    return any(rel.other(a).lower() == b.lower() for rel in q.ctx.catalog.join_graph.edges(a))


def _refers(q: QueryView, table: str, column: str) -> bool:
    """Whether `table.column` refers to another table's key (a key that is also a reference: one row per row)."""
    return any(rel.table.lower() == table.lower() and column.lower() in (c.lower() for c in rel.columns)
               for rel in q.ctx.catalog.join_graph.edges(table))


def _intersect(q: QueryView, left: Table, right: Table) -> str:
    """For 'both' with the query showing only plain columns both tables have, and nothing else to it: an INTERSECT
    of those columns from each table; otherwise no rewrite."""
    select = q.select
    if "both" not in question_shape(q).words or any(select.args.get(k) for k in ("where", "group", "having",
                                                                                  "order", "limit")):
        return ""
    shown = [e.unalias() for e in select.expressions]
    if not shown or not all(isinstance(c, exp.Column) for c in shown):
        return ""
    names = [c.name for c in shown]
    if not all(_has(t, n) for t in (left, right) for n in names):
        return ""
    parts = [exp.select(*(exp.column(n) for n in names)).from_(exp.table_(t.name)) for t in (left, right)]
    return exp.intersect(*parts, distinct=True).sql(dialect=q.ctx.db.dialect)


def _has(table: Table, column: str) -> bool:
    return any(c.name.lower() == column.lower() for c in table.columns)
