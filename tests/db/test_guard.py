"""The guard refuses every statement class that is not a single read-only query."""

from __future__ import annotations

import pytest

from groundsql.db.guard import check_statement
from groundsql.errors import RefusedStatement

pytestmark = pytest.mark.unit

ALLOWED = [
    "SELECT 1",
    "select count(*) from singer;",
    "WITH t AS (SELECT 1 AS x) SELECT x FROM t",
    "SELECT a FROM t UNION SELECT b FROM u",
    "SELECT * FROM (SELECT 1) AS s",
    "EXPLAIN SELECT * FROM singer",
    "EXPLAIN QUERY PLAN SELECT * FROM singer",
    "SELECT name FROM singer WHERE name LIKE '%a%'",
]

REFUSED = {
    "insert": "INSERT INTO singer VALUES (1)",
    "update": "UPDATE singer SET name = 'x'",
    "delete": "DELETE FROM singer",
    "merge": "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
    "create": "CREATE TABLE x (a INT)",
    "create_as": "CREATE TABLE x AS SELECT 1",
    "drop": "DROP TABLE singer",
    "alter": "ALTER TABLE singer ADD COLUMN x INT",
    "truncate": "TRUNCATE TABLE singer",
    "attach": "ATTACH DATABASE 'other.db' AS other",
    "detach": "DETACH DATABASE other",
    "pragma": "PRAGMA writable_schema = 1",
    "vacuum": "VACUUM",
    "copy": "COPY singer TO '/tmp/out.csv'",
    "set": "SET search_path = public",
    "multiple": "SELECT 1; DROP TABLE singer",
    "two_selects": "SELECT 1; SELECT 2",
    "cte_write": "WITH d AS (DELETE FROM singer RETURNING *) SELECT * FROM d",
    "select_into": "SELECT * INTO backup FROM singer",
    "for_update": "SELECT * FROM singer FOR UPDATE",
    "load_extension": "SELECT load_extension('evil.so')",
    "readfile": "SELECT readfile('/etc/passwd')",
    "read_csv": "SELECT * FROM read_csv('/etc/passwd')",
    "pg_read_file": "SELECT pg_read_file('/etc/passwd')",
    "pg_sleep": "SELECT pg_sleep(100)",
    "explain_analyze": "EXPLAIN ANALYZE DELETE FROM singer",
    "empty": "  ;  ",
    "garbage": "SELEC name FORM singer",
}


@pytest.mark.parametrize("sql", ALLOWED)
def test_allows_read_only_queries(sql: str) -> None:
    assert check_statement(sql, "sqlite") is not None


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refuses_every_forbidden_class(name: str) -> None:
    with pytest.raises(RefusedStatement):
        check_statement(REFUSED[name], "postgres" if name in {"merge", "set", "select_into", "for_update",
                                                               "pg_read_file", "pg_sleep", "truncate"} else "sqlite")


@pytest.mark.parametrize("sql", ["SELECT * FROM 'data.csv'", "SELECT * FROM read_parquet('x.parquet')",
                                 "INSTALL httpfs", "LOAD httpfs"])
def test_duckdb_file_access_refused(sql: str) -> None:
    with pytest.raises(RefusedStatement):
        check_statement(sql, "duckdb")


def test_mysql_side_effect_functions() -> None:
    for sql in ["SELECT load_file('/etc/passwd')", "SELECT sleep(10)", "SELECT 1 INTO OUTFILE '/tmp/x'"]:
        with pytest.raises(RefusedStatement):
            check_statement(sql, "mysql")


# -- scope, function allow-list, executable comments (issue 21) -------------------------------------

from groundsql.db.guard import Scope  # noqa: E402
from groundsql.errors import UnknownRelation  # noqa: E402

PG = Scope(frozenset({("public", "orders")}), "public", "shop")
MY = Scope(frozenset({("shop", "orders")}), "shop", "shop")


