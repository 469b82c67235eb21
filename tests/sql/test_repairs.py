"""Tree repair rules on real SQLite, DuckDB, PostgreSQL, MariaDB and Spark databases: each rule on a query that
needs it, and a near case where it must not fire. Every repaired query is re-run through `Database.execute`.
SQLite-flavoured SQL transpiled for each engine must return SQLite's rows there."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from groundsql.answer import Candidate
from groundsql.catalog import Catalog, build_catalog, introspect
from groundsql.catalog.schema import ForeignKey, Schema
from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.tree_repair import TreeRepair, TreeRepairOptions, tree_repair
from groundsql.sql.sqlite_flavour import from_sqlite

pytestmark = pytest.mark.integration

DDL = [
    "CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name VARCHAR(50), country VARCHAR(50))",
    "CREATE TABLE album (album_id INTEGER PRIMARY KEY, artist_id INTEGER REFERENCES artist(artist_id), "
    "title VARCHAR(50))",
    "CREATE TABLE person (person_id INTEGER PRIMARY KEY, full_name VARCHAR(50), country VARCHAR(50))",
    "CREATE TABLE track (track_id INTEGER PRIMARY KEY, album_id INTEGER REFERENCES album(album_id), "
    "track_name VARCHAR(50), unit_price REAL, genre VARCHAR(50))",
    "CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, track_id INTEGER REFERENCES track(track_id), "
    "buyer_id INTEGER REFERENCES person(person_id), seller_id INTEGER REFERENCES person(person_id), "
    "quantity INTEGER, sold_on DATE)",
    "CREATE TABLE ranking (code VARCHAR(10), points INTEGER)",  # numbers kept as text, as after a load
]
ROWS = [
    "INSERT INTO artist VALUES (1, 'Nirvana', 'United States'), (2, 'Bjork', 'Iceland')",
    "INSERT INTO album VALUES (10, 1, 'Nevermind'), (11, 2, 'Debut')",
    "INSERT INTO person VALUES (100, 'Ann Lee', 'France'), (101, 'Bo Chan', 'Japan')",
    "INSERT INTO track VALUES (1000, 10, 'Lithium', 0.99, 'Rock'), (1001, 10, 'Polly', 0.99, 'Rock'), "
    "(1002, 11, 'Venus as a Boy', 1.29, 'Électronique'), (1003, 11, 'Army of Me', 1.29, 'Heavy Metal')",
    "INSERT INTO sale VALUES (1, 1000, 100, 101, 2, '2024-03-01'), (2, 1002, 101, 100, 1, '2023-07-15'), "
    "(3, 1003, 100, 101, 3, '2024-05-02')",
    "INSERT INTO ranking VALUES ('7', 7), ('12', 3)",
]


def _sqlite(tmp_path: Path) -> str:
    import sqlite3

    path = tmp_path / "shop.sqlite"
    conn = sqlite3.connect(path)
    for statement in DDL + ROWS:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return str(path)


def _duckdb(tmp_path: Path) -> str:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "shop.duckdb"
    conn = duckdb.connect(str(path))
    for statement in DDL + ROWS:
        conn.execute(statement)
    conn.close()
    return str(path)


def _server(url: str, prelude: tuple[str, ...] | list[str] = ()) -> str:
    import sqlalchemy as sa

    driver = url.replace("postgresql://", "postgresql+psycopg://").replace("mysql://", "mysql+pymysql://")
    engine = sa.create_engine(driver)
    with engine.begin() as conn:
        for statement in [*prelude, *DDL, *ROWS]:
            conn.execute(sa.text(statement))
    engine.dispose()
    return url


#: Spark tables declare no keys; the tests that need the declared ones say so.
SPARK_DDL = [
    "CREATE TABLE artist (artist_id INT, name STRING, country STRING) USING parquet",
    "CREATE TABLE album (album_id INT, artist_id INT, title STRING) USING parquet",
    "CREATE TABLE person (person_id INT, full_name STRING, country STRING) USING parquet",
    "CREATE TABLE track (track_id INT, album_id INT, track_name STRING, unit_price DOUBLE, genre STRING) "
    "USING parquet",
    "CREATE TABLE sale (sale_id INT, track_id INT, buyer_id INT, seller_id INT, quantity INT, sold_on DATE) "
    "USING parquet",
    "CREATE TABLE ranking (code STRING, points INT) USING parquet",
]
SPARK_ROWS = ROWS[:-2] + [ROWS[-2].replace(", '20", ", DATE '20"), ROWS[-1]]  # Spark casts no string into a DATE


@pytest.fixture(scope="module")
def spark_shop(spark_session) -> Database:
    """The shop as Parquet tables of one Spark database, made once for the module (Spark writes are slow)."""
    name = f"gsql_repairs_{uuid.uuid4().hex[:8]}"
    spark_session.sql(f"CREATE DATABASE {name}")
    spark_session.catalog.setCurrentDatabase(name)
    try:
        for statement in SPARK_DDL + SPARK_ROWS:
            spark_session.sql(statement)
        with Database(f"spark+local://?database={name}") as db:  # one session: the tests only read
            yield db
    finally:
        spark_session.catalog.setCurrentDatabase("default")
        spark_session.sql(f"DROP DATABASE {name} CASCADE")


ENGINES = ["sqlite", "duckdb", "postgres", "mysql", "spark"]


@pytest.fixture(params=ENGINES)
def shop(request, tmp_path: Path) -> Database:
    """The same small shop database on each engine (MariaDB's with a binary collation, so that its comparisons
    keep case and accents like the other engines')."""
    if request.param == "sqlite":
        url = _sqlite(tmp_path)
    elif request.param == "duckdb":
        url = _duckdb(tmp_path)
    elif request.param == "postgres":
        url = _server(request.getfixturevalue("postgres_database"))
    elif request.param == "mysql":
        url = request.getfixturevalue("mysql_database")
        _server(url, prelude=[f"ALTER DATABASE `{url.rsplit('/', 1)[1]}` COLLATE utf8mb4_bin"])
    else:
        yield request.getfixturevalue("spark_shop")
        return
    db = Database(url)
    yield db
    db.close()


_CATALOGS: dict[str, Catalog] = {}


def _catalog(db: Database) -> Catalog:
    """Profiled once per database (each test's database has its own name; Spark's is shared by the module)."""
    if db.display not in _CATALOGS:
        _CATALOGS[db.display] = build_catalog(db, use_cache=False)
    return _CATALOGS[db.display]


#: The keys DDL declares, which Spark tables cannot: a Spark user states them (a dbt project's relationships).
SHOP_KEYS = [("album", "artist_id", "artist", "artist_id"), ("track", "album_id", "album", "album_id"),
             ("sale", "track_id", "track", "track_id"), ("sale", "buyer_id", "person", "person_id"),
             ("sale", "seller_id", "person", "person_id")]


_SCHEMAS: dict[str, Schema] = {}


def _declared_schema(db: Database) -> Schema:
    if db.display not in _SCHEMAS:
        schema = introspect(db)
        if db.dialect == "spark":
            for table, column, ref_table, ref_column in SHOP_KEYS:
                schema.table(table).foreign_keys.append(ForeignKey([column], ref_table, [ref_column]))
            for table in schema.tables:  # every shop table's key is its first column
                table.primary_key = [table.columns[0].name]
        _SCHEMAS[db.display] = schema
    return _SCHEMAS[db.display]


def _repair(db: Database, sql: str, *, catalog: bool = False, **options) -> TreeRepair:
    ctx = Context(question="", db=db, models={}, options=options, catalog=_catalog(db) if catalog else None,
                  _schema=None if catalog else _declared_schema(db))
    result, error = ctx.try_query(sql, step="test")
    return tree_repair(ctx, Candidate(sql=sql, result=result, error=error))


def _rows(repair: TreeRepair) -> list[tuple]:
    assert repair.candidate.error is None, repair.candidate.error
    return [tuple(r) for r in repair.candidate.result.rows]


def _rules(repair: TreeRepair) -> list[str]:
    return [f.rule for f in repair.fixes]


# -- 1 wrong qualifier ------------------------------------------------------------------------------


def test_qualifier_moves_a_column_to_the_one_table_that_has_it(shop):
    fixed = _repair(shop, "SELECT SUM(t.unit_price * t.quantity) FROM track AS t JOIN sale AS s "
                          "ON s.track_id = t.track_id")
    assert _rules(fixed) == ["qualifier"]
    assert "s.quantity" in fixed.candidate.sql
    assert _rows(fixed)[0][0] == pytest.approx(7.14)


def test_qualifier_does_not_choose_between_two_tables(shop):
    sql = ("SELECT t.country FROM track AS t JOIN sale AS s ON s.track_id = t.track_id "
           "JOIN person AS b ON b.person_id = s.buyer_id JOIN album AS al ON al.album_id = t.album_id "
           "JOIN artist AS ar ON ar.artist_id = al.artist_id")
    fixed = _repair(shop, sql)
    assert not fixed.repaired and fixed.candidate.sql == sql
    assert any("person (b)" in h and "artist (ar)" in h for h in fixed.hints)


# -- 2 spelling -------------------------------------------------------------------------------------


def test_spelling_restores_stored_table_and_column_names(shop):
    fixed = _repair(shop, "SELECT TrackName FROM tracks WHERE Genre = 'Rock' ORDER BY 1")
    assert _rules(fixed) == ["spelling", "spelling"]
    assert _rows(fixed) == [("Lithium",), ("Polly",)]


def test_spelling_leaves_a_name_that_is_not_a_respelling(shop):
    fixed = _repair(shop, "SELECT trak FROM track")
    assert not fixed.repaired and fixed.candidate.error


# -- 3 missing join ---------------------------------------------------------------------------------


def test_missing_join_follows_the_unique_shortest_path(shop):
    fixed = _repair(shop, "SELECT name FROM track WHERE track_name = 'Lithium'")
    assert _rules(fixed) == ["join"]
    assert _rows(fixed) == [("Nirvana",)]  # track → album → artist


def test_missing_join_hints_instead_of_guessing_between_two_keys(shop):
    fixed = _repair(shop, "SELECT full_name FROM sale WHERE quantity = 3")
    assert not fixed.repaired
    hint = " ".join(fixed.hints)
    assert "buyer_id" in hint and "seller_id" in hint


def test_a_join_on_a_key_the_joined_table_lacks_goes_through_the_bridge(shop):
    fixed = _repair(shop, "SELECT ar.name, SUM(t.unit_price) FROM artist AS ar JOIN track AS t "
                          "ON ar.artist_id = t.artist_id GROUP BY ar.name ORDER BY ar.name")
    assert _rules(fixed) == ["join"]  # not `ar.artist_id = ar.artist_id` (a cross join)
    assert [(name, round(total, 2)) for name, total in _rows(fixed)] == [("Bjork", 2.58), ("Nirvana", 1.98)]


@pytest.mark.parametrize("sql", [
    "SELECT ar.name FROM track AS t JOIN artist AS ar ON t.artist_id = ar.artist_id WHERE t.track_name = 'Polly'",
    "SELECT ar.name FROM album AS al JOIN artist AS ar ON al.band_id = ar.artist_id WHERE al.title = 'Nevermind'",
])
def test_a_join_condition_on_a_missing_column_follows_the_key(shop, sql):
    fixed = _repair(shop, sql)  # through album (the earlier table lacks the key), or along the one direct key
    assert _rules(fixed) == ["join"]
    assert _rows(fixed) == [("Nirvana",)]


def test_a_join_with_two_routes_is_only_hinted(shop):
    fixed = _repair(shop, "SELECT s.quantity FROM person AS p JOIN sale AS s ON p.person_id = s.person_id")
    assert not fixed.repaired
    assert any("buyer_id" in h and "seller_id" in h for h in fixed.hints)


# -- 4 ambiguous column ------------------------------------------------------------------------------


def test_ambiguous_column_equated_by_the_join_is_qualified(shop):
    fixed = _repair(shop, "SELECT album_id, title FROM album JOIN track ON album.album_id = track.album_id "
                          "WHERE track_name = 'Polly'")
    assert _rules(fixed) == ["ambiguous"]
    assert _rows(fixed) == [(10, "Nevermind")]


def test_ambiguous_column_with_different_values_is_left_alone(shop):
    fixed = _repair(shop, "SELECT country FROM artist JOIN person ON artist.artist_id = person.person_id")
    assert not fixed.repaired
    assert any("country is ambiguous" in h for h in fixed.hints)


# -- 5 aggregate misuse -----------------------------------------------------------------------------


def test_aggregate_in_where_moves_to_having_with_group_by(shop):
    fixed = _repair(shop, "SELECT genre FROM track WHERE COUNT(*) > 1")
    assert _rules(fixed) == ["aggregate"]
    assert "HAVING" in fixed.candidate.sql and "GROUP BY" in fixed.candidate.sql
    assert _rows(fixed) == [("Rock",)]


def test_aggregate_in_where_without_a_grouping_is_only_hinted(shop):
    fixed = _repair(shop, "SELECT COUNT(*) FROM track WHERE COUNT(*) > 1")
    assert not fixed.repaired
    assert any("HAVING" in h for h in fixed.hints)


# -- 6 literal snapping -----------------------------------------------------------------------------


@pytest.mark.parametrize("literal, expected", [("heavy metal", "Army of Me"), ("electronique", "Venus as a Boy")])
def test_literal_snaps_to_the_one_stored_spelling_on_an_empty_result(shop, literal, expected):
    fixed = _repair(shop, f"SELECT track_name FROM track WHERE genre = '{literal}'", catalog=True)
    assert _rules(fixed) == ["literal"]
    assert _rows(fixed) == [(expected,)]


def test_literal_with_no_near_value_and_a_non_empty_result_are_left_alone(shop):
    assert not _repair(shop, "SELECT track_name FROM track WHERE genre = 'Polka'", catalog=True).repaired
    ran = _repair(shop, "SELECT track_name FROM track WHERE genre IN ('Rock', 'heavy metal')", catalog=True)
    assert not ran.repaired and len(_rows(ran)) == 2
    assert not _repair(shop, "SELECT track_name FROM track WHERE genre = 'heavy metal'").repaired  # no catalog


# -- 7 dialect ---------------------------------------------------------------------------------------


#: Another engine's syntax a small model writes, per engine, with the rows the transpiled query must return.
DIALECT_SLIPS = [
    ("sqlite", "SELECT TOP 1 track_name FROM track ORDER BY track_id", [("Lithium",)]),  # T-SQL's TOP
    ("sqlite", "SELECT sold_on::text FROM sale WHERE sale_id = 1", [("2024-03-01",)]),  # PostgreSQL's cast
    ("sqlite", "SELECT track_name FROM track WHERE track_name ILIKE 'lith%'", [("Lithium",)]),
    ("sqlite", "SELECT DATE_FORMAT(sold_on, '%Y') FROM sale WHERE sale_id = 1", [("2024",)]),  # MySQL's
    ("sqlite", "SELECT to_char(sold_on, 'YYYY') FROM sale WHERE sale_id = 1", [("2024",)]),  # PostgreSQL's
    ("duckdb", "SELECT TOP 1 track_name FROM track ORDER BY track_id", [("Lithium",)]),
    ("duckdb", "SELECT DATE_FORMAT(sold_on, '%Y') FROM sale WHERE sale_id = 1", [("2024",)]),
    ("duckdb", "SELECT to_char(sold_on, 'YYYY') FROM sale WHERE sale_id = 1", [("2024",)]),  # PostgreSQL's
    ("postgres", "SELECT strftime('%Y', sold_on) FROM sale WHERE sale_id = 1", [("2024",)]),  # SQLite's
    ("postgres", "SELECT DATE_FORMAT(sold_on, '%Y') FROM sale WHERE sale_id = 1", [("2024",)]),
    ("postgres", "SELECT `track_name` FROM track WHERE track_id = 1000", [("Lithium",)]),  # MySQL's quotes
    ("postgres", "SELECT IFNULL(genre, 'none') FROM track WHERE track_id = 1000", [("Rock",)]),
    ("mysql", "SELECT strftime('%Y', sold_on) FROM sale WHERE sale_id = 1", [("2024",)]),
    ("mysql", "SELECT name || '!' FROM artist ORDER BY artist_id", [("Nirvana!",), ("Bjork!",)]),  # not OR
    ("mysql", "SELECT sold_on::text FROM sale WHERE sale_id = 1", [("2024-03-01",)]),
    ("mysql", "SELECT track_name FROM track WHERE track_name ILIKE 'lith%'", [("Lithium",)]),
    ("mysql", "SELECT TOP 1 track_name FROM track ORDER BY track_id", [("Lithium",)]),
    ("spark", "SELECT strftime('%Y', sold_on) FROM sale WHERE sale_id = 1", [("2024",)]),
    ("spark", "SELECT strftime('%Y-%m', sold_on) AS m, COUNT(*) FROM sale GROUP BY m ORDER BY m",
     [("2023-07", 1), ("2024-03", 1), ("2024-05", 1)]),
    ("spark", "SELECT TOP 1 track_name FROM track ORDER BY track_id", [("Lithium",)]),
]


@pytest.mark.parametrize(("shop", "sql", "rows"), DIALECT_SLIPS, indirect=["shop"],
                         ids=[f"{e}-{s[7:30]}" for e, s, _ in DIALECT_SLIPS])
def test_dialect_transpiles_another_engines_syntax(shop, sql, rows):
    fixed = _repair(shop, sql)
    assert _rows(fixed) == rows
    assert _rules(fixed) == ["dialect"]


def test_dialect_leaves_an_unknown_function_of_no_dialect(shop):
    fixed = _repair(shop, "SELECT no_such_fn(track_name) FROM track")
    assert not fixed.repaired and fixed.candidate.error


# -- the stage ----------------------------------------------------------------------------------------


def test_a_query_that_ran_with_rows_is_never_touched(shop):
    sql = "SELECT t.track_name FROM track AS t WHERE t.genre = 'Rock'"
    fixed = _repair(shop, sql, catalog=True)
    assert not fixed.repaired and fixed.candidate.sql == sql


def test_the_option_turns_the_stage_off(shop):
    fixed = _repair(shop, "SELECT name FROM track WHERE track_name = 'Lithium'", tree_repair=False)
    assert not fixed.repaired and fixed.candidate.error


def test_options_reject_unknown_fields():
    with pytest.raises(ValueError):
        TreeRepairOptions(tree_repairs=False)


def test_aggregate_order_by_without_group_by_groups_the_selected_columns(shop):
    fixed = _repair(shop, "SELECT genre FROM track ORDER BY COUNT(*) DESC")
    if shop.dialect == "mysql":  # MariaDB without ONLY_FULL_GROUP_BY runs it as one group: no error to repair
        assert not fixed.repaired and len(_rows(fixed)) == 1
        return
    assert _rules(fixed) == ["aggregate"]
    assert _rows(fixed)[0] == ("Rock",)


#: Engines that refuse a column beside GROUP BY that is neither grouped nor aggregated (MariaDB's default
#: sql_mode lacks ONLY_FULL_GROUP_BY, and SQLite allows it: both run these queries as they are).
STRICT_GROUPING = ("duckdb", "postgres", "spark")


def test_a_column_the_grouped_key_determines_joins_the_group_by(shop):
    sql = ("SELECT ar.name, COUNT(*) FROM artist AS ar JOIN album AS al ON ar.artist_id = al.artist_id "
           "JOIN track AS t ON t.album_id = al.album_id GROUP BY al.artist_id ORDER BY ar.name")
    fixed = _repair(shop, sql)
    assert _rows(fixed) == [("Bjork", 2), ("Nirvana", 2)]
    if shop.dialect in STRICT_GROUPING:
        assert _rules(fixed) == ["grouping"]
        assert "GROUP BY al.artist_id, ar.name" in fixed.candidate.sql
    else:
        assert not fixed.repaired


def test_a_column_the_grouped_key_does_not_determine_takes_one_value_of_its_group(shop):
    fixed = _repair(shop, "SELECT t.genre, COUNT(*) FROM track AS t WHERE t.album_id = 10 GROUP BY t.album_id")
    assert _rows(fixed) == [("Rock", 2)]
    assert fixed.candidate.result.columns[0].lower() == "genre"  # the answer keeps its column name
    assert _rules(fixed) == (["bare"] if shop.dialect in STRICT_GROUPING else [])


def test_a_bare_column_beside_the_one_max_comes_from_its_row_as_in_sqlite(shop):
    fixed = _repair(shop, "SELECT t.track_name, MAX(t.track_id) FROM track AS t GROUP BY t.album_id ORDER BY 2")
    if shop.dialect == "mysql":  # runs as it is (no ONLY_FULL_GROUP_BY), with its own pick: nothing to repair
        assert not fixed.repaired
        return
    assert _rows(fixed) == [("Polly", 1001), ("Army of Me", 1003)]
    assert _rules(fixed) == (["bare"] if shop.dialect in STRICT_GROUPING else [])


# -- SQLite's leniency, stated for the engines that refuse it ---------------------------------------------

#: (query as a model writes it for SQLite, rows SQLite returns): every engine must return the same rows, through
#: the named rule where the engine refuses the query or finds nothing.
LENIENCY = [
    ("types", "SELECT points FROM ranking WHERE code = 7", [(7,)]),
    ("types", "SELECT points FROM ranking WHERE code IN (7, 12) ORDER BY points", [(3,), (7,)]),
    ("types", "SELECT COUNT(*) FROM ranking AS r JOIN ranking AS s ON r.code = s.points", [(1,)]),
    ("types", "SELECT code FROM ranking WHERE points = 'seven'", []),
    ("subquery", "SELECT track_name FROM track WHERE album_id = (SELECT album_id FROM album ORDER BY album_id) "
                 "ORDER BY track_id", [("Lithium",), ("Polly",)]),
    ("case", "SELECT track_name FROM track WHERE track_name LIKE 'lith%'", [("Lithium",)]),
    ("dialect", "SELECT CAST(julianday('2024-03-01') - julianday(sold_on) AS INTEGER) FROM sale WHERE sale_id = 2",
     [(230,)]),
]


@pytest.mark.parametrize(("rule", "sql", "rows"), LENIENCY, ids=[f"{r}-{s[7:40]}" for r, s, _ in LENIENCY])
def test_sqlite_leniency_gives_the_sqlite_rows_on_every_engine(shop, rule, sql, rows):
    fixed = _repair(shop, sql)
    assert _normal(_rows(fixed)) == _normal(rows)
    assert set(_rules(fixed)) <= {rule}, fixed.fixes
    if shop.dialect == "sqlite":
        assert not fixed.repaired


def test_a_scalar_subquery_of_one_row_and_a_set_subquery_are_left_alone(shop):
    assert not _repair(shop, "SELECT track_name FROM track WHERE album_id IN (SELECT album_id FROM album) "
                             "AND unit_price = (SELECT MAX(unit_price) FROM track) AND track_id = 0").repaired


def _normal(rows: list[tuple]) -> list[tuple]:
    """Rows with numbers as floats rounded (engines return int, Decimal or float for the same value)."""
    def value(v):
        return round(float(v), 6) if isinstance(v, (int, float)) or type(v).__name__ == "Decimal" else v
    return [tuple(value(v) for v in row) for row in rows]


def test_dialect_concat_where_the_engine_lacks_it(shop):
    sql = "SELECT CONCAT(name, '!') FROM artist ORDER BY artist_id"
    fixed = _repair(shop, sql)
    assert _rows(fixed) == [("Nirvana!",), ("Bjork!",)]  # CONCAT runs as it is, or becomes `name || '!'`
    assert fixed.candidate.sql == sql or _rules(fixed) == ["dialect"]


# -- SQLite-flavoured SQL carried to the engine (model_dialect=sqlite, sql.sqlite_flavour) -----------------

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
    # SQLite's leniency, written out before the query first runs (`sqlite_leniency`), for baseline's one query
    ("a column the grouped key determines", "SELECT a.name, COUNT(*) FROM artist AS a JOIN album AS b "
     "ON a.artist_id = b.artist_id GROUP BY a.artist_id ORDER BY a.artist_id", [("Nirvana", 1), ("Bjork", 1)]),
    ("a bare column beside GROUP BY", "SELECT album_id, genre, COUNT(*) FROM track WHERE album_id = 10 "
     "GROUP BY album_id", [(10, "Rock", 2)]),
    ("text compared with a number", "SELECT points FROM ranking WHERE code = 7", [(7,)]),
    ("a number column compared with a word", "SELECT COUNT(*) FROM ranking WHERE points = 'seven'", [(0,)]),
    ("a number column compared with a numeric string", "SELECT code FROM ranking WHERE points = '3'", [("12",)]),
    ("a scalar subquery of several rows", "SELECT track_name FROM track WHERE album_id = "
     "(SELECT album_id FROM album ORDER BY album_id) ORDER BY track_id", [("Lithium",), ("Polly",)]),
]


