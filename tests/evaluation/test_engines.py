"""Cross-engine evaluation: gold SQL transpiled by sqlglot, Spider databases copied into DuckDB, PostgreSQL,
MariaDB and Spark (`eval load`), questions asked of the copies (`eval run --engine`), predictions read and
scored in the copy's dialect."""

from __future__ import annotations

import decimal
import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.evaluation.load import DOUBLE, INTEGER, TEXT, _column_kind, engine_url, load_into, url_dialect
from groundsql.evaluation.scoring import comparable
from groundsql.evaluation.transpile import GoldNotTranspilable, transpile_gold
from tests.conftest import MYSQL_ADMIN_URL, PG_ADMIN_URL, _admin_engine

SMALL_DBS = ["concert_singer", "pets_1"]


@pytest.mark.unit
@pytest.mark.parametrize(("gold", "dialect", "expected"), [
    ('SELECT name FROM singer WHERE country = "France"', "postgres",
     "SELECT name FROM singer WHERE country = 'France'"),
    ('SELECT T1.Name FROM Singer AS T1 WHERE T1."Age" > 30', "postgres",  # no schema: names as written
     'SELECT T1.Name FROM Singer AS T1 WHERE T1."Age" > 30'),
    ("SELECT count(*) FROM singer GROUP BY Country", "mysql", "SELECT COUNT(*) FROM singer GROUP BY Country"),
    ("SELECT name FROM singer WHERE name LIKE '%al%'", "postgres",
     "SELECT name FROM singer WHERE name ILIKE '%al%'"),
    ("SELECT name FROM singer WHERE name NOT LIKE 'a%'", "mysql",
     "SELECT name FROM singer WHERE LOWER(name) NOT LIKE LOWER('a%')"),
    ("SELECT strftime('%Y', birth) FROM singer", "spark",
     "SELECT DATE_FORMAT(CAST(birth AS TIMESTAMP), 'yyyy') FROM singer"),
])
def test_transpile_gold(gold: str, dialect: str, expected: str) -> None:
    assert transpile_gold(gold, dialect, {"name", "singer", "country", "age", "birth"}) == expected


@pytest.mark.unit
@pytest.mark.parametrize("gold", ["SELECT name FROM singer WHERE name GLOB 'J*'", "SELECT julianday(a) FROM t",
                                  "SELECT FROM WHERE"])
def test_untranspilable_gold_is_named(gold: str) -> None:
    with pytest.raises(GoldNotTranspilable):
        transpile_gold(gold, "postgres")


@pytest.mark.unit
@pytest.mark.parametrize(("declared", "values", "kind", "changed"), [
    ("INTEGER", [1, 2], INTEGER, False),
    ("int", [1, 2.5], DOUBLE, True),
    ("INT", [1, "n/a"], TEXT, True),
    ("varchar(20)", ["a", 3], TEXT, False),
    ("", [1, 2], INTEGER, False),
    ("", [1, 2.5], DOUBLE, False),
    ("number", [1.5], DOUBLE, False),
    ("bool", ["T", "F"], TEXT, True),
])
def test_column_types_follow_the_values(declared, values, kind, changed) -> None:
    found, note = _column_kind(declared, values)
    assert found == kind and (note is not None) == changed


@pytest.mark.unit
def test_values_compare_across_engines() -> None:
    assert comparable([(decimal.Decimal("38.7500000000000000"), 2.0, True)]) == [(38.75, 2, 1)]
    assert comparable([(1 / 3,)]) == comparable([(decimal.Decimal("0.33333333333333333333"),)])


@pytest.mark.unit
def test_url_templates() -> None:
    assert engine_url("postgresql://u@h/spider_{db_id}", "pets_1") == "postgresql://u@h/spider_pets_1"
    assert [url_dialect(u) for u in ("postgresql://h/x", "mysql://h/x", "duckdb:///x/{db_id}.duckdb",
                                     "spark+local:///x/{db_id}")] == ["postgres", "mysql", "duckdb", "spark"]


# -- copies in real engines ---------------------------------------------------------------------------


