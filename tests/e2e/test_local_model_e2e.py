"""End to end with the real embedded 0.5B model: easy Spider questions and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.db import Database
from tests.conftest import TEST_MODEL, spider_db_path

pytestmark = pytest.mark.e2e

#: Five easy open-Spider questions (0-based positions in dev.json), one table each, no ordering subtleties.
EASY_IDS = [0, 17, 45, 171, 613]


def _same_rows(a: list[tuple], b: list[tuple]) -> bool:
    normal = lambda rows: Counter(tuple(round(v, 4) if isinstance(v, float) else v for v in r) for r in rows)  # noqa: E731
    return normal(a) == normal(b)


def test_easy_spider_questions_with_the_small_model(spider_dir: Path, local_model) -> None:
    questions = json.loads((spider_dir / "dev.json").read_text())
    correct = []
    for index in EASY_IDS:
        item = questions[index]
        db = Database(str(spider_db_path(item["db_id"])))
        answer = ask(item["question"], db, model=local_model, preset="refine")
        gold = db.execute(item["query"]).rows
        ok = answer.result is not None and _same_rows(answer.result.rows, gold)
        correct.append(ok)
        assert answer.trace.usage().prompt_tokens > 0
    assert sum(correct) >= 3, f"only {sum(correct)} of 5 easy questions answered correctly: {correct}"


def test_cli_ask_json_on_the_demo_database(demo_db: Path) -> None:
    """The CLI in a child process with the default preset (`auto`, whose end-to-end run with the real model this
    is): one JSON object, the right count, auto's stages."""
    command = [sys.executable, "-m", "groundsql.cli", "ask", "How many products are there?", "--db", str(demo_db),
               "--model", TEST_MODEL, "--json"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)  # exactly one JSON object on stdout
    for key in ("question", "sql", "columns", "rows", "row_count", "truncated", "preset", "model", "elapsed_s"):
        assert key in payload
    assert payload["rows"] == [[16]]
    assert payload["preset"] == "auto" and payload["confidence"] is not None and payload["error"] is None
    assert payload["stages"]["direct"] and payload["stages"]["final"] == payload["sql"]
    usage = payload["usage"]
    assert usage["prompt_tokens"] > 0 and usage["llm_calls"] >= 1 and usage["db_queries"] >= 1


def test_real_model_over_postgresql(postgres_database: str, concert_singer: Path, local_model) -> None:
    from tests.conftest import copy_sqlite_to_server

    copy_sqlite_to_server(concert_singer, postgres_database, tables=["singer"])
    db = Database(postgres_database)
    answer = ask("How many singers are there?", db, model=local_model, preset="refine")
    assert answer.result is not None and answer.result.rows == [(6,)]
    first_call = next(e for e in answer.trace.to_list() if "messages" in e)  # notes (catalog, knowledge) come first
    # model_dialect=sqlite (the default): the model is asked for SQLite SQL, the same question as on SQLite, and
    # the transpile carries it to PostgreSQL
    assert "sqlite" in first_call["messages"][0]["content"].lower()
    answer = ask("How many singers are there?", db, model=local_model, preset="refine",
                 options={"model_dialect": "engine"})
    assert answer.result is not None and answer.result.rows == [(6,)]
    first_call = next(e for e in answer.trace.to_list() if "messages" in e)
    assert "postgres" in first_call["messages"][0]["content"].lower()