@pytest.mark.parametrize(("what", "sql", "rows"), SQLITE_QUERIES, ids=[w for w, _, _ in SQLITE_QUERIES])
def test_sqlite_flavoured_sql_returns_the_sqlite_rows_on_every_engine(shop, what, sql, rows):
    engine_sql = from_sqlite(sql, shop.dialect, introspect(shop))
    if shop.dialect == "sqlite":
        assert engine_sql == sql
    result = shop.execute(engine_sql)
    assert _normal([tuple(r) for r in result.rows]) == _normal(rows), engine_sql


def test_a_query_every_engine_accepts_keeps_its_shape(shop):
    """The leniency steps change nothing where SQLite's reading needs no rewrite: one-row and set subqueries,
    comparisons of like types, a grouped column."""
    sql = ("SELECT album_id, COUNT(*) FROM track WHERE album_id IN (SELECT album_id FROM album) AND genre = 'Rock' "
           "AND unit_price <= (SELECT MAX(unit_price) FROM track) GROUP BY album_id")
    engine_sql = from_sqlite(sql, shop.dialect, introspect(shop))
    assert "LIMIT" not in engine_sql.upper() and "CAST" not in engine_sql.upper() and "ANY_VALUE" not in engine_sql
    assert _normal([tuple(r) for r in shop.execute(engine_sql).rows]) == _normal([(10, 2)])


