"""``entity_key``: rows of one table counted or summed per a name-like column of a joined table whose values
repeat (two people with one name merged into one group), while that table's key is within reach. Rewrite: the
key added to GROUP BY, the shown columns unchanged."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.catalog.schema import Table
from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import primary_key

NAME = "entity_key"
#: A column identifies rows 'by name' when most of its values are distinct; below this share it is a category
#: (a city, a type) whose repeats are the point of grouping by it.
NAME_LIKE_SHARE = 0.8


def check(q: QueryView) -> list[Finding]:
    select = q.select
    group = select.args.get("group")
    if group is None or len(q.sources) < 2 or len(group.expressions) != 1:
        return []
    grouped = group.expressions[0]
    if not isinstance(grouped, exp.Column) or select.find(exp.AggFunc) is None:
        return []
    table = q.table_of(grouped)
    if table is None:
        return []
    key = _single_key(q, table)
    if key is None or key.lower() == grouped.name.lower() or not _on_one_side(q, table):
        return []
    if _grouping_named(q.ctx.question, grouped.name):
        return []  # 'for each airport name': the question groups by the name itself
    counts = q.probe(exp.select(exp.Count(this=exp.Star()),
                                exp.Count(this=exp.Distinct(expressions=[exp.column(grouped.name, quoted=True)])))
                     .from_(exp.to_table(table.name, quoted=True)), NAME)
    if not counts or not counts[0][0]:
        return []
    rows, distinct = int(counts[0][0]), int(counts[0][1] or 0)
    if distinct >= rows or distinct < NAME_LIKE_SHARE * rows:
        return []  # unique (grouping by it is grouping by the entity) or a category
    rewrite = select.copy()
    rewrite.args["group"].append("expressions", exp.column(key, table=grouped.table))
    sql = rewrite.sql(dialect=q.ctx.db.dialect)
    return [Finding(
        NAME,
        f"the rows are grouped by {table.name}.{grouped.name}, whose values repeat ({distinct} distinct in {rows} "
        f"rows), so different {table.name} rows with the same {grouped.name} merge into one group",
        f"{table.name}.{grouped.name} does not identify a {table.name} row ({distinct} distinct values in {rows} "
        f"rows): group by {table.name}.{key} as well, keeping {grouped.name} in the output.", rewrite=sql)]


def _grouping_named(question: str, column: str) -> bool:
    """Whether the question says 'each / per / by …' followed within three words by the column's last word."""
    last = re.findall(r"[a-z]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", column).lower())[-1:]
    if not last:
        return False
    pattern = rf"\b(each|every|per|by)\s+(\w+\s+){{0,2}}{re.escape(last[0])}s?\b"
    return re.search(pattern, question, re.IGNORECASE) is not None


def _single_key(q: QueryView, table: Table) -> str | None:
    key = primary_key(q, table)
    return key[0] if len(key) == 1 else None


def _on_one_side(q: QueryView, table: Table) -> bool:
    """Whether another table of the query refers to `table` through the join graph (its rows are what the
    aggregate runs over, and `table` is the entity they are grouped by)."""
    catalog = q.ctx.catalog
    if catalog is None:
        return False
    others = {t.name.lower() for alias, t in q.sources.items() if t.name.lower() != table.name.lower()}
    return any(rel.ref_table.lower() == table.name.lower() and rel.table.lower() in others
               for rel in catalog.join_graph.edges(table.name))
