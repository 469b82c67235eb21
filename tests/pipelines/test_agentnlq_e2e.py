"""`agentnlq` with the real embedded 0.5B model: `ask --preset agentnlq --verbose --json --trace` answers end to
end, shows the ledger and each round, and calls the orchestrator and generator roles named with `--model-for`.

One run for both: the API's `models=` path under the CLI's `--model-for` is the scripted tests' subject
(tests/pipelines/test_auto.py); a second real-model run of the same question (the API with the two roles) proved
nothing this one does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import TEST_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

QUESTION = "How many singers are from France?"


def test_ask_verbose_shows_the_ledger_each_round_and_the_named_roles(local_model, music_db):
    command = [sys.executable, "-m", "groundsql.cli", "ask", QUESTION, "--db", str(music_db), "--preset",
               "agentnlq", "--model", TEST_MODEL, "--model-for", f"orchestrator={TEST_MODEL}",
               "--model-for", f"generator={TEST_MODEL}", "--option", "draft=false", "--option", "max_attempts=2",
               "--option", "escalate_after=1", "--verbose", "--json", "--trace"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "GROUNDSQL_THREADS": os.environ.get("GROUNDSQL_THREADS", "1")})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["preset"] == "agentnlq" and answer["confidence"] is not None
    assert 1 <= len(answer["candidates"]) <= 2
    if answer["rows"]:  # the small model usually gets this one; the shape is what we check
        assert answer["columns"]
    assert "agentnlq schema context: full" in done.stderr and "agentnlq task ledger" in done.stderr
    assert "agentnlq attempt 1 · fast ·" in done.stderr and "agentnlq done:" in done.stderr
    roles = {e["role"] for e in answer["trace"] if e["kind"] == "model"}
    assert "orchestrator" in roles and roles <= {"orchestrator", "generator"}
    stages = {e["data"].get("stage") for e in answer["trace"] if e["kind"] == "note" and e["step"] == "agentnlq"}
    assert {"schema_context", "task_ledger", "round", "outcome", "progress_ledger"} <= stages


def test_by_default_a_plain_draft_comes_first_and_the_loops_run_only_when_it_is_flagged(local_model, music_db):
    command = [sys.executable, "-m", "groundsql.cli", "ask", QUESTION, "--db", str(music_db), "--preset",
               "agentnlq", "--model", TEST_MODEL, "--option", "max_attempts=2", "--json", "--trace"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "GROUNDSQL_THREADS": os.environ.get("GROUNDSQL_THREADS", "1")})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    steps = [e["step"] for e in answer["trace"] if e["kind"] == "model"]
    assert steps[0] == "agentnlq:draft"
    kept = next(e["data"]["kept"] for e in answer["trace"] if e["kind"] == "note" and e["step"] == "draft")
    stages = {e["data"].get("stage") for e in answer["trace"] if e["kind"] == "note" and e["step"] == "agentnlq"}
    if kept:  # the draft settled: it is the answer, one model call, no fact sheet
        assert steps == ["agentnlq:draft"] and "task_ledger" not in stages and answer["rows"]
    else:  # flagged: the paper's path answers after it
        assert "task_ledger" in stages and len(steps) > 1
