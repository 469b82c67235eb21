"""A user's own suite: built from verified examples and marked runs, scored on the live database with each
question's own example left out, compared with the previous run, and a changed database detected. The demo shop
database (SQLite, and a PostgreSQL copy), its knowledge folder, the run store and the scoring are real; the model
is a double that answers from the gold SQL (the real model is in test_suite_e2e.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.api import ask, connect
from groundsql.cli import cli
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.evaluation import build_suite, evaluate, load_suite, run_suite
from groundsql.evaluation.regression import suite_overview, suite_runs
from groundsql.marking import mark_run
from groundsql.models import ScriptedModel
from groundsql.runs import RunStore

from ..conftest import PG_ADMIN_URL, _admin_engine
from .demo_suite import demo_shop, knowledge_questions, oracle

pytestmark = pytest.mark.integration

OPEN_NORTH = "How many orders are still open in the North region?"
REVENUE_2022 = "What was the revenue in calendar year 2022?"


def _asked(store: RunStore, db: Database, question: str, sql: str) -> int:
    answer = ask(question, db, model=ScriptedModel(default=f"```sql\n{sql}\n```"), preset="baseline",
                 catalog=False)
    return store.record(answer, db.display)


@pytest.fixture()
def shop(tmp_path: Path) -> tuple[Database, RunStore, dict[str, str]]:
    """The demo shop with its shipped knowledge folder (2 verified examples) and four marked runs."""
    db = connect(str(demo_shop(tmp_path)))
    store = RunStore(tmp_path / "state" / "runs.sqlite")
    right = _asked(store, db, "How many active customers are there?",
                   "SELECT count(*) FROM customers WHERE status = 'A'")
    corrected = _asked(store, db, "How many customers have churned?", "SELECT count(*) FROM customers")
    no_fix = _asked(store, db, "How many tags are there?", "SELECT 1")
    other = _asked(store, db, OPEN_NORTH, "SELECT count(*) FROM orders")
    mark_run(right, "right", store=store)
    mark_run(corrected, "wrong", sql="SELECT count(*) FROM customers WHERE status = 'C'", store=store)
    mark_run(no_fix, "wrong", store=store)
    mark_run(other, "right", store=store)  # the same question as a verified example, with other SQL
    gold = {"How many active customers are there?": "SELECT count(*) FROM customers WHERE status = 'A'",
            "How many customers have churned?": "SELECT count(*) FROM customers WHERE status = 'C'"}
    return db, store, gold


def test_build_collects_examples_and_marked_runs(shop, tmp_path: Path) -> None:
    db, store, _ = shop
    report = build_suite(db, store=store, out=tmp_path / "shop.json")
    assert (report.questions, report.from_examples, report.from_runs) == (4, 2, 2)
    reasons = {item["question"]: item["reason"] for item in report.skipped}
    assert "without the corrected SQL" in reasons["How many tags are there?"]
    assert "other SQL" in reasons[OPEN_NORTH]
    suite = json.loads((tmp_path / "shop.json").read_text())
    assert suite["format"] == "groundsql-suite" and suite["database"] == db.display and suite["dialect"] == "sqlite"
    assert suite["fingerprint"]["rows"]["customers"] == 240
    by_question = {q["question"]: q for q in suite["questions"]}
    churned = by_question["How many customers have churned?"]
    assert churned["gold_sql"] == "SELECT count(*) FROM customers WHERE status = 'C'"
    assert churned["sources"][0].startswith("run #") and churned["gold"]["row_count"] == 1
    assert by_question[OPEN_NORTH]["sources"][0].startswith("examples.yaml:")
    assert by_question[OPEN_NORTH]["gold"]["rows"][0][0] > 0
    again = build_suite(db, store=store, out=tmp_path / "shop.json")  # a rebuild keeps the ids
    assert [q["id"] for q in json.loads(again.path.read_text())["questions"]] == [q["id"] for q in suite["questions"]]
    other = connect(str(demo_shop(tmp_path / "other")))
    with pytest.raises(ConfigError, match="holds the suite of"):
        build_suite(other, store=store, out=tmp_path / "shop.json")


def test_a_suite_is_scored_leave_one_out_and_compared_with_the_previous_run(shop, tmp_path: Path) -> None:
    db, store, gold = shop
    suite = build_suite(db, store=store, out=tmp_path / "shop.json").path
    for q in json.loads(suite.read_text())["questions"]:
        gold.setdefault(q["question"], q["gold_sql"])
    first_model = oracle(gold, wrong=["How many customers have churned?"], name="first")
    first_dir, first = run_suite(suite, preset="baseline", model=first_model)
    assert first_dir.name.startswith("001-baseline-scripted_first") and first["n"] == 4 and first["correct"] == 3
    assert "regression" not in first
    # no leakage: the two questions that are verified examples never saw their own example in a prompt
    assert first["leave_one_out"] == {"questions": 2, "examples": 2, "knowledge": True}
    records = [json.loads(line) for line in (first_dir / "results.jsonl").read_text().splitlines()]
    assert {r["question"]: r.get("left_out") for r in records}[OPEN_NORTH][0].startswith("examples.yaml:")
    for call in first_model.calls:
        prompt = call["messages"][-1]["content"]
        assert prompt.count("Question: ") >= 1
        asked_now = prompt.rsplit("Question: ", 1)[1].split("\n", 1)[0]
        assert prompt.count(f"Question: {asked_now}") == 1, asked_now
    # ... where the whole folder would have handed the model that very example (so leave-one-out is what kept it out)
    from groundsql.context import Context
    from groundsql.knowledge import load_for, render_context

    whole = render_context(Context(question=OPEN_NORTH, db=db, models={}, knowledge=load_for(db, None)))
    assert f"Question: {OPEN_NORTH}\nSQL:" in whole.knowledge

    second_model = oracle(gold, wrong=["How many active customers are there?"], name="second")
    second_dir, second = run_suite(suite, preset="refine", model=second_model)
    regression = second["regression"]
    assert regression["previous"]["name"] == first_dir.name and regression["common"] == 4
    assert [e["question"] for e in regression["fixed"]] == ["How many customers have churned?"]
    assert [e["question"] for e in regression["broken"]] == ["How many active customers are there?"]
    assert regression["still_right"] == 2 and regression["still_wrong"] == 0
    assert set(regression["cost"]) == {"ex", "tokens_per_question", "llm_calls_per_question", "latency_mean_s",
                                       "latency_p90_s"}
    report = (second_dir / "report.md").read_text()
    assert "## Against the previous run" in report and "**1 fixed**, **1 broken**" in report
    assert "Leave-one-out: each question was asked with its own verified example left out" in report
    assert json.loads((second_dir / "summary.json").read_text())["regression"]["fixed"]
    overview = suite_overview(suite)
    assert [r["name"] for r in overview["runs"]] == [first_dir.name, second_dir.name]
    assert overview["latest"]["name"] == second_dir.name and len(overview["latest"]["answers"]) == 4
    assert overview["regression"]["broken"][0]["question"] == "How many active customers are there?"
    without = evaluate(suite, preset="baseline", model=oracle(gold), options={"knowledge": False},
                       out=tmp_path / "no-knowledge")
    assert without["leave_one_out"] == {"questions": 0, "examples": 0, "knowledge": False}


def test_a_changed_database_is_reported_and_its_changed_gold_not_scored(tmp_path: Path) -> None:
    path = demo_shop(tmp_path)
    db = connect(str(path))
    store = RunStore(tmp_path / "runs.sqlite")
    suite = build_suite(db, store=store, out=tmp_path / "shop.json").path
    gold = {q["question"]: q["gold_sql"] for q in json.loads(suite.read_text())["questions"]}
    db.close()
    with sqlite3.connect(path) as conn:  # the shop moves on: orders of 2022 are archived away
        conn.execute("DELETE FROM order_lines WHERE order_id IN (SELECT order_id FROM orders "
                     "WHERE order_date LIKE '2022-%' OR order_date LIKE '%/2022')")
    _, summary = run_suite(suite, preset="baseline", model=oracle(gold))
    assert summary["suite"]["database_changes"] == [f"order_lines: {_lines(path, before=True)} → "
                                                    f"{_lines(path)} rows"]
    assert summary["excluded"]["by_reason"] == {"gold_changed": 1} and summary["n"] == 1 and summary["ex"] == 100.0
    overview = suite_overview(suite)
    assert overview["runs"][0]["database_changed"] and overview["runs"][0]["excluded"] == 1


def _lines(path: Path, *, before: bool = False) -> int:
    if before:
        from groundsql.demo import generate_demo_database

        fresh = path.with_name("fresh.sqlite")
        generate_demo_database(fresh, seed=7, overwrite=True)
        path = fresh
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM order_lines").fetchone()[0]


def test_cli_builds_runs_and_shows_a_suite(tmp_path: Path, private_state_dir: Path) -> None:
    """The demo shop's 20 knowledge questions as a suite (SQLite), scored twice with their gold SQL as the
    predictions: every question counts and is right, and the second run is compared with the first."""
    path = demo_shop(tmp_path, examples=[(q["question"], q["query"]) for q in knowledge_questions()])
    runner = CliRunner()
    built = runner.invoke(cli, ["eval", "suite", "build", "--db", str(path), "--json"])
    assert built.exit_code == 0, built.output
    suite = Path(json.loads(built.output)["path"])
    assert suite == private_state_dir / "suites" / "demo.json" and json.loads(built.output)["questions"] == 20
    questions = json.loads(suite.read_text())["questions"]
    predictions = tmp_path / "gold.jsonl"
    predictions.write_text("".join(json.dumps({"id": q["id"], "sql": q["gold_sql"]}) + "\n" for q in questions))
    for _ in range(2):
        result = runner.invoke(cli, ["eval", "run", str(suite), "--predictions", str(predictions)])
        assert result.exit_code == 0, result.output
        assert "EX 100.0% (20/20)" in result.output
    assert "0 fixed, 0 broken, 20 still right" in result.output
    assert [d.name for d in suite_runs(suite)] == ["001-predictions", "002-predictions"]
    shown = runner.invoke(cli, ["eval", "suite", "show", str(suite)])
    assert shown.exit_code == 0 and "002-predictions: EX 100.0% (20/20)" in shown.output
    assert "right    q" in shown.output
    refused = runner.invoke(cli, ["eval", "run", str(suite), "--predictions", str(predictions), "--engine",
                                  "duckdb:///x/{db_id}.duckdb"])
    assert refused.exit_code != 0 and "--database" in refused.output


def test_a_suite_on_a_postgresql_copy(tmp_path: Path) -> None:
    """The demo shop copied into PostgreSQL (`evaluation.load`), its 20 knowledge questions as verified examples in
    PostgreSQL's dialect: the suite keeps that gold, scores on the copy, and sees the copy change."""
    import sqlalchemy as sa

    from groundsql.catalog import introspect
    from groundsql.evaluation.load import load_into
    from groundsql.evaluation.transpile import transpile_gold

    admin = _admin_engine(PG_ADMIN_URL)
    name = f"groundsql_test_{uuid.uuid4().hex[:8]}"
    dataset = tmp_path / "dataset"
    sqlite_path = demo_shop(tmp_path)
    (dataset / "database" / "demo").mkdir(parents=True)
    shutil.copy(sqlite_path, dataset / "database" / "demo" / "demo.sqlite")
    (dataset / "dev.json").write_text(json.dumps([{"db_id": "demo", "question": "q", "query": "SELECT 1"}]))
    url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    try:
        report = load_into(dataset, url)
        assert report.databases[0].error is None
        with Database(url) as db:
            tables = introspect(db).tables
            names = {t.name.lower() for t in tables} | {c.name.lower() for t in tables for c in t.columns}
            examples = [(q["question"], transpile_gold(q["query"], "postgres", names)) for q in knowledge_questions()]
            folder = tmp_path / "pg.knowledge"
            folder.mkdir()
            (folder / "examples.yaml").write_text("examples:\n" + "".join(
                f"  - question: {json.dumps(q)}\n    sql: {json.dumps(s)}\n" for q, s in examples))
            built = build_suite(db, folder=folder, store=RunStore(tmp_path / "runs.sqlite"),
                                out=tmp_path / "pg.json")
            assert built.questions == 20, built.skipped
        suite = json.loads(built.path.read_text())
        assert suite["dialect"] == "postgres" and "ILIKE" in " ".join(q["gold_sql"] for q in suite["questions"])
        gold = {q["question"]: q["gold_sql"] for q in suite["questions"]}
        _, summary = run_suite(built.path, preset="baseline", model=oracle(gold), knowledge=str(folder))
        assert summary["n"] == 20 and summary["ex"] == 100.0 and summary["leave_one_out"]["questions"] == 20
        assert summary["suite"]["database_changes"] == []
        driver = url.replace("postgresql://", "postgresql+psycopg://")
        engine = sa.create_engine(driver)
        with engine.begin() as conn:  # one change the row counts show, one only the answers do
            lines = conn.execute(sa.text("SELECT count(*) FROM order_lines")).scalar()
            removed = conn.execute(sa.text("DELETE FROM order_lines WHERE order_id <= 50")).rowcount
            conn.execute(sa.text("UPDATE customers SET status = 'C' WHERE customer_id <= 10 AND status = 'A'"))
        engine.dispose()
        assert load_suite(built.path).suite is not None
        _, changed = run_suite(built.path, preset="baseline", model=oracle(gold))
        assert changed["suite"]["database_changes"] == [f"order_lines: {lines} → {lines - removed} rows"]
        by_reason = changed["excluded"]["by_reason"]
        assert by_reason.get("gold_changed", 0) >= 5, changed["excluded"]
        assert changed["ex"] == 100.0  # the questions whose answer still holds are still scored
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_database_option_is_only_for_suites(spider_dir: Path) -> None:
    with pytest.raises(ConfigError, match="live database of a suite"):
        evaluate(spider_dir, predictions=None, database="x.sqlite", limit=1, model=ScriptedModel(default="x"))


def test_only_a_question_s_own_examples_are_left_out(tmp_path: Path) -> None:
    from groundsql.evaluation.leave_one_out import without_own_examples
    from groundsql.knowledge import load_for

    db = connect(str(demo_shop(tmp_path)))
    knowledge = load_for(db, None)
    same_text, left = without_own_examples(knowledge, "how many orders are STILL open in the north region",
                                           "SELECT 1", "sqlite")
    assert [e.question for e in same_text.examples] == [REVENUE_2022] and left[0].startswith("examples.yaml:")
    assert [e.question for e in knowledge.examples] == [OPEN_NORTH, REVENUE_2022]  # the loaded one is unchanged
    same_sql, _ = without_own_examples(knowledge, "Open orders up north?", knowledge.examples[0].sql, "sqlite")
    assert [e.question for e in same_sql.examples] == [REVENUE_2022]
    unrelated, none = without_own_examples(knowledge, "How many tags are there?", "SELECT count(*) FROM tags",
                                           "sqlite")
    assert unrelated is knowledge and none == []
