"""``table_literal``: a filter `c = 'Participant'` whose literal is the name of a table the query reads
('the participants who attended' answered over the participants table with `type_code = 'Participant'`). The
question's word names the table, whose rows are the items asked about; as a stored value it keeps some of them
only. Rewrite: the query without that condition.

Not when the question quotes the literal (then it is the value asked for). On the gold queries of the 136
training databases no filter compares with a table's name (0 of 7,000); on the recorded training answers it
fires on two questions, both wrong."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.question import singular
from groundsql.selection.shapes.common import to_sql

NAME = "table_literal"


def check(q: QueryView) -> list[Finding]:
    where = q.select.args.get("where")
    if where is None:
        return []
    names = {singular(t.name.lower()): t.name for t in q.sources.values()}
    for condition in _conjuncts(where.this):
        pair = _column_literal(condition)
        if pair is None:
            continue
        column, value = pair
        table = names.get(singular(value.strip().lower()))
        if table is None or _quoted(q.ctx.question, value):
            continue
        rewrite = q.select.copy()
        kept = [c.copy() for c in _conjuncts(rewrite.args["where"].this) if c != condition]
        rewrite.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
        return [Finding(
            NAME, f"the query keeps the rows with {column.sql()} = '{value}', the name of the table {table} it "
                  f"reads: the question's word names that table, not a stored value",
            f"'{value}' is the name of the table {table}; the question asks about its rows, not about those whose "
            f"{column.name} stores '{value}'. Drop that condition.", rewrite=to_sql(q, rewrite))]
    return []


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _column_literal(node: exp.Expression) -> tuple[exp.Column, str] | None:
    if not isinstance(node, exp.EQ):
        return None
    left, right = node.this, node.expression
    if isinstance(left, exp.Literal):
        left, right = right, left
    if isinstance(left, exp.Column) and isinstance(right, exp.Literal) and right.is_string and right.this.strip():
        return left, right.this
    return None


def _quoted(question: str, value: str) -> bool:
    lowered, wanted = question.lower(), value.strip().lower()
    return any(f"{mark}{wanted}{end}" in lowered for mark, end in (("'", "'"), ('"', '"'), ("“", "”")))
