"""``value_grounding``: `col = 'literal'` where no row stores the literal in that column, but the data holds it
in a way the question's words point to: whole in another column of the same table (rewrite: compare that
column), or inside the column's own longer values as whole words — a place inside a code, a phrase inside a
longer outcome (rewrite: `col IN` the stored values that contain it). Probes run through the guarded database."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.sql.repairs.literals import fold_value

NAME = "value_grounding"
#: At most this many stored values replace the literal; more means the words are too common to pin a value.
MOST_VALUES = 8


def check(q: QueryView) -> list[Finding]:
    dialect = q.ctx.db.dialect
    for node in list(q.select.find_all(exp.EQ)):
        column, literal = node.this, node.expression
        if isinstance(column, exp.Literal):
            column, literal = literal, column
        if not (isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string):
            continue
        table = q.table_of(column)
        words = fold_value(literal.this)
        if table is None or len(words) < 3 or words not in fold_value(q.ctx.question):
            continue
        if _count(q, table.name, column.name, literal.this):
            continue
        if _folded_match(q, table.name, column.name, words):
            continue  # stored up to case or spacing: the literal snapping repair's case
        other = _other_column(q, table, column.name, literal.this)
        if other is not None:
            rewrite = _replaced(q, node, exp.EQ(this=exp.column(other, table=column.table), expression=literal.copy()))
            return [Finding(
                NAME, f"'{literal.this}' is never stored in {table.name}.{column.name}; {table.name}.{other} holds it",
                f"No row has {column.name} = '{literal.this}', while {table.name}.{other} stores that value: compare "
                f"{other} instead.", rewrite=rewrite.sql(dialect=dialect))]
        holders = _containing(q, table.name, column.name, words)
        if holders:
            values = exp.In(this=column.copy(), expressions=[exp.Literal.string(v) for v in holders])
            rewrite = _replaced(q, node, values)
            shown = ", ".join(f"'{v}'" for v in holders[:3]) + (" …" if len(holders) > 3 else "")
            return [Finding(
                NAME, f"'{literal.this}' is never stored whole in {table.name}.{column.name}; it is part of {shown}",
                f"{table.name}.{column.name} holds '{literal.this}' only inside longer values ({shown}): compare "
                f"with those stored values.", rewrite=rewrite.sql(dialect=dialect))]
    return []


def _replaced(q: QueryView, node: exp.Expression, new: exp.Expression) -> exp.Expression:
    tree = q.select.copy()
    target = next(n for n in tree.find_all(type(node)) if n == node)
    target.replace(new)
    return tree


def _count(q: QueryView, table: str, column: str, value: str) -> int:
    rows = q.probe(exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(table, quoted=True)).where(
        exp.EQ(this=exp.column(column, quoted=True), expression=exp.Literal.string(value))), NAME)
    return int(rows[0][0]) if rows and rows[0][0] else 0


def _distinct_like(q: QueryView, table: str, column: str, words: str) -> list[str]:
    """Stored text values of `column` that contain the words' characters (case-insensitive), at most a few."""
    pattern = "%" + "%".join(words.split()) + "%"
    probe = exp.select(exp.column(column, quoted=True)).distinct().from_(exp.to_table(table, quoted=True)).where(
        exp.Like(this=exp.Lower(this=exp.Cast(this=exp.column(column, quoted=True), to=exp.DataType.build("text"))),
                 expression=exp.Literal.string(pattern))).limit(MOST_VALUES + 1)
    rows = q.probe(probe, NAME)
    return [str(r[0]) for r in rows or [] if r[0] is not None]


def _folded_match(q: QueryView, table: str, column: str, words: str) -> bool:
    return any(fold_value(v) == words for v in _distinct_like(q, table, column, words))


def _containing(q: QueryView, table: str, column: str, words: str) -> list[str]:
    stored = _distinct_like(q, table, column, words)
    if len(stored) > MOST_VALUES:
        return []
    return [v for v in stored if f" {words} " in f" {fold_value(v)} "]


def _other_column(q: QueryView, table, column: str, value: str) -> str | None:
    texts = [c.name for c in table.columns if c.name.lower() != column.lower()
             and (c.type or "text").lower().startswith(("text", "varchar", "char", "nvarchar", "string", "clob"))]
    holders = [name for name in texts if _count(q, table.name, name, value)]
    return holders[0] if len(holders) == 1 else None