def _gold_predictions(spider_dir: Path, path: Path, template: str, db_ids: list[str],
                      extra: dict[int, str] | None = None) -> Path:
    """The SQLite gold as each question's prediction, carried to the copy as `model_dialect=sqlite` carries a
    model's SQLite query (names in the copy's case where the engine would miss them); `extra` as written."""
    from groundsql.catalog import introspect
    from groundsql.db import Database
    from groundsql.sql.sqlite_flavour import from_sqlite

    questions = json.loads((spider_dir / "dev.json").read_text())
    schemas = {}
    for db_id in db_ids:
        with Database(engine_url(template, db_id)) as db:
            schemas[db_id] = (db.dialect, introspect(db))
    with path.open("w") as handle:
        for index, q in enumerate(questions):
            if q["db_id"] in db_ids:
                sql = (extra or {}).get(index) or from_sqlite(q["query"], *schemas[q["db_id"]])
                handle.write(json.dumps({"id": index, "sql": sql}) + "\n")
    return path


def _tie_prone(sql: str) -> bool:
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read="sqlite")
    return tree.find(exp.Limit) is not None and tree.find(exp.Order) is not None


def _check_copy_run(spider_dir: Path, template: str, tmp_path: Path, db_ids: list[str], *,
                    extra: dict[int, str] | None = None, **filters) -> dict:
    """Gold SQL of the SQLite dataset, used as predictions on the copies: every question whose gold the copy
    answers must be right, and the others must be reported."""
    from groundsql.evaluation import evaluate

    predictions = _gold_predictions(spider_dir, tmp_path / "preds.jsonl", template, db_ids, extra)
    summary = evaluate(spider_dir, predictions=predictions, engine=template, db=db_ids, out=tmp_path / "run",
                       report=False, **filters)
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    excluded = [r for r in records if r.get("excluded")]
    assert summary["n"] + len(excluded) == len(records)
    # A gold that the engine ran only once the tree repair stated SQLite's leniency (a column SQLite lets stand
    # beside GROUP BY, text compared with a number) counts, with the repaired gold; its SQLite text, carried by
    # model_dialect=sqlite's transpile, which states the same leniency before the query runs, is right there too.
    regrouped = [r for r in records if r.get("engine_gold_repair")]
    assert all(r["correct"] is True for r in regrouped), [r for r in regrouped if not r["correct"]]
    assert all("GROUP BY" in r["engine_gold_sql"] for r in regrouped if "grouping" in r["engine_gold_repair"])
    wrong = [r for r in records if r["correct"] is False and not r.get("engine_gold_repair")]
    # A parallel engine (DuckDB) may return another of several rows that tie under ORDER BY … LIMIT from one run to
    # the next, after the gold check passed; any other wrong answer is a loading or scoring fault.
    assert summary["n"] > 0 and all(_tie_prone(r["gold_sql"]) for r in wrong), wrong
    assert summary["correct"] >= summary["n"] - len(regrouped) - 1, wrong
    summary["regrouped"] = len(regrouped)
    assert all(r["error"] and r["excluded"] in ("untranspilable", "gold_error", "gold_mismatch") for r in excluded)
    assert summary.get("excluded", {"n": 0})["n"] == len(excluded)
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["run"]["engine"]
    return summary


