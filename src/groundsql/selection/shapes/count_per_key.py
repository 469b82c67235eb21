"""``count_per_key``: a count per group where every group is one row. The query reads one table and groups by that
table's key (or by columns whose stored values are unique, when the question names a table that refers to this
one), so each count is 1 ('the number of transactions for each account' counted in the accounts table itself). Rewrite, when the question names exactly one table that refers to the key: that table joined, its rows
counted."""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.joins import Relationship
from groundsql.selection.query_view import Finding, QueryView, own_nodes, short
from groundsql.selection.shapes.common import named_by_own_words, primary_key

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
    columns = [c.name for c in group.expressions if isinstance(c, exp.Column)]
    if not key or len(columns) != len(group.expressions):
        return []
    referring = _referring(q, table.name, key)
    named = [rel for rel in referring if named_by_own_words(q, rel.table, [table.name])]
    by_key = {k.lower() for k in key} <= {c.lower() for c in columns}
    if not by_key and len(named) != 1:
        return []  # grouped by values that may be unique here by chance: a finding only when the question names
        #           the one table whose rows it would count ('pilots and the number of records they have')
    per = key if by_key else columns
    if not _unique(q, table.name, per):
        return []
    keys = ", ".join(f"{table.name}.{k}" for k in per)
    tables = ", ".join(f"{rel.table} ({rel.on_clause()})" for rel in referring[:3])
    message = f"the query counts rows of {table.name} per {keys}, which is one row each: every count is 1"
    hint = (f"Each value of {keys} is one row of {table.name}, so a count grouped by it is always 1. To count "
            f"related rows, join the table that refers to it" + (f": {tables}." if tables else "."))
    rewrite = ""
    if len(named) == 1 and not any(c.args.get("distinct") or isinstance(c.this, exp.Distinct) for c in counts):
        rewrite = _joined(q, select, alias, named[0])
        hint += f" The query counting {named[0].table}: {short(rewrite)}"
    return [Finding(NAME, message, hint, rewrite=rewrite)]


def _unique(q: QueryView, table: str, key: list[str]) -> bool:
    """Whether the columns' stored value combinations are unique (a declared key the data breaks says nothing)."""
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
