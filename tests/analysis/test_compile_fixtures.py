"""The view compiler, tested like sqlglot tests its dialects: fixture views with the expected SQL per dialect,
and every compiled query run on real SQLite, DuckDB, PostgreSQL and MariaDB with equal results."""

from __future__ import annotations

import datetime as dt
import decimal
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from groundsql.analysis.compile import DIALECTS, ViewCompiler, tables_of
from groundsql.analysis.dsl import View
from groundsql.catalog import introspect
from groundsql.db import Database

FIXTURES = Path(__file__).parent / "fixtures"
CASES = yaml.safe_load((FIXTURES / "views.yaml").read_text())
_SQL_LINES = [line for line in (FIXTURES / "shop.sql").read_text().splitlines() if not line.startswith("--")]
STATEMENTS = [s.strip() for s in "\n".join(_SQL_LINES).split(";") if s.strip()]
TABLES = {"customer": ["id", "name", "city", "joined", "referrer"],
          "orders": ["id", "customer_id", "day", "amount", "status"]}


def compiled(case: dict, dialect: str):
    compiler = ViewCompiler(TABLES, dialect)
    return [compiler.add(View.model_validate(v)) for v in case["views"]][-1]


@pytest.mark.unit
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_expected_sql(case: dict, dialect: str) -> None:
    assert compiled(case, dialect).sql(dialect) == case["expect"][dialect]


def _normal(value):
    if isinstance(value, decimal.Decimal):
        value = float(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 6)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()[:10]
    return value


def _rows(result, ordered: bool) -> list:
    rows = [tuple(_normal(v) for v in row) for row in result.rows]
    return rows if ordered else sorted(rows, key=repr)


def _run_all(db: Database) -> dict[str, list]:
    schema_tables = tables_of(introspect(db))
    assert {k.lower() for k in schema_tables} >= set(TABLES)
    out = {}
    for case in CASES:
        view = compiled(case, db.dialect)
        result = db.execute(view.sql(db.dialect))
        assert result.columns == view.columns, case["name"]
        out[case["name"]] = _rows(result, ordered=bool(case["views"][-1].get("order")))
    return out


def _sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    conn = sqlite3.connect(path)
    for statement in STATEMENTS:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def _duckdb(tmp_path: Path) -> Path:
    import duckdb

    path = tmp_path / "shop.duckdb"
    conn = duckdb.connect(str(path))
    for statement in STATEMENTS:
        conn.execute(statement)
    conn.close()
    return path


def _server(url: str) -> None:
    driver = url.replace("postgresql://", "postgresql+psycopg://").replace("mysql://", "mysql+pymysql://")
    engine = sa.create_engine(driver)
    with engine.begin() as conn:
        for statement in STATEMENTS:
            conn.exec_driver_sql(statement)
    engine.dispose()


@pytest.fixture(scope="module")
def sqlite_results(tmp_path_factory) -> dict[str, list]:
    with Database(str(_sqlite(tmp_path_factory.mktemp("shop")))) as db:
        return _run_all(db)


@pytest.mark.integration
def test_sqlite_results_match_the_pinned_rows(sqlite_results: dict[str, list]) -> None:
    for case in CASES:
        if "rows" in case:
            ordered = bool(case["views"][-1].get("order"))
            expected = [tuple(r) for r in case["rows"]]
            assert sqlite_results[case["name"]] == (expected if ordered else sorted(expected, key=repr)), case["name"]


@pytest.mark.integration
def test_duckdb_returns_the_same_rows(tmp_path: Path, sqlite_results: dict[str, list]) -> None:
    with Database(f"duckdb:///{_duckdb(tmp_path)}") as db:
        assert _run_all(db) == sqlite_results


@pytest.mark.integration
def test_postgres_returns_the_same_rows(postgres_database: str, sqlite_results: dict[str, list]) -> None:
    _server(postgres_database)
    with Database(postgres_database) as db:
        assert _run_all(db) == sqlite_results


@pytest.mark.integration
def test_mariadb_returns_the_same_rows(mysql_database: str, sqlite_results: dict[str, list]) -> None:
    _server(mysql_database)
    with Database(mysql_database) as db:
        assert _run_all(db) == sqlite_results