@pytest.mark.integration
def test_duckdb_copy_keeps_keys_and_answers_the_gold(spider_dir: Path, tmp_path: Path) -> None:
    from groundsql.catalog import introspect
    from groundsql.db import Database

    template = f"duckdb:///{tmp_path}/copies/{{db_id}}.duckdb"
    report = load_into(spider_dir, template, db_ids=SMALL_DBS)
    concert = report.databases[0]
    assert concert.error is None and concert.tables == 4 and concert.primary_keys == 4 and concert.foreign_keys >= 1
    assert any("singer.is_male" in c.lower() and "stored as TEXT" in c for c in concert.changes)
    assert any("concert.Stadium_ID" in c and "stored as INTEGER" in c for c in concert.changes)
    with Database(engine_url(template, "concert_singer")) as db:
        schema = introspect(db)
        singer = schema.table("singer")
        assert singer is not None and singer.primary_key == ["Singer_ID"]  # the SQLite names, in their case
        assert [c.name for c in singer.columns][:2] == ["Singer_ID", "Name"]
    # The copy is checked: a second load without --replace refuses to overwrite it.
    again = load_into(spider_dir, template, db_ids=["pets_1"])
    assert again.databases[0].error and "--replace" in again.databases[0].error
    # A prediction only DuckDB reads (a regex operator) is scored in DuckDB's dialect, not as SQLite.
    questions = json.loads((spider_dir / "dev.json").read_text())
    index = next(i for i, q in enumerate(questions)
                 if q["query"] == "SELECT count(*) FROM singer" and q["db_id"] == "concert_singer")
    summary = _check_copy_run(spider_dir, template, tmp_path, SMALL_DBS,
                              extra={index: "SELECT count(*) FROM singer WHERE name ~ '.*'"})
    assert summary["regrouped"] >= 1  # concert_singer's "GROUP BY T2.concert_id" golds select concert_name


@pytest.mark.integration
def test_postgres_copy(spider_dir: Path, tmp_path: Path) -> None:
    import sqlalchemy as sa

    admin = _admin_engine(PG_ADMIN_URL)
    prefix = f"groundsql_test_{uuid.uuid4().hex[:8]}_"
    template = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{prefix}{{db_id}}"
    try:
        report = load_into(spider_dir, template, db_ids=SMALL_DBS)
        assert [d.error for d in report.databases] == [None, None]
        assert report.databases[0].foreign_keys >= 1 and report.databases[1].foreign_keys == 2
        _check_copy_run(spider_dir, template, tmp_path, SMALL_DBS)
    finally:
        with admin.connect() as conn:
            for db_id in SMALL_DBS:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{prefix}{db_id}" WITH (FORCE)'))
        admin.dispose()


