"""Limits held by the engine (issue 21): row caps on the server, memory bounds, interrupts that outlive the
fetch, pooled connections that keep no session state, EXPLAIN on MariaDB."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from groundsql.db import Database
from groundsql.errors import DatabaseError, RefusedStatement
from tests.conftest import copy_sqlite_to_server

pytestmark = pytest.mark.integration

ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"


def test_postgres_row_cap_holds_on_the_server(postgres_database: str) -> None:
    db = Database(postgres_database, timeout_s=5, max_rows=10)
    started = time.perf_counter()
    result = db.execute("SELECT a.x, b.x FROM generate_series(1, 100000) a(x), generate_series(1, 100000) b(x)")
    assert result.row_count == 10 and result.truncated  # cut, not a timeout with gigabytes on the client
    assert time.perf_counter() - started < 3
    assert db.execute("EXPLAIN SELECT 1").rows  # EXPLAIN cannot go through a cursor; it still runs


def test_postgres_session_bounds(postgres_database: str) -> None:
    db = Database(postgres_database, timeout_s=5)
    assert db._run("SHOW work_mem", 5, 5).rows == [("64MB",)]
    if db._run("SHOW is_superuser", 5, 5).rows == [("on",)]:  # only superusers may set temp_file_limit
        assert db._run("SHOW temp_file_limit", 5, 5).rows == [("1GB",)]


def test_mariadb_row_cap_explain_and_no_session_state(mysql_database: str, concert_singer: Path) -> None:
    copy_sqlite_to_server(concert_singer, mysql_database, tables=["singer"])
    db = Database(mysql_database, timeout_s=5, max_rows=2)
    result = db.execute("SELECT a.Name FROM singer a, singer b, singer c")
    assert result.row_count == 2 and result.truncated
    assert db.execute("EXPLAIN SELECT * FROM singer").rows  # issue 21 #7: not refused as DESCRIBE
    with pytest.raises(RefusedStatement):
        db.execute("SELECT @a := 1")
    with pytest.raises(RefusedStatement):
        db.execute("SELECT /*!50000 (SELECT COUNT(*) FROM mysql.user) */")
    assert db._run("SELECT @a", 5, 5).rows == [(None,)]


def test_duckdb_endless_stream_is_released_at_once(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.duckdb"
    duckdb.connect(str(path)).close()
    db = Database(str(path), timeout_s=1, max_rows=5)
    started = time.perf_counter()
    result = db.execute(ENDLESS)
    assert result.truncated and time.perf_counter() - started < 2  # was 15-45 s: released after the timer
    assert db.execute("SELECT 41 + 1").rows == [(42,)]  # the interrupt did not leak into the next statement


def test_duckdb_memory_limit_and_threads(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.duckdb"
    duckdb.connect(str(path)).close()
    db = Database(str(path))
    settings = dict(db.execute_catalog_query(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ('memory_limit', 'threads')").rows)
    assert settings["threads"] == "4" and settings["memory_limit"].startswith(("1.9", "2.0", "2048"))


def test_sqlite_value_length_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    sqlite3.connect(path).close()
    db = Database(str(path))
    with pytest.raises(RefusedStatement):
        db.execute("SELECT zeroblob(1000000000)")  # not on the allow-list
    with pytest.raises(DatabaseError, match="too big"):
        db._run("SELECT zeroblob(1000000000)", 5, 5)  # and the engine refuses it too


def test_system_catalogs_opt_in_per_connection(concert_singer: Path) -> None:
    with pytest.raises(RefusedStatement, match="system catalog"):
        Database(str(concert_singer)).execute("SELECT name FROM sqlite_master")
    names = Database(str(concert_singer), allow_system_catalogs=True).execute("SELECT name FROM sqlite_master")
    assert ("singer",) in names.rows
