"""Gold SQL written for SQLite, rewritten with sqlglot for the copy of its database in another engine.

Four SQLite habits are made explicit before transpiling: a double-quoted word that names no table or column is
a string literal (SQLite's fallback; Spider's gold uses it often), LIKE ignores ASCII case (it becomes ILIKE, or
LOWER(…) LIKE LOWER(…) where the engine has no ILIKE), an integer divided by an integer truncates (given the
original's declared types), and names are case-insensitive (copies keep every table and column name in lower
case, so every identifier is lower-cased).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from groundsql.catalog.schema import Schema
from groundsql.errors import GroundsqlError
from groundsql.sql.catalog_case import to_catalog_case
from groundsql.sql.sqlite_flavour import integer_division

#: SQLite functions sqlglot passes through by name although no other engine has them.
SQLITE_ONLY_FUNCTIONS = frozenset({"julianday", "typeof", "printf", "zeroblob", "randomblob", "sqlite_version",
                                   "likelihood", "unlikely", "total_changes", "last_insert_rowid"})


class GoldNotTranspilable(GroundsqlError):
    """sqlglot cannot carry a gold query into the target dialect."""


def transpile_gold(sql: str, dialect: str, names: set[str] | frozenset[str] = frozenset(),
                   schema: Schema | None = None) -> str:
    """Rewrite SQLite `sql` for `dialect`.

    Args:
        sql: the gold query, as SQLite reads it.
        dialect: the sqlglot dialect of the copy (postgres, mysql, duckdb, spark).
        names: the database's table and column names, lower case (to tell identifiers from string literals).
        schema: the SQLite original's structure (the copy keeps its names); with it, a division of two integers
            stays an integer division on engines whose `/` does not truncate (DuckDB, MySQL, Spark), and names are
            written in the catalog's case where the engine would not match them otherwise (PostgreSQL, MariaDB).

    Returns:
        The query in the target dialect.

    Raises:
        GoldNotTranspilable: the query does not parse as SQLite, or uses something the target lacks.
    """
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except SqlglotError as exc:
        raise GoldNotTranspilable(f"cannot parse as SQLite: {str(exc).splitlines()[0]}") from None
    if dialect != "sqlite":
        for node in tree.find_all(exp.Anonymous, exp.Glob):
            name = "glob" if isinstance(node, exp.Glob) else node.name.lower()
            if name in SQLITE_ONLY_FUNCTIONS or name == "glob":
                raise GoldNotTranspilable(f"{name.upper()} exists only in SQLite")
    aliases = {a.alias.lower() for a in tree.find_all(exp.Alias, exp.TableAlias) if a.alias}
    aliases |= {t.alias.lower() for t in tree.find_all(exp.Table) if t.alias}
    known = {n.lower() for n in names} | aliases
    for column in list(tree.find_all(exp.Column)):
        identifier = column.this
        if (isinstance(identifier, exp.Identifier) and identifier.quoted and not column.table
                and identifier.name.lower() not in known):
            column.replace(exp.Literal.string(identifier.name))
    if dialect != "sqlite" and schema is not None:
        integer_division(tree, schema, dialect)
    if dialect != "sqlite":
        for like in list(tree.find_all(exp.Like)):
            like.replace(exp.ILike(**like.args))
    if dialect != "sqlite" and schema is not None:
        to_catalog_case(tree, schema, dialect)
    try:
        return tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as exc:
        raise GoldNotTranspilable(f"not expressible in {dialect}: {str(exc).splitlines()[0]}") from None
