"""Rule 10, scalar subqueries: a subquery used as a value that returns several rows gets `LIMIT 1`.

SQLite takes a scalar subquery's first row and ignores the rest; PostgreSQL, DuckDB, MariaDB and Spark refuse
("more than one row returned by a subquery used as an expression"). `LIMIT 1` states SQLite's reading. A
subquery under IN, EXISTS, ANY/ALL or in FROM is a set, not a value, and is left alone, as is one that already
has a LIMIT or can only return one row (an aggregate without GROUP BY).
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, matches_error

#: How engines word it (lower case): PostgreSQL, DuckDB and Spark, MariaDB/MySQL, Spark's error class.
SUBQUERY_ERROR_MARKERS = ("more than one row returned by a subquery", "subquery returns more than 1 row",
                          "scalar_subquery_too_many_rows")

#: Parents under which a subquery is a set of rows, not a value.
_SET_PARENTS = (exp.In, exp.Exists, exp.Any, exp.All, exp.From, exp.Join, exp.Union, exp.Lateral)


def is_subquery_error(error: str | None) -> bool:
    return matches_error(error, SUBQUERY_ERROR_MARKERS)


def limit_scalar_subqueries(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """`LIMIT 1` on every scalar subquery that may return several rows; only on the engine's refusal."""
    if facts.dialect == "sqlite" or not is_subquery_error(facts.error):  # SQLite is the reading stated here
        return RuleOutcome()
    return RuleOutcome(changes=first_rows(tree, facts.dialect))


def first_rows(tree: exp.Expression, dialect: str) -> list[str]:
    """`LIMIT 1` in place on every scalar subquery that may return several rows; the changes in words (also
    `sql.sqlite_flavour`'s step, before any refusal: on one row it changes nothing)."""
    changes: list[str] = []
    for subquery in list(tree.find_all(exp.Subquery)):
        select = subquery.this
        if (isinstance(subquery.parent, _SET_PARENTS) or not isinstance(select, exp.Select)
                or select.args.get("limit") is not None or _one_row(select)):
            continue
        select.limit(1, copy=False)
        changes.append(f"({select.sql(dialect=dialect)}): its first row, as SQLite reads it")
    return changes


def _one_row(select: exp.Select) -> bool:
    """An aggregate query without GROUP BY returns exactly one row."""
    return select.args.get("group") is None and bool(select.expressions) and all(
        any(agg.find_ancestor(exp.Select) is select for agg in e.find_all(exp.AggFunc)) for e in select.expressions)
