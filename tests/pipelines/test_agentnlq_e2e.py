"""`agentnlq` with the real embedded 0.5B model: `ask --preset agentnlq --verbose` answers end to end and shows
the ledger and each round; the API with the orchestrator and generator roles named explicitly."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from groundsql.api import ask
from tests.conftest import TEST_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

QUESTION = "How many singers are from France?"


def test_ask_verbose_shows_the_ledger_and_each_round(local_model, music_db):
    command = [sys.executable, "-m", "groundsql.cli", "ask", QUESTION, "--db", str(music_db), "--preset",
               "agentnlq", "--model", TEST_MODEL, "--option", "max_attempts=2", "--verbose", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "GROUNDSQL_THREADS": os.environ.get("GROUNDSQL_THREADS", "1")})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["preset"] == "agentnlq" and answer["confidence"] is not None
    assert 1 <= len(answer["candidates"]) <= 2
    assert "agentnlq schema context: full" in done.stderr and "agentnlq task ledger" in done.stderr
    assert "agentnlq attempt 1 · fast ·" in done.stderr and "agentnlq done:" in done.stderr


def test_agentnlq_with_two_roles(local_model, music_db):
    answer = ask(QUESTION, str(music_db), model=local_model, preset="agentnlq",
                 models={"orchestrator": local_model, "generator": local_model},
                 options={"max_attempts": 2, "escalate_after": 1})
    roles = {e.role for e in answer.trace.events if getattr(e, "kind", "") == "model"}
    assert "orchestrator" in roles and roles <= {"orchestrator", "generator"}
    notes = [n["stage"] for n in answer.trace.notes("agentnlq")]
    assert {"schema_context", "task_ledger", "round", "outcome", "progress_ledger"} <= set(notes)
    assert answer.candidates and answer.confidence is not None
    if answer.result is not None:  # the small model usually gets this one; the shape is what we check
        assert answer.result.columns
