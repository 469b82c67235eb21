"""Spark's own guard rules, without a session: `${` substitution, comments removed before Spark reads the
statement, and values whose size the statement computes."""

from __future__ import annotations

import pytest

from groundsql.db.guard import check_statement
from groundsql.db.spark_guard import (
    SPARK_MAX_VALUE_SIZE,
    check_spark_text,
    check_spark_tree,
    executable_sql,
)
from groundsql.errors import RefusedStatement

pytestmark = pytest.mark.unit

#: `${…}` wherever it stands: strings, names, comments, hints; every prefix Spark substitutes; case, spacing,
#: nesting and escapes.
SUBSTITUTIONS = [
    "SELECT '${env:HOME}'",
    "SELECT \"${env:GROUNDSQL_CANARY_ENV}\"",
    "SELECT '${system:user.home}' AS h",
    "SELECT '${SYSTEM:java.class.path}'",
    "SELECT '${hiveconf:spark.groundsql.canary}'",
    "SELECT '${spark.groundsql.canary}'",
    "SELECT '${sparkconf:spark.app.name}'",
    "SELECT '${hivevar:x}'",
    "SELECT ${system:user.name}",
    "SELECT `${system:user.home}` FROM orders",
    "SELECT 1 AS `${env:HOME}`",
    "SELECT 1 -- ${system:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret",
    "SELECT 1 /* ${system:line.separator} */",
    "SELECT 1 --${system:line.separator}UNION ALL SELECT 2",
    "SELECT '$' || '${env:HOME}'",
    "SELECT '$${env:HOME}'",
    "SELECT '${${env:X}}'",
    "SELECT '\\${env:HOME}'",
    "SELECT /*+ COALESCE(${x}) */ 1",
    "select '${ env:HOME }'",
    "SELECT 1\n-- trailing ${system:line.separator}",
]


@pytest.mark.parametrize("sql", SUBSTITUTIONS)
def test_dollar_brace_is_refused_wherever_it_stands(sql: str) -> None:
    with pytest.raises(RefusedStatement, match=r"'\$\{' is not allowed on Spark"):
        check_spark_text(sql)


@pytest.mark.parametrize("sql", ["SELECT '$' || '{env:HOME}'", "SELECT concat('$', '{x}')", "SELECT '$ {x}'",
                                 "SELECT 'price in $' AS unit", "SELECT '{a}' AS braces"])
def test_dollar_and_brace_apart_are_fine(sql: str) -> None:
    check_spark_text(sql)


@pytest.mark.parametrize(("sql", "runs"), [
    ("SELECT 1 -- a comment", "SELECT 1"),
    ("/* top */ SELECT 1", " SELECT 1"),
    ("SELECT 1 -- x\rUNION ALL SELECT 2", "SELECT 1 UNION ALL SELECT 2"),
    ("SELECT 1 -- x \\\nUNION ALL SELECT 2", "SELECT 1 UNION ALL SELECT 2"),
    ("SELECT 1 -- x\u2028UNION ALL SELECT 2", "SELECT 1"),
    ("SELECT 1 /* a /* b */ c */", "SELECT 1"),
    ("SELECT 'a -- b', \"/* c */\" FROM t", "SELECT 'a -- b', \"/* c */\" FROM t"),
    ("SELECT /*+ BROADCAST(t) */ a FROM t /* c */", "SELECT /*+ BROADCAST(t) */ a FROM t"),
    ("SELECT a\n  FROM t\n WHERE b = 'x';", "SELECT a\n  FROM t\n WHERE b = 'x';"),
    ("EXPLAIN SELECT a FROM t -- x\rUNION ALL SELECT 2", "EXPLAIN  SELECT a FROM t UNION ALL SELECT 2"),
    ("/* c */ EXPLAIN /* d */ SELECT 1", " EXPLAIN  SELECT 1"),
])
def test_spark_runs_the_statement_without_its_comments(sql: str, runs: str) -> None:
    """Spark ends `--` at `\\r`, continues it after a backslash, and sqlglot reads other line ends: whatever
    sqlglot read as a comment is gone, so Spark reads exactly the tokens the guard read."""
    assert executable_sql(sql) == runs


@pytest.mark.parametrize("sql", ["SELECT /*+ COALESCE('x') */ 1", "SELECT /*+ BROADCAST(t) -- x */ a FROM t",
                                 "SELECT /*+ REPARTITION(1) /* x */ a FROM t",
                                 "SELECT /*+ COALESCE('*/ 1 AS x --') */ 1"])
