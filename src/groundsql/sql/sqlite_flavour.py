"""SQLite-flavoured SQL, carried to another engine with SQLite's meaning kept.

The model can write the SQL it writes best, SQLite's, for any engine (`model_dialect=sqlite`); this module
rewrites it for the engine. sqlglot does the syntax (STRFTIME, `||`, NULLS FIRST where the engine sorts NULLs
last); the semantics sqlglot leaves alone are made explicit on the tree first:

- names in the catalog's own case where the engine would not match them otherwise (`sql.catalog_case`: SQLite
  matches names whatever their case, PostgreSQL folds unquoted ones, MariaDB compares table names exactly);
- a double-quoted word that names nothing is a string (SQLite's fallback);
- LIKE ignores case (ILIKE, or `LOWER(…) LIKE LOWER(…)` on MariaDB/MySQL, whatever the column's collation);
- an integer divided by an integer truncates (DuckDB's `//`, MySQL's and Spark's `DIV`; PostgreSQL's `/` does);
- JULIANDAY as the engine's epoch days (`repairs.dates`);
- SQLite's leniency a stricter engine would refuse, written out by the tree repair's own rules before the query
  first runs (`sqlite_leniency`): columns the GROUP BY determines join it, other bare columns beside it take the
  value SQLite picks, text compared with a number is compared as SQLite's affinity reads it, and a scalar
  subquery answers with its first row. Each states SQLite's reading: where the engine already reads a query
  as SQLite does, it changes no answer.
"""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from groundsql.catalog.schema import Schema
from groundsql.sql.catalog_case import to_catalog_case
from groundsql.sql.repairs.bare import sqlite_bare_columns
from groundsql.sql.repairs.base import type_kind
from groundsql.sql.repairs.dates import julianday_to_epoch_days
from groundsql.sql.repairs.grouping import group_determined_columns
from groundsql.sql.repairs.subquery import first_rows
from groundsql.sql.repairs.types import sqlite_comparisons
from groundsql.sql.resolve import resolve

log = logging.getLogger("groundsql")

#: Engines whose `/` between integers does not truncate.
_REAL_DIVISION = ("duckdb", "mysql", "spark")


def from_sqlite(sql: str, dialect: str, schema: Schema | None = None) -> str:
    """`sql` read as SQLite, written for `dialect` with SQLite's meaning.

    Args:
        sql: one query as SQLite reads it.
        dialect: the sqlglot dialect of the engine.
        schema: the database's structure (names and declared types); without it, names are kept as written and
            no division is known to be between integers.

    Returns:
        The query for the engine; `sql` unchanged when the engine is SQLite or sqlglot cannot read or carry it
        exactly (the engine's own error then says what is wrong).
    """
    if dialect == "sqlite" or not sql:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (SqlglotError, ValueError):
        return sql
    if not isinstance(tree, exp.Query):
        return sql
    if schema is not None:
        _strings_for_unknown_quoted_names(tree, schema)
        integer_division(tree, schema, dialect)
        tree = sqlite_leniency(tree, schema, dialect)
        to_catalog_case(tree, schema, dialect)
    for like in list(tree.find_all(exp.Like)):
        like.replace(exp.ILike(**{k: v.copy() for k, v in like.args.items() if v is not None}))
    julianday_to_epoch_days(tree, dialect)
    try:
        return tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE)
    except (SqlglotError, ValueError) as exc:
        log.debug("SQLite query kept as written for %s: %s", dialect, exc)
        return sql


def sqlite_leniency(tree: exp.Expression, schema: Schema, dialect: str) -> exp.Expression:
    """`tree` (read as SQLite) with what SQLite lets pass and `dialect` refuses written out with SQLite's meaning,
    by the tree repair's rules in their order (grouping, bare columns, comparisons, scalar subqueries); a step
    that cannot read a construct leaves the tree as the previous step left it."""
    if dialect == "sqlite":
        return tree
    steps = (lambda t: group_determined_columns(t, schema, dialect), lambda t: sqlite_bare_columns(t, schema, dialect),
             lambda t: sqlite_comparisons(t, schema, dialect), lambda t: first_rows(t, dialect))
    for step in steps:
        work = tree.copy()
        try:
            changed = step(work)
        except (SqlglotError, ValueError, KeyError, AttributeError, TypeError) as exc:
            log.debug("SQLite leniency step skipped: %s", exc)
            continue
        if changed:
            tree = work
    return tree


def _strings_for_unknown_quoted_names(tree: exp.Expression, schema: Schema) -> None:
    known = {t.name.lower() for t in schema.tables} | {c.name.lower() for t in schema.tables for c in t.columns}
    known |= {a.alias.lower() for a in tree.find_all(exp.Alias, exp.TableAlias) if a.alias}
    known |= {t.alias.lower() for t in tree.find_all(exp.Table) if t.alias}
    for column in list(tree.find_all(exp.Column)):
        identifier = column.this
        if (isinstance(identifier, exp.Identifier) and identifier.quoted and not column.table
                and identifier.name.lower() not in known):
            column.replace(exp.Literal.string(identifier.name))


def integer_division(tree: exp.Expression, schema: Schema, dialect: str) -> None:
    """Each division of two integers (declared types, integer literals, COUNT…) in a SQLite tree → the engine's
    truncating division, where its `/` would not truncate (DuckDB, MySQL/MariaDB, Spark)."""
    if dialect not in _REAL_DIVISION:
        return
    resolution = resolve(tree, schema, "sqlite")
    if resolution is None:
        return
    integer_columns = set()
    for use in resolution.columns:
        if use.status == "ok" and use.source is not None and use.source.table is not None:
            declared = next((c.type for c in use.source.table.columns if c.name.lower() == use.name.lower()), "")
            if type_kind(declared) == "number" and "INT" in declared.upper():
                integer_columns.add(id(use.node))
    for division in list(tree.find_all(exp.Div)):
        if _integer(division.this, integer_columns) and _integer(division.expression, integer_columns):
            division.replace(exp.IntDiv(this=division.this.copy(), expression=division.expression.copy()))


def _integer(node: exp.Expression, integer_columns: set[int]) -> bool:
    """Whether SQLite computes `node` as an integer, as far as the tree and the declared types tell."""
    if isinstance(node, exp.Paren):
        return _integer(node.this, integer_columns)
    if isinstance(node, exp.Literal):
        return not node.is_string and node.this.lstrip("-").isdigit()
    if isinstance(node, exp.Column):
        return id(node) in integer_columns
    if isinstance(node, exp.Count):
        return True
    if isinstance(node, (exp.Sum, exp.Min, exp.Max, exp.Abs, exp.Neg)):
        return _integer(node.this, integer_columns)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)):
        return _integer(node.this, integer_columns) and _integer(node.expression, integer_columns)
    if isinstance(node, exp.Cast):
        return node.to.is_type(*exp.DataType.INTEGER_TYPES)
    return False
