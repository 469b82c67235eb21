"""Rule 8, bare columns: a column beside GROUP BY that the grouped keys do not determine is aggregated the way
SQLite picks its value.

SQLite answers such a column from one row of each group: the row of the query's one MIN or MAX when the query
has exactly one aggregate and it is MIN or MAX, else some row. PostgreSQL, DuckDB and Spark refuse the column.
After `grouping` has grouped what the keys determine, each remaining bare column becomes the value at that row
(ARG_MAX / MAX_BY / an ordered ARRAY_AGG) or, with no MIN or MAX to follow, ANY_VALUE (MIN where the engine
has no ANY_VALUE: any one value of the group is what SQLite promises).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from groundsql.catalog.schema import Schema
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome
from groundsql.sql.repairs.grouping import is_grouping_error
from groundsql.sql.resolve import resolve

#: Clauses evaluated after grouping, whose plain columns must be grouped or aggregated.
_AFTER_GROUPING = ("expressions", "having", "order")

#: Engines without ANY_VALUE (PostgreSQL before 16, MariaDB): MIN stands for "one value of the group".
_NO_ANY_VALUE = ("postgres", "mysql")


def aggregate_bare_columns(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """Wrap each ungrouped, unaggregated column of a grouped SELECT in the aggregate SQLite's reading implies."""
    if facts.dialect == "sqlite" or not is_grouping_error(facts.error):  # SQLite is the reading stated here
        return RuleOutcome()
    return RuleOutcome(changes=sqlite_bare_columns(tree, facts.schema, facts.dialect))


def sqlite_bare_columns(tree: exp.Expression, schema: Schema, dialect: str) -> list[str]:
    """Wrap, in place, each ungrouped and unaggregated column of a grouped SELECT in the aggregate SQLite's reading
    implies; the changes in words (also `sql.sqlite_flavour`'s step, after `grouping`, before any refusal)."""
    changes: list[str] = []
    resolution = resolve(tree, schema, dialect)
    if resolution is None:
        return changes
    for view in resolution.scopes:
        select = view.select
        group = select.args.get("group")
        if group is None or not group.expressions or any(isinstance(g, exp.Literal) for g in group.expressions):
            continue  # no grouping, or GROUP BY position: left alone
        grouped = _grouped_texts(select, group, dialect)
        grouped_keys = {(u.source.alias.lower(), u.name.lower()) for u in resolution.columns
                        if u.scope is view and u.source is not None and _clause(u.node, select) == "group"}
        aggregates = [a for a in select.find_all(exp.AggFunc) if a.find_ancestor(exp.Select) is select]
        follow = aggregates[0] if len(aggregates) == 1 and isinstance(aggregates[0], (exp.Max, exp.Min)) else None
        wrapped: list[str] = []
        for use in resolution.columns:
            node = use.node
            if (use.scope is not view or use.status != "ok" or use.source is None
                    or _clause(node, select) not in _AFTER_GROUPING or _aggregated(node, select)
                    or (use.source.alias.lower(), use.name.lower()) in grouped_keys
                    or _is_grouped(node, select, grouped, dialect)):
                continue
            wrapped.append(node.sql(dialect=dialect))
            aggregate = _aggregate(node.copy(), follow, dialect)
            if node.parent is select and node.arg_key == "expressions":  # the answer keeps its column name
                aggregate = exp.alias_(aggregate, exp.to_identifier(node.name, quoted=node.this.quoted))
            node.replace(aggregate)
        if wrapped:
            how = (f"the value at the row of {follow.sql(dialect=dialect)}" if follow is not None
                   else "one value of each group")
            changes.append(", ".join(dict.fromkeys(wrapped)) + f" → {how}, as SQLite picks it")
    return changes


def _aggregate(column: exp.Column, follow: exp.Max | exp.Min | None, dialect: str) -> exp.Expression:
    if follow is None:
        return exp.Min(this=column) if dialect in _NO_ANY_VALUE else exp.AnyValue(this=column)
    key = follow.this.copy()
    highest = isinstance(follow, exp.Max)
    if dialect == "postgres":
        order = "DESC" if highest else "ASC"
        text = (f"(ARRAY_AGG({column.sql(dialect=dialect)} ORDER BY {key.sql(dialect=dialect)} {order} "
                "NULLS LAST))[1]")
        return sqlglot.parse_one(text, read=dialect)
    if dialect == "mysql":  # no ARG_MAX: one value of the group
        return exp.Min(this=column)
    return (exp.ArgMax if highest else exp.ArgMin)(this=column, expression=key)


def _grouped_texts(select: exp.Select, group: exp.Group, dialect: str) -> set[str]:
    """The GROUP BY expressions as text (lower case), with a grouped output alias read as what it names."""
    aliases = {e.alias.lower(): e.this for e in select.expressions if isinstance(e, exp.Alias)}
    texts = set()
    for expression in group.expressions:
        if isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in aliases:
            expression = aliases[expression.name.lower()]
        texts.add(expression.sql(dialect=dialect).lower())
    return texts


def _is_grouped(node: exp.Column, select: exp.Select, grouped: set[str], dialect: str) -> bool:
    """The column, or an expression around it in its clause, is one of the GROUP BY expressions."""
    current: exp.Expression | None = node
    while current is not None and current is not select:
        if current.sql(dialect=dialect).lower() in grouped:
            return True
        current = current.parent
    return False


def _aggregated(node: exp.Expression, select: exp.Select) -> bool:
    parent = node.parent
    while parent is not None and parent is not select:
        if isinstance(parent, (exp.AggFunc, exp.Window)):
            return True
        parent = parent.parent
    return False


def _clause(node: exp.Expression, select: exp.Select) -> str | None:
    child = node
    while child.parent is not None and child.parent is not select:
        child = child.parent
    return child.arg_key if child.parent is select else None