@pytest.mark.integration
def test_mariadb_copy(spider_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("pymysql")
    import sqlalchemy as sa

    admin = _admin_engine(MYSQL_ADMIN_URL)
    prefix = f"groundsql_test_{uuid.uuid4().hex[:8]}_"
    template = f"{MYSQL_ADMIN_URL.rstrip('/')}/{prefix}{{db_id}}"
    try:
        report = load_into(spider_dir, template, db_ids=SMALL_DBS)
        assert [d.error for d in report.databases] == [None, None]
        assert report.databases[1].primary_keys == 2 and report.databases[1].foreign_keys == 2
        _check_copy_run(spider_dir, template, tmp_path, SMALL_DBS)
    finally:
        with admin.connect() as conn:
            for db_id in SMALL_DBS:
                conn.execute(sa.text(f"DROP DATABASE IF EXISTS `{prefix}{db_id}`"))
        admin.dispose()


@pytest.mark.integration
def test_spark_copy(spider_dir: Path, tmp_path: Path, spark_session) -> None:
    template = f"spark+local://{tmp_path}/spark/{{db_id}}"
    report = load_into(spider_dir, template, db_ids=["singer"])
    entry = report.databases[0]
    assert entry.error is None and entry.tables == 2 and entry.rows == 16
    assert any("Spark tables have no key constraints" in c for c in entry.changes)
    assert (tmp_path / "spark" / "singer" / "song").is_dir()
    summary = _check_copy_run(spider_dir, template, tmp_path, ["singer"], limit=5)
    assert summary["n"] >= 3


@pytest.mark.integration
def test_cli_eval_load(spider_dir: Path, tmp_path: Path) -> None:
    from groundsql.cli import cli

    report = tmp_path / "load.md"
    done = CliRunner().invoke(cli, ["eval", "load", str(spider_dir), "--db", "pets_1", "--into",
                                    f"duckdb:///{tmp_path}/{{db_id}}.duckdb", "--report", str(report)])
    assert done.exit_code == 0, done.output
    assert "| pets_1 |" in done.output and (tmp_path / "pets_1.duckdb").is_file()
    assert "names in lower case" not in report.read_text()  # names keep their case
    several = CliRunner().invoke(cli, ["eval", "load", str(spider_dir), "--into", f"duckdb:///{tmp_path}/one.duckdb"])
    assert several.exit_code != 0 and "{db_id}" in several.output


@pytest.mark.unit
@pytest.mark.parametrize(("dialect", "expected"), [
    ("postgres", 'SELECT t1."Name" FROM "Singer" AS T1 WHERE T1.AGE > 30 AND t1."Name" ILIKE \'a%\''),
    ("mysql", "SELECT T1.name FROM Singer AS T1 WHERE T1.AGE > 30 AND LOWER(T1.name) LIKE LOWER('a%')"),
    ("duckdb", "SELECT t1.name FROM singer AS T1 WHERE T1.AGE > 30 AND t1.name ILIKE 'a%'"),
])
def test_transpile_gold_writes_names_in_the_copys_case(dialect: str, expected: str) -> None:
    """The copy keeps the original's names (`Singer.Name`); the gold names them in any case, as SQLite allows."""
    from groundsql.catalog.schema import Column, Schema, Table

    schema = Schema(dialect="sqlite", tables=[Table("Singer", [Column("Name", "TEXT"), Column("age", "INTEGER")])])
    gold = "SELECT t1.name FROM singer AS T1 WHERE T1.AGE > 30 AND t1.name LIKE 'a%'"
    assert transpile_gold(gold, dialect, {"singer", "name", "age"}, schema) == expected


def test_transpile_gold_keeps_integer_division_where_the_engine_would_not_truncate() -> None:
    from groundsql.catalog.schema import Column, Schema, Table

    schema = Schema(dialect="sqlite", tables=[Table("singer", [Column("age", "INTEGER"), Column("name", "TEXT")])])
    gold = "SELECT avg(age) / 2, age / 2 FROM singer"
    assert transpile_gold(gold, "duckdb", {"singer", "age"}, schema).endswith(", age // 2 FROM singer")
    assert transpile_gold(gold, "mysql", {"singer", "age"}, schema).endswith("age DIV 2 FROM singer")
    assert "DIV" not in transpile_gold(gold, "duckdb", {"singer", "age"})  # no schema: sqlglot's reading


def _engines_benchmark():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "engines.py"
    spec = importlib.util.spec_from_file_location("engines_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("engine_record", "expected"), [
    ({"sql": "SELECT a FROM t WHERE b = (SELECT c FROM u)", "failure": "execution_error",
      "error": "more than one row returned by a subquery used as an expression"}, "engine refusal"),
    ({"sql": 'SELECT "A" FROM T WHERE name ILIKE \'%al%\' ORDER BY a NULLS FIRST', "failure": "wrong_result"},
     "gold artifact"),
    ({"sql": "SELECT b FROM t", "failure": "execution_error", "error": 'Binder Error: Table "t" does not have a '
                                                                       'column named "b"'},
     "another final query"),
])
def test_each_loss_against_sqlite_is_classed(engine_record: dict, expected: str) -> None:
    benchmark = _engines_benchmark()
    sqlite_record = {"sql": "SELECT a FROM t WHERE name LIKE '%al%' ORDER BY a", "correct": True}
    if expected == "engine refusal":
        sqlite_record["sql"] = engine_record["sql"]
    assert benchmark.loss_class(sqlite_record, engine_record, "postgres") == expected