def test_hints_holding_quotes_or_comments_are_refused(sql: str) -> None:
    with pytest.raises(RefusedStatement, match="hint"):
        check_spark_text(sql)


def _tree(sql: str) -> None:
    check_spark_tree(check_statement(sql, "spark"))


@pytest.mark.parametrize(("sql", "named"), [
    ("SELECT length(lpad('a', CAST('1000000000' AS INT), 'b'))", "lpad() with a length computed"),
    ("SELECT repeat('a', id) FROM range(1000000000, 1000000001)", "repeat() with a length computed"),
    ("SELECT rpad(name, length(name) * 1000, 'x') FROM orders", "rpad() with a length computed"),
    ("SELECT space(id) FROM range(3)", "space() with a length computed"),
    ("SELECT array_repeat('x', id) FROM range(3)", "array_repeat() with a length computed"),
    ("SELECT size(sequence(1, id)) FROM range(3)", "sequence() with bounds computed"),
    ("SELECT sequence(DATE'2024-01-01', DATE'2024-02-01', INTERVAL 1 SECOND)", "sequence() with bounds"),
    ("SELECT size(collect_list(repeat('x', 1000000))) FROM range(5000)", "1,000,000"),
    ("SELECT repeat('x', 100001)", "100,001"),
    ("SELECT array_repeat(1, 1000 * 1000)", "1,000,000"),
    ("SELECT sequence(0, 1000000000)", "1,000,000,001"),
    ("SELECT repeat('#', least(id, 1000000)) FROM range(3)", "1,000,000"),
])
def test_values_of_computed_or_huge_size_are_refused(sql: str, named: str) -> None:
    with pytest.raises(RefusedStatement, match=named.replace("(", r"\(").replace(")", r"\)")):
        _tree(sql)


@pytest.mark.parametrize("sql", [
    "SELECT lpad(CAST(id AS STRING), 5, '0') FROM range(3)",
    "SELECT repeat('#', least(id, 50)) FROM range(3)",
    f"SELECT repeat('-', {SPARK_MAX_VALUE_SIZE})",
    "SELECT explode(sequence(1, 12))",
    "SELECT sequence(10, 0, -2)",
    "SELECT sequence(DATE'2024-01-01', DATE'2024-12-31', INTERVAL 1 DAY)",
    "SELECT sequence(to_date('2024-01-01'), to_date('2024-06-01'), INTERVAL 1 MONTH)",
    "SELECT array_repeat('x', 3)",
    "SELECT collect_list(id), concat(id, id) FROM range(3)",
])
def test_bounded_values_pass(sql: str) -> None:
    _tree(sql)


def _doubling_chain(steps: int) -> str:
    ctes = ["t0 AS (SELECT 'x' AS s)"] + [f"t{i} AS (SELECT concat(s, s) AS s FROM t{i - 1})"
                                          for i in range(1, steps + 1)]
    return f"WITH {', '.join(ctes)} SELECT length(s) FROM t{steps}"


@pytest.mark.parametrize(("sql", "named"), [
    (_doubling_chain(20), "inlines the CTEs"),
    ("SELECT length(s) FROM " + "(SELECT s || s AS s FROM " * 16 + "(SELECT 'x' AS s) t" + ") t" * 16,
     "inlines the CTEs"),
    ("WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT concat(s, s), n + 1 FROM r WHERE n < 40) "
     "SELECT max(length(s)) FROM r", "grows a value from itself"),
    ("WITH RECURSIVE r(s, n) AS (SELECT repeat('x', 1000), 0 UNION ALL SELECT repeat(r.s, 2), n + 1 FROM r "
     "WHERE n < 40) SELECT max(length(s)) FROM r", "grows a value from itself"),
])
def test_expressions_that_double_are_refused(sql: str, named: str) -> None:
    with pytest.raises(RefusedStatement, match=named):
        _tree(sql)


@pytest.mark.parametrize("sql", [
    _doubling_chain(6),
    "WITH RECURSIVE nums(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM nums WHERE n < 12) SELECT n FROM nums",
    "WITH RECURSIVE r(s, n) AS (SELECT 'x', 0 UNION ALL SELECT concat(s, '-'), n + 1 FROM r WHERE n < 10) "
    "SELECT s FROM r",
    "WITH a AS (SELECT id, id * 2 AS d FROM range(3)), b AS (SELECT d + d + d AS e FROM a) SELECT e * e FROM b",
])
def test_ordinary_ctes_pass(sql: str) -> None:
    _tree(sql)
