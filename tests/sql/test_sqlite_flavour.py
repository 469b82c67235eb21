"""SQLite-flavoured SQL carried to every engine (`model_dialect=sqlite`): each query must return SQLite's rows on
the same small shop in DuckDB, PostgreSQL, MariaDB and Spark."""

from __future__ import annotations

import pytest

from groundsql.catalog import introspect
from groundsql.sql.sqlite_flavour import from_sqlite
from tests.sql.test_repairs import _normal, shop, spark_shop  # noqa: F401  (the shared engine fixtures)

pytestmark = pytest.mark.integration

#: (what it checks, a query as a model writes it for SQLite, the rows SQLite returns).
SQLITE_QUERIES = [
    ("integer division truncates", "SELECT quantity / 2 FROM sale ORDER BY sale_id", [(1,), (0,), (1,)]),
    ("a real divided stays real", "SELECT quantity * 1.0 / 2 FROM sale ORDER BY sale_id", [(1.0,), (0.5,), (1.5,)]),
    ("NULLs sort first ascending", "SELECT x FROM (SELECT NULL AS x UNION ALL SELECT 1 AS x) AS u ORDER BY x",
     [(None,), (1,)]),
    ("NULLs sort last descending", "SELECT x FROM (SELECT NULL AS x UNION ALL SELECT 1 AS x) AS u ORDER BY x DESC",
     [(1,), (None,)]),
    ("LIKE ignores case", "SELECT track_name FROM track WHERE track_name LIKE 'LITH%'", [("Lithium",)]),
    ("names in any case", "SELECT Track_Name FROM Track WHERE Track.Track_ID = 1000", [("Lithium",)]),
    ("a double-quoted word that names nothing is a string",
     "SELECT track_name FROM track WHERE genre = \"Rock\" ORDER BY track_id", [("Lithium",), ("Polly",)]),
    ("strftime", "SELECT strftime('%Y', sold_on) FROM sale WHERE sale_id = 1", [("2024",)]),
    ("julianday", "SELECT CAST(julianday('2024-03-01') - julianday(sold_on) AS INTEGER) FROM sale WHERE sale_id = 2",
     [(230,)]),
    ("string concatenation", "SELECT name || '!' FROM artist ORDER BY artist_id", [("Nirvana!",), ("Bjork!",)]),
]


@pytest.mark.parametrize(("what", "sql", "rows"), SQLITE_QUERIES, ids=[w for w, _, _ in SQLITE_QUERIES])
def test_sqlite_flavoured_sql_returns_the_sqlite_rows_on_every_engine(shop, what, sql, rows):
    engine_sql = from_sqlite(sql, shop.dialect, introspect(shop))
    if shop.dialect == "sqlite":
        assert engine_sql == sql
    result = shop.execute(engine_sql)
    assert _normal([tuple(r) for r in result.rows]) == _normal(rows), engine_sql


def test_what_sqlglot_cannot_read_is_kept_as_written():
    assert from_sqlite("SELEC nothing", "postgres") == "SELEC nothing"
    assert from_sqlite("SELECT a FROM t", "sqlite") == "SELECT a FROM t"
