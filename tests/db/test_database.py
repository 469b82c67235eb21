"""Database on real engines: read-only twice over, time and row limits, results and summaries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundsql.db import Database
from groundsql.errors import ConfigError, DatabaseError, QueryTimeout, RefusedStatement
from tests.conftest import copy_sqlite_to_server

pytestmark = pytest.mark.integration

SLOW_QUERY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


def test_sqlite_answers_and_counts(concert_singer: Path) -> None:
    db = Database(str(concert_singer))
    result = db.execute("SELECT count(*) FROM singer WHERE Country = 'France'")
    assert result.rows == [(4,)]
    assert result.columns == ["count(*)"]
    assert not result.truncated


def test_url_and_bare_path_agree(concert_singer: Path) -> None:
    a = Database(str(concert_singer)).execute("SELECT count(*) FROM concert").rows
    b = Database(f"sqlite:///{concert_singer}").execute("SELECT count(*) FROM concert").rows
    assert a == b == [(6,)]


def test_row_cap_sets_truncated(concert_singer: Path) -> None:
    db = Database(str(concert_singer), max_rows=3)
    result = db.execute("SELECT * FROM singer")
    assert result.row_count == 3 and result.truncated
    assert db.execute("SELECT * FROM singer", max_rows=100).truncated is False


def test_sqlite_timeout_cancels(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    sqlite3.connect(path).close()
    db = Database(str(path), timeout_s=0.5)
    with pytest.raises(QueryTimeout):
        db.execute(SLOW_QUERY)


def test_sqlite_engine_refuses_writes_that_bypass_the_guard(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (a INT)")
        conn.execute("INSERT INTO t VALUES (1)")
    db = Database(str(path))
    for statement in ("DELETE FROM t", "CREATE TABLE u (b INT)", "INSERT INTO t VALUES (2)"):
        with pytest.raises(DatabaseError, match="readonly|read-only|query_only|attempt to write"):
            db._run(statement, 10, 5)
    assert db.execute("SELECT count(*) FROM t").rows == [(1,)]


def test_duckdb_file_read_only_and_limited(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE t AS SELECT range AS a FROM range(100)")
    db = Database(str(path), max_rows=10)
    result = db.execute("SELECT a FROM t ORDER BY a")
    assert result.row_count == 10 and result.truncated and result.rows[0] == (0,)
    with pytest.raises(DatabaseError):
        db._run("DELETE FROM t", 10, 5)
    with pytest.raises(DatabaseError):  # file access is switched off at the engine too
        db._run(f"SELECT * FROM read_csv('{path}')", 10, 5)
    with pytest.raises(RefusedStatement):
        db.execute("DROP TABLE t")


def test_duckdb_timeout(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "slow.duckdb"
    duckdb.connect(str(path)).close()
    db = Database(str(path), timeout_s=0.5)
    with pytest.raises(QueryTimeout):
        db.execute("SELECT count(*) FROM range(100000000000) a")


def test_csv_file_becomes_a_table(tmp_path: Path) -> None:
    path = tmp_path / "sales.csv"
    path.write_text("region,amount\nNorth,10\nSouth,5\nNorth,7\n")
    db = Database(str(path))
    assert db.dialect == "duckdb"
    result = db.execute("SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region")
    assert result.rows == [("North", 17), ("South", 5)]


def test_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        Database(str(tmp_path / "missing.sqlite"))
    with pytest.raises(ConfigError, match="unsupported"):
        Database("oracle://scott@localhost/db")
    weird = tmp_path / "notes.txt"
    weird.write_text("hello")
    with pytest.raises(ConfigError, match="cannot tell"):
        Database(str(weird))


def test_summary_compresses_long_results(concert_singer: Path) -> None:
    db = Database(str(concert_singer))
    short = db.execute("SELECT Name FROM singer")
    assert "Joe Sharp" in short.summary()
    long = db.execute(SLOW_QUERY.replace("SELECT count(*) FROM c", "SELECT x, x % 3 AS m FROM c LIMIT 100"))
    text = long.summary()
    assert "100 rows; first 10" in text
    assert "distinct=3" in text and "max=100" in text


def test_postgres_read_only_transactions_and_timeout(postgres_database: str, concert_singer: Path) -> None:
    copy_sqlite_to_server(concert_singer, postgres_database, tables=["singer", "stadium"])
    db = Database(postgres_database, timeout_s=1)
    assert db.dialect == "postgres"
    assert db.execute("SELECT count(*) FROM singer WHERE \"Country\" = 'France'").rows == [(4,)]
    with pytest.raises(DatabaseError, match="read-only"):
        db._run('DELETE FROM singer', 10, 5)
    with pytest.raises(QueryTimeout):
        db.execute("SELECT count(*) FROM generate_series(1, 1000000000)")
    with pytest.raises(RefusedStatement):
        db.execute("SELECT pg_sleep(5)")
    assert db.execute("SELECT count(*) FROM singer").rows == [(6,)]


def test_mariadb_read_only_and_timeout(mysql_database: str, concert_singer: Path) -> None:
    copy_sqlite_to_server(concert_singer, mysql_database, tables=["singer"])
    db = Database(mysql_database, timeout_s=1)
    assert db.dialect == "mysql"
    assert db.execute("SELECT count(*) FROM singer WHERE Country = 'France'").rows == [(4,)]
    with pytest.raises(DatabaseError):
        db._run("DELETE FROM singer", 10, 5)
    assert db.execute("SELECT count(*) FROM singer").rows == [(6,)]