def test_what_sqlglot_cannot_read_is_kept_as_written():
    assert from_sqlite("SELEC nothing", "postgres") == "SELEC nothing"
    assert from_sqlite("SELECT a FROM t", "sqlite") == "SELECT a FROM t"


def test_dialect_reorders_a_function_the_engine_has_with_other_arguments():
    """An older DuckDB refuses SQLite's `strftime(format, date)` ("No function matches … strftime(VARCHAR,
    DATE)"): the function is still called after the rewrite, with DuckDB's argument order."""
    from groundsql.catalog.joins import JoinGraph
    from groundsql.catalog.schema import Column, Table
    from groundsql.sql.repairs import RepairFacts, plan_repairs

    schema = Schema(dialect="duckdb", tables=[Table("sale", [Column("sold_on", "DATE")])])
    error = ("Binder Error: No function matches the given name and argument types 'strftime(VARCHAR, DATE)'. "
             "You might need to add explicit type casts.")
    facts = RepairFacts(schema=schema, joins=JoinGraph(relationships=[]), dialect="duckdb", error=error)
    plan = plan_repairs("SELECT strftime('%Y', sold_on) FROM sale", facts)
    assert [f.rule for f in plan.fixes] == ["dialect"]
    assert plan.sql == "SELECT STRFTIME(CAST(sold_on AS TIMESTAMP), '%Y') FROM sale"
    unknown = RepairFacts(schema=schema, joins=JoinGraph(relationships=[]), dialect="duckdb",
                          error="Catalog Error: Scalar Function with name no_fn does not exist!")
    assert not plan_repairs("SELECT no_fn(sold_on) FROM sale", unknown).fixes
