"""The analytics question set (benchmarks/analytics): well-formed, and every gold query runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.db import Database

pytestmark = pytest.mark.integration

QUESTIONS = json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "analytics" / "questions.json").read_text())


def test_the_set_is_in_spider_format() -> None:
    assert len(QUESTIONS) == 30
    assert len({item["question"] for item in QUESTIONS}) == 30
    for item in QUESTIONS:
        assert set(item) == {"db_id", "question", "query"} and item["db_id"] in ("demo", "chinook")


@pytest.mark.parametrize("db_id", ["demo", "chinook"])
def test_every_gold_query_runs(db_id: str, request: pytest.FixtureRequest) -> None:
    path = request.getfixturevalue("demo_db" if db_id == "demo" else "chinook_path")
    with Database(str(path)) as db:
        for item in (q for q in QUESTIONS if q["db_id"] == db_id):
            assert db.execute(item["query"]).row_count >= 1, item["question"]
