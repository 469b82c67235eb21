"""``join_edge``: a join that equates two columns the join graph does not connect, while it connects the same two
tables by another pair (the id of one entity equated with the id of another). Rewrite: the join condition taken
from the graph's edge (declared keys first, then inferred ones)."""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.joins import Relationship
from groundsql.catalog.schema import Table
from groundsql.selection.query_view import Finding, QueryView, short
from groundsql.selection.shapes.common import is_own_key

NAME = "join_edge"


def check(q: QueryView) -> list[Finding]:
    catalog = q.ctx.catalog
    if catalog is None or not catalog.join_graph.relationships:
        return []
    rewrite = q.select.copy()
    findings: list[Finding] = []
    for copied in rewrite.args.get("joins") or []:
        on = copied.args.get("on")
        if on is None:
            continue
        for equality in _column_equalities(on):
            left, right = equality.this, equality.expression
            left_table, right_table = q.table_of(left), q.table_of(right)
            if left_table is None or right_table is None or left_table.name.lower() == right_table.name.lower():
                continue
            pair = ((left_table.name, left.name), (right_table.name, right.name))
            graph = catalog.join_graph
            if _is_edge(graph.edges(left_table.name), pair):
                continue
            if not _mismatched(q, left_table, left.name, right_table, right.name):
                continue  # no side identifies another entity: a join on matching values, left alone
            direct = [rel for rel in graph.edges(left_table.name)
                      if rel.other(left_table.name).lower() == right_table.name.lower() and len(rel.columns) == 1]
            if len(direct) != 1:
                continue
            edge = direct[0]
            new = _edge_condition(edge, left.table, left_table, right.table)
            before = equality.sql(dialect=q.ctx.db.dialect)
            equality.replace(new)
            findings.append(Finding(
                NAME,
                f"the join equates {left_table.name}.{left.name} with {right_table.name}.{right.name}, which no key "
                f"connects; the tables are connected by {edge.on_clause()}",
                f"{before} joins columns that do not refer to each other. {left_table.name} and {right_table.name} "
                f"are connected by {edge.on_clause()}{' (an inferred key)' if edge.inferred else ''}: join on that."))
    if not findings:
        return []
    sql = rewrite.sql(dialect=q.ctx.db.dialect)
    first = findings[0]
    return [Finding(first.check, "; ".join(f.message for f in findings),
                    " ".join(f.hint for f in findings) + f" The query joined so: {short(sql)}", rewrite=sql)]


def _column_equalities(on: exp.Expression) -> list[exp.EQ]:
    parts = list(on.flatten()) if isinstance(on, exp.And) else [on]
    return [p for p in parts if isinstance(p, exp.EQ) and isinstance(p.this, exp.Column)
            and isinstance(p.expression, exp.Column)]


def _is_edge(edges: list[Relationship], pair: tuple[tuple[str, str], tuple[str, str]]) -> bool:
    (ta, ca), (tb, cb) = pair
    for rel in edges:
        for (t1, c1s), (t2, c2s) in (((rel.table, rel.columns), (rel.ref_table, rel.ref_columns)),
                                     ((rel.ref_table, rel.ref_columns), (rel.table, rel.columns))):
            if t1.lower() == ta.lower() and t2.lower() == tb.lower():
                for c1, c2 in zip(c1s, c2s):
                    if c1.lower() == ca.lower() and c2.lower() == cb.lower():
                        return True
    return False


def _mismatched(q: QueryView, left: Table, left_column: str, right: Table, right_column: str) -> bool:
    """Whether the two columns identify different entities: both are their own table's primary key, or one is a
    key the graph ties to a third table."""
    if is_own_key(q, left, left_column) and is_own_key(q, right, right_column):
        return True
    return _refers_elsewhere(q, left, left_column, right) or _refers_elsewhere(q, right, right_column, left)



def _refers_elsewhere(q: QueryView, table: Table, column: str, other: Table) -> bool:
    """Whether the graph ties `table.column` to a table other than `other` (a key of a third entity)."""
    for rel in q.ctx.catalog.join_graph.edges(table.name):
        if rel.table.lower() == table.name.lower() and [c.lower() for c in rel.columns] == [column.lower()] \
                and rel.ref_table.lower() not in (other.name.lower(), table.name.lower()):
            return True
    return False


def _edge_condition(edge: Relationship, left_alias: str, left_table: Table, right_alias: str) -> exp.EQ:
    """The edge's equality written with the query's own aliases."""
    if edge.table.lower() == left_table.name.lower():
        mine, theirs = edge.columns[0], edge.ref_columns[0]
    else:
        mine, theirs = edge.ref_columns[0], edge.columns[0]
    return exp.EQ(this=exp.column(mine, table=left_alias), expression=exp.column(theirs, table=right_alias))