def _spider_like(root: Path) -> Path:
    """A Spider-format dataset of one database with Spider's habits, each of which a copy stores otherwise:
    mixed-case names, a reserved word (`Year`), a foreign key that names its parent in another case, lower-case
    declared types (`int`, `varchar(20)`), a text key that holds integers and joins an integer key, an `int` column
    holding a fraction, a `bool` column holding letters, an integral `real`, a `datetime` held as text, a foreign
    key its rows break (' AMS'), and rows inserted out of their key's order."""
    import sqlite3

    folder = root / "database" / "tour"
    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / "tour.sqlite")
    conn.executescript("""
        CREATE TABLE "Singer" ("Singer_ID" int PRIMARY KEY, "Name" varchar(20), "Country" text, "Age" int,
                               "Rating" real, "Is_male" bool, "Weight" int);
        CREATE TABLE venue ("Code" text PRIMARY KEY, "Name" text, "Opened" datetime);
        CREATE TABLE concert ("concert_ID" int PRIMARY KEY, "Singer_ID" text, "Year" text, "Venue" text,
                              FOREIGN KEY ("Singer_ID") REFERENCES singer("singer_id"),
                              FOREIGN KEY ("Venue") REFERENCES venue("Code"));
        CREATE TABLE line_up ("concert_ID" int, "Singer_ID" int, PRIMARY KEY ("concert_ID", "Singer_ID"));
        INSERT INTO "Singer" VALUES (1, 'Joe', 'France', 52, 3.5, 'T', 80), (2, 'Ann', 'France', 29, 4.0, 'F', 61.5),
                                    (3, 'Bo', 'Netherlands', 41, 2.5, 'T', 70);
        INSERT INTO venue VALUES ('ZRH', 'Hallenstadion', '1939-03-01 10:00:00'),
                                 ('AMS', 'Ziggo Dome', '2012-07-01 20:30:00'), ('BER', 'Uber Arena', '2008-09-10 19:00:00');
        INSERT INTO concert VALUES (10, '1', '2014', 'ZRH'), (11, '1', '2015', ' AMS'), (12, '3', '2014', 'BER');
        INSERT INTO line_up VALUES (11, 3), (10, 1), (10, 2);
    """)
    conn.commit()
    conn.close()
    (root / "dev.json").write_text(json.dumps([{"db_id": "tour", "question": "How many singers?",
                                                "query": "SELECT count(*) FROM singer"}]))
    return root


@pytest.mark.integration
@pytest.mark.parametrize("options", [{}, {"catalog_context": False}], ids=["catalog", "plain"])
def test_the_prompt_is_the_same_on_every_engine(tmp_path: Path, request, options: dict) -> None:
    """With `model_dialect=sqlite` the generation prompt for one database is byte for byte the same on SQLite and
    on its copies in DuckDB, PostgreSQL and MariaDB: names, declared types as SQLite declares them, keys, notes,
    and sample values as SQLite stores them ('1' in a text column, 61.5 and 80 in an `int` one)."""
    pytest.importorskip("duckdb")
    pytest.importorskip("pymysql")

    dataset = _spider_like(tmp_path / "spider")
    urls = {"sqlite": str(dataset / "database" / "tour" / "tour.sqlite"),
            "duckdb": f"duckdb:///{tmp_path}/tour.duckdb",
            "postgres": request.getfixturevalue("postgres_database"),
            "mariadb": request.getfixturevalue("mysql_database")}
    prompts = {}
    for engine, url in urls.items():
        if engine != "sqlite":
            report = load_into(dataset, url, db_ids=["tour"], replace=True)
            assert report.databases[0].error is None and report.databases[0].foreign_keys == 1
            changes = report.databases[0].changes
            assert any("stored as INTEGER" in c for c in changes)  # the text key
            assert any("foreign key concert(Venue)" in c and "dropped" in c for c in changes)  # ' AMS'
        prompts[engine] = _first_prompt(url, options)
    text = prompts["sqlite"][1]["content"]
    assert "CREATE TABLE Singer (" in text and '"Year" TEXT' in text and "Name VARCHAR(20)" in text
    assert "10 | '1' | '2014'" in text and "2 | 'Ann' | 'France' | 29 | 4.0 | 'F' | 61.5" in text
    assert "'ZRH' | 'Hallenstadion'" in text.split("'AMS' | 'Ziggo Dome'")[0]  # SQLite's order of the rows
    assert "FOREIGN KEY (Venue) REFERENCES venue(Code)\n" in text  # declared, though a row breaks it
    for engine in ("duckdb", "postgres", "mariadb"):
        assert prompts[engine] == prompts["sqlite"], engine


def _first_prompt(url: str, options: dict) -> list[dict]:
    """The messages of baseline's one model call for the tour question on `url`, with model_dialect=sqlite."""
    from groundsql.api import ask
    from groundsql.models import ScriptedModel

    model = ScriptedModel(default="SELECT COUNT(*) FROM singer")
    answer = ask("How many singers from France are older than 30 in 2014?", url, model=model, preset="baseline",
                 options={"model_dialect": "sqlite", **options})
    assert answer.error is None and answer.result.rows[0][0] == 3
    return model.calls[0]["messages"]


