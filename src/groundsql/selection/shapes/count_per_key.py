"""``count_per_key``: a count per group where every group is one row. The query reads one table and groups by that
table's key, so each count is 1 ('the number of transactions for each account' counted in the accounts table
itself). Rewrite, when the question names exactly one table that refers to the key: that table joined, its rows
counted."""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.joins import Relationship
from groundsql.selection.query_view import Finding, QueryView, own_nodes, short
from groundsql.selection.shapes.common import GENERIC, name_tokens, primary_key, question_shape

NAME = "count_per_key"


def check(q: QueryView) -> list[Finding]:
    select = q.select
    group = select.args.get("group")
    if group is None or select.args.get("joins") or len(q.sources) != 1 or q.ctx.catalog is None:
        return []
    counts = list(own_nodes(select, exp.Count))
    if not counts:
        return []
    alias, table = next(iter(q.sources.items()))
    key = primary_key(q, table)
    grouped = {c.name.lower() for c in group.expressions if isinstance(c, exp.Column)}
    if not key or not all(k.lower() in grouped for k in key) or not _unique(q, table.name, key):
        return []
    referring = _referring(q, table.name, key)
    named = [rel for rel in referring if _named(q, rel.table, table.name)]
    keys = ", ".join(f"{table.name}.{k}" for k in key)
    tables = ", ".join(f"{rel.table} ({rel.on_clause()})" for rel in referring[:3])
    message = f"the query counts rows of {table.name} per {keys}, its key: every count is 1"
    hint = (f"Each value of {keys} is one row of {table.name}, so a count grouped by it is always 1. To count "
            f"related rows, join the table that refers to it" + (f": {tables}." if tables else "."))
    rewrite = ""
    if len(named) == 1 and not any(c.args.get("distinct") or isinstance(c.this, exp.Distinct) for c in counts):
        rewrite = _joined(q, select, alias, named[0])
        hint += f" The query counting {named[0].table}: {short(rewrite)}"
    return [Finding(NAME, message, hint, rewrite=rewrite)]


def _unique(q: QueryView, table: str, key: list[str]) -> bool:
    """Whether the key's values are unique in the stored rows (a declared key the data breaks says nothing)."""
    columns = [exp.column(k, table="t") for k in key]
    duplicates = (exp.select(*columns).from_(exp.table_(table).as_("t")).group_by(*columns)
                  .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1))))
    rows = q.probe(exp.select(exp.Count(this=exp.Star()).as_("n")).from_(duplicates.subquery("d")), NAME)
    return bool(rows) and rows[0][0] == 0


def _referring(q: QueryView, table: str, key: list[str]) -> list[Relationship]:
    """The relationships of other tables whose columns refer to exactly `table`'s key."""
    lowered = [k.lower() for k in key]
    return [rel for rel in q.ctx.catalog.join_graph.edges(table)
            if rel.ref_table.lower() == table.lower() and rel.table.lower() != table.lower()
            and [c.lower() for c in rel.ref_columns] == lowered]


def _named(q: QueryView, table: str, counted: str) -> bool:
    """Whether the question uses a word of `table`'s name that the counted table's name does not have."""
    words, own = question_shape(q).words, set(name_tokens(counted))
    return any(len(w) > 2 and w not in GENERIC and w not in own and w in words for w in name_tokens(table))


def _joined(q: QueryView, select: exp.Select, alias: str, rel: Relationship) -> str:
    """The query with `rel.table` joined on its reference to the counted table, and its rows counted."""
    taken = {a.lower() for a in q.sources}
    other = next(f"{rel.table}_{n}" if n else rel.table for n in range(len(taken) + 2)
                 if (f"{rel.table}_{n}" if n else rel.table).lower() not in taken)
    on = exp.and_(*(exp.EQ(this=exp.column(c, table=other), expression=exp.column(r, table=alias))
                    for c, r in zip(rel.columns, rel.ref_columns)))
    rewrite = select.copy()
    for count in list(own_nodes(rewrite, exp.Count)):
        count.replace(exp.Count(this=exp.Star()))
    rewrite = rewrite.join(exp.table_(rel.table).as_(other), on=on, join_type="inner")
    return rewrite.sql(dialect=q.ctx.db.dialect)
