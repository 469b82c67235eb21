"""Names in the catalog's own case (`sql.catalog_case`), on real PostgreSQL, MariaDB and DuckDB databases whose
tables and columns have mixed-case names: a query that names them in another case runs once respelled, and a query
that already runs is never changed."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot

from groundsql.answer import Candidate
from groundsql.catalog import introspect
from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import DatabaseError
from groundsql.generation.tree_repair import tree_repair
from groundsql.sql.catalog_case import to_catalog_case
from groundsql.sql.sqlite_flavour import from_sqlite

pytestmark = pytest.mark.integration

#: One database, mixed-case names as Spider's; `Year` is a reserved word on some engines.
TABLES = (
    ('Singer', '"Singer_ID" INTEGER PRIMARY KEY, "Name" TEXT, "Country" TEXT, age INTEGER',
     "(1, 'Joe', 'France', 52), (2, 'Ann', 'France', 29), (3, 'Bo', 'Netherlands', 41)"),
    ('concert', '"concert_ID" INTEGER PRIMARY KEY, "Singer_ID" INTEGER, "Year" TEXT',
     "(10, 1, '2014'), (11, 1, '2015'), (12, 3, '2014')"),
)

#: (query as a model writes it, in the engine's dialect, names in another case; expected rows).
MISCASED = [
    ("SELECT name FROM singer ORDER BY name", [("Ann",), ("Bo",), ("Joe",)]),
    ("SELECT T1.name, count(*) FROM singer AS t1 JOIN concert AS T2 ON T1.singer_id = t2.singer_id "
     "GROUP BY T1.name ORDER BY T1.name", [("Bo", 1), ("Joe", 2)]),
    ("SELECT s.name FROM (SELECT name, age FROM SINGER WHERE country = 'France') AS s WHERE s.AGE > 30",
     [("Joe",)]),
    ("WITH c AS (SELECT singer_id, count(*) AS n FROM concert GROUP BY singer_id) "
     "SELECT singer.name, C.n FROM singer JOIN c ON singer.singer_id = c.singer_id ORDER BY c.N DESC",
     [("Joe", 2), ("Bo", 1)]),
    ("SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert WHERE concert.year = '2015')",
     [("Joe",)]),
]

#: Queries that already run on every engine: never changed.
RUNNING = {
    "postgres": ['SELECT "Name" FROM "Singer" AS s WHERE s.age > 30 ORDER BY 1',
                 'SELECT c."Year", count(*) FROM concert AS c GROUP BY c."Year" ORDER BY 1'],
    "mysql": ["SELECT Name FROM Singer AS s WHERE s.AGE > 30 ORDER BY 1",
              "SELECT c.year, count(*) FROM concert AS c GROUP BY c.YEAR ORDER BY 1"],
    "duckdb": ["SELECT name FROM singer AS S WHERE s.AGE > 30 ORDER BY 1",
               "SELECT C.year, count(*) FROM CONCERT AS c GROUP BY c.YEAR ORDER BY 1"],
}


def _statements(quote: str) -> list[str]:
    made = []
    for name, columns, rows in TABLES:
        made.append(f"CREATE TABLE {quote}{name}{quote} ({columns.replace(chr(34), quote)})")
        made.append(f"INSERT INTO {quote}{name}{quote} VALUES {rows}")
    return made


def _create(url: str, quote: str = '"') -> str:
    import sqlalchemy as sa

    if url.startswith("duckdb"):
        import duckdb

        conn = duckdb.connect(url.removeprefix("duckdb:///"))
        for statement in _statements(quote):
            conn.execute(statement)
        conn.close()
        return url
    driver = url.replace("postgresql://", "postgresql+psycopg://").replace("mysql://", "mysql+pymysql://")
    engine = sa.create_engine(driver)
    with engine.begin() as conn:
        for statement in _statements(quote):
            conn.execute(sa.text(statement))
    engine.dispose()
    return url


@pytest.fixture(params=["postgres", "mysql", "duckdb"])
def mixed_case_db(request, tmp_path: Path) -> str:
    if request.param == "duckdb":
        pytest.importorskip("duckdb")
        return _create(f"duckdb:///{tmp_path}/mixed.duckdb")
    fixture = "postgres_database" if request.param == "postgres" else "mysql_database"
    url = request.getfixturevalue(fixture)
    return _create(url, '"' if request.param == "postgres" else "`")


def _rows(db: Database, sql: str) -> list[tuple]:
    return [tuple(r) for r in db.execute(sql).rows]


@pytest.mark.parametrize("sql, expected", MISCASED)
def test_names_in_another_case_run_once_respelled(mixed_case_db: str, sql: str, expected: list[tuple]) -> None:
    with Database(mixed_case_db) as db:
        schema = introspect(db)
        assert schema.table("Singer").name == "Singer"  # the catalog keeps the stored case
        tree = sqlglot.parse_one(sql, read=db.dialect)
        changes = to_catalog_case(tree, schema, db.dialect)
        respelled = tree.sql(dialect=db.dialect)
        assert _rows(db, respelled) == expected
        if db.dialect == "duckdb":
            assert changes == [] and _rows(db, sql) == expected  # DuckDB matches names whatever their case
        else:
            assert changes  # PostgreSQL folds `name` to lower case, MariaDB compares `singer` with `Singer`
            with pytest.raises(DatabaseError):
                db.execute(sql)


@pytest.mark.parametrize("sql, expected", MISCASED)
def test_sqlite_flavoured_queries_carry_to_the_engine(mixed_case_db: str, sql: str, expected: list[tuple]) -> None:
    """model_dialect=sqlite: the model's SQLite query, whatever case it writes names in, runs on the engine."""
    with Database(mixed_case_db) as db:
        assert _rows(db, from_sqlite(sql, db.dialect, introspect(db))) == expected


