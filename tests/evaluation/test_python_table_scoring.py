"""Evaluation of `prospy` answers computed in Python: the final table is scored (not the views' SQL), on real
SQLite, with answers made by the real Python stage and sandbox and a scripted model for control flow."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from groundsql.analysis.python_stage import read_result
from groundsql.evaluation import Scorer, evaluate
from groundsql.evaluation.report import write_report
from groundsql.models.scripted import ScriptedModel
from tests.analysis.test_python_stage import SALES  # the same view over the music database
from tests.conftest import make_music_db

pytestmark = pytest.mark.integration
pytest.importorskip("pandas", reason="the Python stage needs pandas (pip install 'groundsql[analysis]')")

SHARE_GOLD = ("SELECT s.name, ROUND(SUM(g.sales) / (SELECT SUM(sales) FROM song), 3) AS share FROM song g "
              "JOIN singer s ON s.singer_id = g.singer_id GROUP BY s.name ORDER BY share DESC")
TOTAL_GOLD = "SELECT s.name, SUM(g.sales) FROM song g JOIN singer s ON s.singer_id = g.singer_id GROUP BY s.name"


def code(body: str) -> str:
    return f"```python\nimport pandas as pd\ndf = pd.read_csv('singer_sales.csv')\n{body}\n```"


SHARES = code("df['share'] = (df.total / df.total.sum()).round(3)\n"
              "df.sort_values('share', ascending=False)[['name', 'share']].to_csv('result.csv', index=False)")
SHARES_ASCENDING = code("df['share'] = (df.total / df.total.sum()).round(3)\n"
                        "df.sort_values('share')[['name', 'share']].to_csv('result.csv', index=False)")
SHARES_UNROUNDED = code("df['share'] = df.total / df.total.sum()\n"
                        "df.sort_values('share', ascending=False)[['name', 'share']].to_csv('result.csv', index=False)")
BOOM = "```python\nraise ValueError('nope')\n```"


@pytest.fixture(autouse=True)
def private_catalog_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path / "catalogs"))


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    """A Spider-format dataset over the music database: a share question (ordered) and a totals question."""
    root = tmp_path / "music_set"
    (root / "database" / "music").mkdir(parents=True)
    make_music_db(root / "database" / "music" / "music.sqlite")
    questions = [{"db_id": "music", "question": "What share of sales does each singer have? Largest first.",
                  "query": SHARE_GOLD},
                 {"db_id": "music", "question": "Total song sales per singer.", "query": TOTAL_GOLD}]
    (root / "dev.json").write_text(json.dumps(questions))
    return root


def run_one(dataset: Path, out: Path, question: int, replies: list[str], **options) -> tuple[dict, dict]:
    summary = evaluate(dataset, preset="prospy", model=ScriptedModel(replies), out=out, ids=[str(question)],
                       options=options, report=False)
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return record, summary


def batch(*views: dict, answer: str | None = None) -> str:
    return json.dumps({"thought": "", "views": list(views), "done": True, "answer_view": answer})


def test_a_right_python_table_scores_right_though_its_views_alone_are_wrong(dataset: Path, tmp_path: Path) -> None:
    record, summary = run_one(dataset, tmp_path / "run", 0, ["plan", batch(SALES), SHARES])
    assert record["scored"] == "python_table"
    assert record["correct"] is True and record["failure"] is None
    assert record["sql"].startswith("-- view singer_sales")
    # the view (name, total) is not the answer; scored as SQL it is wrong, and the ablation shows the step
    assert record["stages"] == {"view": {"sql": record["stages"]["view"]["sql"], "correct": False},
                                "python": {"sql": None, "correct": True}}
    python = record["python"]
    assert (python["ran"], python["attempts"], python["ok"], python["problem"]) == (True, 1, True, None)
    assert "singer_sales.csv" in python["code"]  # the code the answer came from, kept for reading it later
    assert summary["ex"] == 100.0
    assert summary["python_stage"] == {"answers": 1, "ran": 1, "ok": 1, "scored": 1, "correct": 1}
    assert summary["stages"] == {"view": {"n": 1, "ex": 0.0}, "python": {"n": 1, "ex": 100.0}}
    report = write_report(tmp_path / "run").read_text()
    assert "## Python stage" in report and "| 1 (100%) | 1 (100%) | 1 | 1 (100%) |" in report


def test_a_wrong_python_table_scores_wrong_though_its_view_alone_is_right(dataset: Path, tmp_path: Path) -> None:
    # question 1's gold is the view's own result (totals), but the Python stage turned it into shares
    record, summary = run_one(dataset, tmp_path / "run", 1, ["plan", batch(SALES), SHARES], python="always")
    assert record["scored"] == "python_table"
    assert record["correct"] is False and record["failure"] == "wrong"
    assert record["stages"]["view"]["correct"] is True and record["stages"]["python"]["correct"] is False
    assert Scorer().score(dataset / "database" / "music" / "music.sqlite", TOTAL_GOLD,
                          record["stages"]["view"]["sql"]).correct
    assert summary["python_stage"]["correct"] == 0


@pytest.mark.parametrize("wrong", [SHARES_ASCENDING, SHARES_UNROUNDED], ids=["order", "rounding"])
def test_order_and_rounding_follow_the_gold(dataset: Path, tmp_path: Path, wrong: str) -> None:
    record, _ = run_one(dataset, tmp_path / "run", 0, ["plan", batch(SALES), wrong])
    assert record["scored"] == "python_table" and record["correct"] is False


def test_when_python_fails_the_view_s_sql_is_scored_as_before(dataset: Path, tmp_path: Path) -> None:
    record, summary = run_one(dataset, tmp_path / "run", 1, ["plan", batch(SALES), BOOM, BOOM, BOOM],
                              python="always")  # a totals question: python=auto would not run the stage
    assert "scored" not in record and record["correct"] is True  # the fallback view answers the totals question
    python = record["python"]
    assert (python["ran"], python["attempts"], python["ok"]) == (True, 3, False)
    assert "nope" in python["problem"]  # the last attempt's failure, as the trace noted it
    assert list(record["stages"]) == ["view"]
    assert summary["python_stage"] == {"answers": 1, "ran": 1, "ok": 0, "scored": 0, "correct": 0}


def test_when_a_view_answers_python_does_not_run(dataset: Path, tmp_path: Path) -> None:
    record, summary = run_one(dataset, tmp_path / "run", 1, ["plan", batch(SALES, answer="singer_sales")],
                              draft=False)  # the paper's path: the view answers
    assert "scored" not in record and record["correct"] is True
    assert record["python"] == {"ran": False, "attempts": 0, "ok": False, "code": None, "problem": None}
    assert summary["python_stage"]["ran"] == 0


def test_tables_are_compared_as_csv_carries_them(tmp_path: Path) -> None:
    """Gold text that spells a number (a year from strftime) meets the CSV's number; float noise is ignored;
    order counts only under ORDER BY."""
    db = tmp_path / "sales.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE sale (day TEXT, amount REAL);"
                       "INSERT INTO sale VALUES ('2009-01-02', 0.1), ('2009-05-01', 0.2), ('2010-03-03', 1.5);")
    conn.commit()
    conn.close()
    gold = "SELECT strftime('%Y', day) AS yr, SUM(amount) AS total FROM sale GROUP BY yr"
    scorer = Scorer()
    try:
        table, problem = read_result(b"yr,total\n2010,1.5\n2009,0.30000000000000004\n")
        assert problem is None
        assert scorer.score_table(db, gold, table).correct  # no ORDER BY: any row order
        assert not scorer.score_table(db, gold + " ORDER BY yr", table).correct
        table, _ = read_result(b"year,total\n2009,0.3\n2010,1.5\n")
        assert scorer.score_table(db, gold + " ORDER BY yr", table).correct
        table, _ = read_result(b"year,total\n2009,0.3\n")
        verdict = scorer.score_table(db, gold, table)
        assert not verdict.correct and verdict.failure == "wrong" and verdict.gold_rows == 2
        assert scorer.score_table(db, gold, None).failure == "malformed"
    finally:
        scorer.close()
