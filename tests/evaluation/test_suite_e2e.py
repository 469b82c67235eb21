"""A user's suite scored with the real embedded model (0.5B): built from the demo shop's verified examples, run
twice, each question asked without its own example, the second run compared with the first.

Run under the model lock: flock /tmp/groundsql-model.lock env GROUNDSQL_THREADS=1 pytest -m e2e …"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.db import Database
from groundsql.evaluation import build_suite, run_suite
from groundsql.runs import RunStore

from .demo_suite import demo_shop, knowledge_questions

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_suite_with_the_real_model(local_model, tmp_path: Path) -> None:
    questions = knowledge_questions()[:2]
    path = demo_shop(tmp_path, examples=[(q["question"], q["query"]) for q in questions])
    with Database(str(path)) as db:
        suite = build_suite(db, store=RunStore(tmp_path / "runs.sqlite"), out=tmp_path / "demo.json").path
    first_dir, first = run_suite(suite, preset="baseline", model=local_model)
    assert first["n"] == 2 and first["pipeline_errors"] == 0
    assert first["leave_one_out"] == {"questions": 2, "examples": 2, "knowledge": True}
    records = [json.loads(line) for line in (first_dir / "results.jsonl").read_text().splitlines()]
    assert all(r["sql"].lower().lstrip().startswith(("select", "with")) for r in records), records
    assert all(r["usage"]["llm_calls"] >= 1 and r["left_out"] for r in records)
    second_dir, second = run_suite(suite, preset="baseline", model=local_model, options={"knowledge": False})
    regression = second["regression"]
    assert regression["previous"]["name"] == first_dir.name and regression["common"] == 2
    assert len(regression["fixed"]) + len(regression["broken"]) + regression["still_right"] + \
        regression["still_wrong"] == 2
    assert "Against the previous run" in (second_dir / "report.md").read_text()
