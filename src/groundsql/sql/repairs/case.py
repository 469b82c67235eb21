"""Rule 11, LIKE case: on an empty result, a LIKE on an engine where it keeps case ignores case, as SQLite's does.

SQLite's LIKE ignores ASCII case; PostgreSQL's, DuckDB's and Spark's keep it, so a pattern written in another
case than the stored values finds nothing there. The rewrite is ILIKE (sqlglot writes `LOWER(…) LIKE LOWER(…)`
where the engine has no ILIKE). String equality keeps case in SQLite too, and is left alone.
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.repairs.base import RepairFacts, RuleOutcome

#: Engines whose LIKE may keep case (MariaDB's follows the column's collation: a binary one keeps it, and there
#: the rewrite is `LOWER(…) LIKE LOWER(…)`).
CASE_KEEPING_LIKE = ("postgres", "duckdb", "spark", "mysql")


def like_ignoring_case(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """LIKE with a pattern holding letters → ILIKE; only on an empty result, on an engine whose LIKE keeps case."""
    outcome = RuleOutcome()
    if not facts.empty or facts.dialect not in CASE_KEEPING_LIKE:
        return outcome
    for like in list(tree.find_all(exp.Like)):
        pattern = like.expression
        if not (isinstance(pattern, exp.Literal) and pattern.is_string and any(c.isalpha() for c in pattern.this)):
            continue
        outcome.changes.append(f"{like.sql(dialect=facts.dialect)} → ignoring case, as SQLite's LIKE does")
        like.replace(exp.ILike(**{k: v.copy() for k, v in like.args.items() if v is not None}))
    return outcome
