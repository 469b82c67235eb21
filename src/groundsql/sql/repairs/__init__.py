"""Exact repairs of a failing query on its syntax tree: each rule fixes one kind of slip, only on clear evidence.

Every rule takes a tree it may rewrite in place and the facts about the database, and returns what it changed
(nothing when its evidence is not unambiguous) plus hints for a model repair when it saw a problem it would not
guess at. `plan_repairs` runs them in order; `generation.tree_repair` executes the result. One module per rule.

Besides a model's slips, the rules state SQLite's leniency where a stricter engine refuses it (bare columns
beside GROUP BY, text compared with numbers, scalar subqueries with several rows, SQLite's date functions,
LIKE ignoring case), so that a query means on every engine what it means on SQLite.
"""

from __future__ import annotations

import logging

from sqlglot.errors import SqlglotError

from groundsql.sql.repairs.aggregates import aggregates_to_having
from groundsql.sql.repairs.ambiguous import qualify_ambiguous
from groundsql.sql.repairs.bare import aggregate_bare_columns
from groundsql.sql.repairs.base import RepairFacts, RepairPlan, Rule, RuleOutcome, TreeFix, parse_query
from groundsql.sql.repairs.case import like_ignoring_case
from groundsql.sql.repairs.dates import julianday_to_epoch_days
from groundsql.sql.repairs.dialect import is_dialect_error, transpile_dialect
from groundsql.sql.repairs.grouping import group_dependent_columns, is_grouping_error
from groundsql.sql.repairs.joins import add_missing_joins, reroute_joins, shortest_paths, unique_shortest_path
from groundsql.sql.repairs.literals import fold_value, snap_literals
from groundsql.sql.repairs.name_case import catalog_case_names
from groundsql.sql.repairs.qualifier import requalify
from groundsql.sql.repairs.spelling import name_key, respell_columns, respell_tables
from groundsql.sql.repairs.subquery import limit_scalar_subqueries
from groundsql.sql.repairs.types import compare_as_sqlite

log = logging.getLogger("groundsql")

#: The rules for a query that failed, in the order they run (dialect runs first, on the text).
RULES: list[tuple[str, Rule]] = [
    ("name case", catalog_case_names),
    ("spelling", respell_tables),
    ("qualifier", requalify),
    ("spelling", respell_columns),
    ("join", reroute_joins),
    ("join", add_missing_joins),
    ("ambiguous", qualify_ambiguous),
    ("aggregate", aggregates_to_having),
    ("grouping", group_dependent_columns),
    ("bare", aggregate_bare_columns),
    ("types", compare_as_sqlite),
    ("subquery", limit_scalar_subqueries),
]

#: The rules for a query that ran but returned no rows.
EMPTY_RULES: list[tuple[str, Rule]] = [
    ("name case", catalog_case_names),
    ("literal", snap_literals),
    ("case", like_ignoring_case),
]


def plan_repairs(sql: str, facts: RepairFacts) -> RepairPlan:
    """Apply every rule whose evidence holds, in order; a query that ran with rows is never touched."""
    plan = RepairPlan(sql=sql)
    if facts.error is None and not facts.empty:
        return plan
    tree = parse_query(sql, facts.dialect)
    if facts.error is not None and is_dialect_error(sql, tree, facts.error, facts.dialect):
        translated = transpile_dialect(sql, facts)
        if translated is not None:
            source, after = translated
            plan.fixes.append(TreeFix("dialect", sql, after, f"read as {source} SQL, written for {facts.dialect}"))
            tree = parse_query(after, facts.dialect)
    if tree is None:
        return plan
    rules: list[tuple[str, Rule]] = RULES if facts.error is not None else EMPTY_RULES
    current = plan.fixes[-1].after if plan.fixes else sql
    for name, rule in rules:
        work = tree.copy()
        try:
            outcome = rule(work, facts)
        except (SqlglotError, ValueError, KeyError, AttributeError, TypeError) as exc:
            log.debug("tree repair rule %s skipped: %s", name, exc)
            continue  # a construct a rule does not understand is left alone
        plan.hints.extend(h for h in outcome.hints if h not in plan.hints)
        if outcome.changes:
            after = work.sql(dialect=facts.dialect)
            plan.fixes.append(TreeFix(name, current, after, "; ".join(outcome.changes)))
            tree, current = work, after
    plan.sql = current
    return plan


__all__ = [
    "EMPTY_RULES", "RULES", "RepairFacts", "RepairPlan", "Rule", "RuleOutcome", "TreeFix", "add_missing_joins",
    "aggregate_bare_columns", "aggregates_to_having", "catalog_case_names", "compare_as_sqlite", "fold_value", "group_dependent_columns",
    "julianday_to_epoch_days", "like_ignoring_case", "limit_scalar_subqueries", "is_grouping_error", "name_key", "plan_repairs", "qualify_ambiguous", "requalify", "reroute_joins", "respell_columns",
    "respell_tables", "shortest_paths", "snap_literals", "transpile_dialect", "unique_shortest_path",
]
