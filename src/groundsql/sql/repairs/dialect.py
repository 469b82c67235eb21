"""Rule 7, dialect: a query written for another engine, transpiled by sqlglot."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.sql.repairs.base import RepairFacts, parse_query

#: Dialects tried, in order, when a query seems written for another engine.
OTHER_DIALECTS = ("sqlite", "postgres", "mysql", "duckdb", "tsql", "bigquery", "snowflake", "oracle")


def transpile_dialect(sql: str, facts: RepairFacts) -> tuple[str, str] | None:
    """(source dialect, SQL for the target) for a query written in another dialect: it must not parse for the
    target, or it must call a function the engine's error names that the rewrite no longer calls."""
    target = facts.dialect
    tree = parse_query(sql, target)
    unknown = _unknown_functions(tree, facts.error or "") if tree is not None else set()
    if tree is not None and not unknown:
        return None
    for source in OTHER_DIALECTS:
        if source == target:
            continue
        try:
            translated = sqlglot.transpile(sql, read=source, write=target)
        except (SqlglotError, ValueError, KeyError):
            continue
        if len(translated) != 1:
            continue
        after = translated[0]
        reparsed = parse_query(after, target)
        if reparsed is None or (tree is not None and after == tree.sql(dialect=target)):
            continue
        if unknown and _function_names(reparsed) & unknown:
            continue
        return source, after
    return None


def names_unknown_function(tree: exp.Expression, error: str) -> bool:
    return bool(_unknown_functions(tree, error))


def _unknown_functions(tree: exp.Expression, error: str) -> set[str]:
    """Function names of the query that the engine error mentions next to 'function'."""
    lowered = error.lower()
    if "function" not in lowered:
        return set()
    words = set("".join(ch if ch.isalnum() or ch == "_" else " " for ch in lowered).split())
    return _function_names(tree) & words


def _function_names(tree: exp.Expression) -> set[str]:
    names = set()
    for func in tree.find_all(exp.Func):
        names.add((func.name if isinstance(func, exp.Anonymous) else func.sql_name()).lower())
    return names