@pytest.mark.integration
def test_a_spark_copy_records_the_originals_types_and_keys(tmp_path: Path) -> None:
    """Written without a JVM, the Parquet footers hold the schema Spark reads back (each column's comment the
    original's declared type) and the original's declared keys as the table's comment."""
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from groundsql.catalog.sqlite_types import KEYS_MARKER
    from groundsql.db.spark_urls import SPARK_SCHEMA_KEY, parquet_comment

    dataset = _spider_like(tmp_path / "spider")
    assert load_into(dataset, f"spark+local://{tmp_path}/tour", db_ids=["tour"]).databases[0].error is None
    concert = tmp_path / "tour" / "concert"
    keys = json.loads(parquet_comment(concert).removeprefix(KEYS_MARKER))
    assert keys == {"pk": ["concert_ID"], "fks": [[["Singer_ID"], "Singer", ["Singer_ID"]], [["Venue"], "venue",
                                                                                             ["Code"]]]}
    footer = pq.read_metadata(concert / "part-00000.parquet").metadata
    fields = json.loads(footer[SPARK_SCHEMA_KEY.encode()])["fields"]
    assert [(f["name"], f["type"], f["metadata"]["comment"]) for f in fields] == [
        ("concert_ID", "long", "groundsql:sqlite_type=INTEGER"), ("Singer_ID", "long", "groundsql:sqlite_type=TEXT"),
        ("Year", "string", "groundsql:sqlite_type=TEXT"), ("Venue", "string", "groundsql:sqlite_type=TEXT")]
    assert parquet_comment(dataset / "dev.json") is None


@pytest.mark.integration
@pytest.mark.parametrize("options", [{}, {"catalog_context": False}], ids=["catalog", "plain"])
def test_the_prompt_is_the_same_on_spark(tmp_path: Path, spark_session, options: dict) -> None:
    """A Spark copy (a folder of Parquet tables) records the original's types in its columns' comments and its
    declared keys in each file's footer, so that its prompt with `model_dialect=sqlite` is SQLite's byte for byte:
    without them it would show family names (`INTEGER` for `int`) and infer the keys Spark does not keep."""

    dataset = _spider_like(tmp_path / "spider")
    urls = {"sqlite": str(dataset / "database" / "tour" / "tour.sqlite"), "spark": f"spark+local://{tmp_path}/tour"}
    report = load_into(dataset, urls["spark"], db_ids=["tour"])
    assert report.databases[0].error is None
    prompts = {}
    for engine, url in urls.items():
        prompts[engine] = _first_prompt(url, options)
    text = prompts["spark"][1]["content"]
    assert "Singer_ID INTEGER PRIMARY KEY" in text and "Name VARCHAR(20)" in text and "groundsql:" not in text
    assert "FOREIGN KEY (Venue) REFERENCES venue(Code)\n" in text  # declared, though a row breaks it
    assert prompts["spark"] == prompts["sqlite"]
    assert any("recorded for prompts" in c for c in report.databases[0].changes)


@pytest.mark.integration
def test_the_prompt_shows_the_engines_types_in_its_own_dialect(tmp_path: Path) -> None:
    """With the engine's own dialect the copy's prompt keeps the engine's types: only SQLite SQL is asked of the
    schema as SQLite reads it."""
    pytest.importorskip("duckdb")
    from groundsql.api import ask
    from groundsql.models import ScriptedModel

    dataset = _spider_like(tmp_path / "spider")
    url = f"duckdb:///{tmp_path}/tour.duckdb"
    assert load_into(dataset, url, db_ids=["tour"], replace=True).databases[0].error is None
    model = ScriptedModel(default="SELECT COUNT(*) FROM singer")
    ask("How many singers?", url, model=model, preset="baseline", options={"model_dialect": "engine"})
    text = model.calls[0]["messages"][1]["content"]
    assert "Singer_ID BIGINT" in text and "10 | 1 | '2014' | 'ZRH'" in text and "groundsql:" not in text