def test_a_query_that_runs_is_never_changed(mixed_case_db: str) -> None:
    with Database(mixed_case_db) as db:
        schema = introspect(db)
        for sql in RUNNING[db.dialect]:
            db.execute(sql)
            tree = sqlglot.parse_one(sql, read=db.dialect)
            assert to_catalog_case(tree, schema, db.dialect) == []
            assert tree.sql(dialect=db.dialect) == sqlglot.parse_one(sql, read=db.dialect).sql(dialect=db.dialect)


def test_the_tree_repair_respells_a_failing_query(mixed_case_db: str) -> None:
    """model_dialect=engine: the engine refuses the re-cased name; the tree repair's first rule fixes it, no model."""
    sql, expected = MISCASED[1]
    with Database(mixed_case_db) as db:
        ctx = Context(question="", db=db, models={}, options={}, _schema=introspect(db))
        result, error = ctx.try_query(sql, step="test")
        repair = tree_repair(ctx, Candidate(sql=sql, result=result, error=error))
        assert [tuple(r) for r in repair.candidate.result.rows] == expected
        if db.dialect != "duckdb":
            assert error is not None and repair.fixes[0].rule == "name case"


def test_spark_keeps_the_files_names_and_matches_any_case(tmp_path: Path, spark_session) -> None:
    """Spark matches names whatever their case (`spark.sql.caseSensitive=false`): nothing is respelled, and a file's
    table keeps the file's own spelling in the catalog (Spark lists temporary views in lower case)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "spark"
    (folder / "Singer").mkdir(parents=True)
    pq.write_table(pa.table({"Singer_ID": [1, 2, 3], "Name": ["Joe", "Ann", "Bo"], "age": [52, 29, 41]}),
                   folder / "Singer" / "part-00000.parquet")
    with Database(f"spark+local://{folder}", timeout_s=60) as db:
        schema = introspect(db)
        assert [t.name for t in schema.tables] == ["Singer"]
        assert [c.name for c in schema.tables[0].columns] == ["Singer_ID", "Name", "age"]
        sql = "SELECT name FROM singer WHERE AGE > 30 ORDER BY NAME"
        tree = sqlglot.parse_one(sql, read="spark")
        assert to_catalog_case(tree, schema, "spark") == []
        assert _rows(db, sql) == [("Bo",), ("Joe",)]


def test_the_engines_own_sql_gets_the_catalogs_case_before_it_runs(mixed_case_db: str) -> None:
    """model_dialect=engine: the model's PostgreSQL or MariaDB query that names `singer.name` runs the first time,
    respelled before execution (noted on the trace); a name the engine matches is left alone."""
    from groundsql.api import ask
    from groundsql.models import ScriptedModel

    sql, expected = MISCASED[0]
    model = ScriptedModel([f"```sql\n{sql}\n```"])
    answer = ask("Singers' names?", mixed_case_db, model=model, preset="baseline",
                 options={"model_dialect": "engine"})
    assert answer.error is None and [tuple(r) for r in answer.result.rows] == expected
    notes = answer.trace.notes("name_case")
    if answer.sql == sql:
        assert not notes  # DuckDB matches names whatever their case
    else:
        assert notes and notes[0]["written"] == sql and notes[0]["engine"] == answer.sql
