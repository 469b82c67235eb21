"""benchmarks/seed_stages.py: stage-by-stage transitions against one call, and the draft gate, on records of a
real run's shape over a real SQLite database (the gate runs the checks through the guarded database)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import seed_stages

pytestmark = pytest.mark.integration

FRENCH = "SELECT name FROM singer WHERE country = 'France'"
EVERYONE = "SELECT name FROM singer"
NOBODY = "SELECT name FROM singer WHERE country = 'Atlantis'"


def _record(i: int, stages: dict[str, tuple[str, bool]], *, correct: bool) -> dict:
    return {"id": i, "db_id": "music", "question": "Which singers are from France?", "correct": correct,
            "sql": list(stages.values())[-1][0] if stages else "",
            "stages": {name: {"sql": sql, "correct": ok} for name, (sql, ok) in stages.items()}}


def _run(folder: Path, records: list[dict]) -> Path:
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def test_transitions_name_the_questions_a_step_turned_wrong_or_right(tmp_path) -> None:
    preset = {0: _record(0, {"first_query": (FRENCH, True), "final": (EVERYONE, False)}, correct=False),
              1: _record(1, {"first_query": (EVERYONE, False), "final": (FRENCH, True)}, correct=True),
              2: _record(2, {"first_query": (FRENCH, True), "final": (FRENCH, True)}, correct=True)}
    baseline = {i: {"id": i, "correct": i != 1} for i in range(3)}
    result = seed_stages.analyse(preset, baseline)
    assert [s["right"] for s in result["stages"]] == [2, 2]
    step = result["steps"][0]
    assert (step["kept_right"], step["made_wrong"], step["made_right"], step["kept_wrong"]) == (1, [0], [1], 0)
    assert result["stages"][1]["wrong_baseline_right"] == [0] and result["stages"][1]["right_baseline_wrong"] == [1]


def test_the_gate_keeps_a_clean_draft_and_takes_the_final_answer_for_a_flagged_one(tmp_path, music_db) -> None:
    data = tmp_path / "data"
    (data / "database" / "music").mkdir(parents=True)
    (data / "database" / "music" / "music.sqlite").write_bytes(Path(music_db).read_bytes())
    questions = [{"db_id": "music", "question": "Which singers are from France?", "query": FRENCH}] * 2
    (data / "dev.json").write_text(json.dumps(questions))
    preset = {0: _record(0, {"first_query": (FRENCH, True), "final": (EVERYONE, False)}, correct=False),
              1: _record(1, {"first_query": (NOBODY, False), "final": (FRENCH, True)}, correct=True)}
    baseline = {0: {"id": 0, "correct": True}, 1: {"id": 1, "correct": False}}
    flags = seed_stages.draft_flags(preset, data)
    assert flags == {0: {"clean": True, "plain": False}, 1: {"clean": False, "plain": False}}  # no rows: flagged
    clean = next(row for row in seed_stages.gate(preset, baseline, flags) if row["gate"] == "clean")
    assert (clean["kept"], clean["right"], clean["final_right"], clean["won"], clean["lost"]) == (1, 2, 1, [0], [])
    assert (clean["flagged"], clean["flagged_final_right"], clean["flagged_baseline_right"]) == (1, 1, 0)
