"""Rule 7, dialect: a query written for another engine, transpiled by sqlglot.

It fires on three kinds of engine error: sqlglot cannot parse the query for the target; the engine (or the
guard's allow-list) names a function the query calls; or the engine reports a syntax error in a query that
sqlglot reads leniently (PostgreSQL's `::` cast or `ILIKE` on SQLite or MariaDB, `||` on MariaDB).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.tokens import TokenType

from groundsql.db.guard import MYSQL_PIPES_REFUSAL
from groundsql.sql.repairs.base import RepairFacts, parse_query
from groundsql.sql.repairs.dates import julianday_to_epoch_days

#: Dialects tried, in order, when a query seems written for another engine.
OTHER_DIALECTS = ("sqlite", "postgres", "mysql", "duckdb", "tsql", "bigquery", "snowflake", "oracle")

#: How engines word a syntax error (lower case): "syntax error" (SQLite, PostgreSQL, DuckDB, Spark), SQLite's
#: "unrecognized token", MariaDB/MySQL's "error in your SQL syntax", DuckDB's "Parser Error", Spark's error class,
#: and the guard's refusal of `||` on MariaDB/MySQL.
SYNTAX_ERROR_MARKERS = ("syntax error", "unrecognized token", "error in your sql syntax", "parser error",
                        "parse_syntax_error", MYSQL_PIPES_REFUSAL.lower())

#: Words next to which engines name a function they do not have (Spark says "routine").
FUNCTION_WORDS = ("function", "routine")


def is_dialect_error(sql: str, tree: exp.Expression | None, error: str, dialect: str) -> bool:
    """Whether an engine error may come from another dialect's syntax: the query does not parse for the target,
    a function it calls is unknown to the engine, or the engine reports a syntax error."""
    return tree is None or bool(_unknown_functions(sql, tree, error, dialect)) or is_syntax_error(error)


def is_syntax_error(error: str) -> bool:
    lowered = error.lower()
    return any(marker in lowered for marker in SYNTAX_ERROR_MARKERS)


def transpile_dialect(sql: str, facts: RepairFacts) -> tuple[str, str] | None:
    """(source dialect, SQL for the target) for a query written in another dialect.

    The rewrite must parse for the target and remove what the engine complained about: a query that did not
    parse, a function the error names (no longer called), or a syntax error (the SQL text changes). The
    transpilation must be exact: a construct sqlglot cannot express in the target is not a repair.
    """
    target = facts.dialect
    error = facts.error or ""
    tree = parse_query(sql, target)
    unknown = _unknown_functions(sql, tree, error, target) if tree is not None else set()
    syntax = is_syntax_error(error)
    if tree is not None and not unknown and not syntax:
        return None
    for source in OTHER_DIALECTS:
        if source == target:
            continue
        after = _transpile(sql, source, target)
        if after is None or parse_query(after, target) is None or _same_text(after, sql):
            continue
        if (unknown and _called_names(after, target) & unknown
                and (target == "sqlite" or not _calls_changed(tree, parse_query(after, target), unknown, target))):
            continue
        return source, after
    return None


def _transpile(sql: str, source: str, target: str) -> str | None:
    """`sql` read as `source`, written for `target` (SQLite's JULIANDAY as the target's epoch days); None when
    sqlglot cannot carry it exactly."""
    try:
        trees = sqlglot.parse(sql, read=source)
        if len(trees) != 1 or trees[0] is None:
            return None
        tree = trees[0]
        if source == "sqlite":
            julianday_to_epoch_days(tree, target)
        return tree.sql(dialect=target, unsupported_level=ErrorLevel.RAISE)
    except (SqlglotError, ValueError, KeyError):
        return None


def _calls_changed(before: exp.Expression | None, after: exp.Expression | None, names: set[str],
                   dialect: str) -> bool:
    """Whether the calls of the functions the engine refused are gone or called otherwise (DuckDB has a
    STRFTIME, but with its arguments the other way round from SQLite's)."""
    if after is None or before is None:
        return False
    return _calls(before, names, dialect) != _calls(after, names, dialect)


def _calls(tree: exp.Expression, names: set[str], dialect: str) -> set[str]:
    """The calls of `names` in `tree`, as the engine would read them (sqlglot may name a node otherwise)."""
    calls = set()
    for func in tree.find_all(exp.Func):
        text = func.sql(dialect=dialect)
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(text)
        if len(tokens) > 1 and tokens[0].text.lower() in names and tokens[1].token_type == TokenType.L_PAREN:
            calls.add(text.lower())
    return calls


def _unknown_functions(sql: str, tree: exp.Expression, error: str, dialect: str) -> set[str]:
    """Function names of the query, as parsed or as written, that the engine error mentions next to 'function'
    (sqlglot may parse a name as another function: IFNULL is COALESCE)."""
    lowered = error.lower()
    if not any(word in lowered for word in FUNCTION_WORDS):
        return set()
    words = set("".join(ch if ch.isalnum() or ch == "_" else " " for ch in lowered).split())
    return (_function_names(tree) | _called_names(sql, dialect)) & words


def _function_names(tree: exp.Expression) -> set[str]:
    names = set()
    for func in tree.find_all(exp.Func):
        names.add((func.name if isinstance(func, exp.Anonymous) else func.sql_name()).lower())
    return names


def _called_names(sql: str, dialect: str) -> set[str]:
    """Names the SQL text calls (a word right before an opening parenthesis), as written."""
    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(sql)
    except (SqlglotError, ValueError):
        return set()
    return {token.text.lower() for token, following in zip(tokens, tokens[1:])
            if following.token_type == TokenType.L_PAREN and token.text[:1].isalpha()}


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).rstrip(";").lower() == " ".join(b.split()).rstrip(";").lower()