@pytest.mark.parametrize("sql", [
    "SELECT rolname, rolpassword FROM pg_authid", "SELECT * FROM pg_catalog.pg_settings",
    "SELECT query FROM pg_stat_activity", "SELECT * FROM information_schema.tables",
    "WITH pg_authid AS (SELECT * FROM pg_authid) SELECT * FROM pg_authid", "SELECT * FROM other.public.orders",
    "SELECT pg_stat_reset()", "SELECT id, pg_stat_reset() FROM orders", "SELECT pg_promote()",
    "SELECT current_setting('data_directory')", "SELECT * FROM pg_ls_waldir()", "SELECT * FROM secret_schema.t",
])
def test_postgres_scope_and_functions_refused(sql: str) -> None:
    with pytest.raises(RefusedStatement):
        check_statement(sql, "postgres", scope=PG)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM mysql.user", "SELECT v FROM otherdb.secret", "SELECT id FROM orders UNION SELECT v FROM otherdb.s",
    "SELECT info FROM information_schema.processlist", "SELECT @@datadir", "SELECT @a := 1",
    "SELECT /*!50000 (SELECT COUNT(*) FROM mysql.user) */", "SELECT /*M! 1 */", "SELECT /*+ MAX_EXECUTION_TIME(1) */ 1",
    "EXPLAIN ANALYZE SELECT * FROM orders", "DESCRIBE orders",
])
def test_mysql_scope_variables_and_executable_comments_refused(sql: str) -> None:
    with pytest.raises(RefusedStatement):
        check_statement(sql, "mysql", scope=MY)


def test_mysql_pipes_are_refused_as_a_silent_or() -> None:
    """`||` is OR on MySQL/MariaDB: `name || '!'` returns 0 for every row, so it is refused with the fix."""
    for sql in ("SELECT name || '!' FROM orders", "SELECT id FROM orders WHERE a = 1 || b = 2"):
        with pytest.raises(RefusedStatement, match=r"CONCAT\(a, b\)"):
            check_statement(sql, "mysql", scope=MY)
    assert check_statement("SELECT '||' AS s, CONCAT(id, '!') FROM orders WHERE id = 1 OR id = 2", "mysql",
                           scope=MY)
    assert check_statement("SELECT id || '!' FROM orders", "postgres", scope=PG)


@pytest.mark.parametrize(("sql", "dialect", "scope"), [
    ("SELECT * FROM public.orders", "postgres", PG), ("SELECT * FROM shop.public.orders", "postgres", PG),
    ("SELECT * FROM generate_series(1, 3)", "postgres", PG),
    ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT * FROM c", "postgres", PG),
    ("EXPLAIN SELECT * FROM orders", "mysql", MY), ("SELECT * FROM shop.orders", "mysql", MY),
    ("SELECT 1 -- a comment\n", "mysql", MY),
])
def test_scope_allows_own_relations(sql: str, dialect: str, scope: Scope) -> None:
    assert check_statement(sql, dialect, scope=scope) is not None


def test_unknown_table_reads_like_the_engine_error() -> None:
    with pytest.raises(UnknownRelation, match="no such table: nowhere"):
        check_statement("SELECT * FROM nowhere", "postgres", scope=PG)


def test_system_catalogs_opt_in() -> None:
    assert check_statement("SELECT * FROM pg_catalog.pg_settings", "postgres", scope=PG, allow_system_catalogs=True)


@pytest.mark.parametrize("sql, dialect", [
    ("SELECT printf('%.*c', 1000000000, 'x')", "sqlite"),
    ("SELECT printf('%*d', 20000000, 1)", "sqlite"),
    ("SELECT format('%1000000000s', 'x')", "sqlite"),
    ("SELECT printf('%.50000000f', 1.5)", "duckdb"),
])
def test_printf_with_a_huge_constant_width_is_refused(sql: str, dialect: str) -> None:
    """A width or precision of tens of millions builds one huge value that no engine interrupts (SQLite spent
    6-9 s on the first one past a 2 s limit): refused like repeat() with a huge count."""
    with pytest.raises(RefusedStatement, match="would build a value"):
        check_statement(sql, dialect)


@pytest.mark.parametrize("sql", [
    "SELECT printf('%.2f', 12345678.9)",  # a large value to format is not a width
    "SELECT printf('%d%%', 20000000)",
    "SELECT printf('%5.1f and %s', 3.14159, 'x'), format('%10s', 'y')",
    "SELECT printf(fmt, 100000000) FROM (SELECT '%d' AS fmt)",
])
def test_printf_with_ordinary_widths_is_allowed(sql: str) -> None:
    check_statement(sql, "sqlite")
