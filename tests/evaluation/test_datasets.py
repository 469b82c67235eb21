"""Loading Spider- and BIRD-format question files."""

from __future__ import annotations

import json

import pytest

from groundsql.errors import ConfigError
from groundsql.evaluation import evaluate, load_dataset

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def bird_dir(spider_dir):
    path = spider_dir.parent / "bird_minidev"
    if not (path / "mini_dev_sqlite.json").exists():
        pytest.skip("BIRD mini-dev not found")
    return path


def test_spider_ids_are_positions_and_difficulty_is_hardness(spider_dir):
    data = load_dataset(spider_dir)
    assert data.kind == "spider" and len(data.questions) == 646
    first = data.questions[0]
    assert first.id == 0 and first.db_id == "concert_singer" and first.difficulty == "easy"
    assert first.db_path is not None and first.db_path.exists()


def test_bird_format_keeps_ids_evidence_difficulty_and_descriptions(bird_dir):
    data = load_dataset(bird_dir)
    assert data.kind == "bird" and len(data.questions) == 212
    first = data.questions[0]
    assert first.id == 1471 and first.evidence and first.difficulty == "simple"
    assert first.db_path is None  # the mini-dev ships without its SQLite files
    schools = data.descriptions("california_schools")
    assert "schools" in schools and "CDSCode" in schools["schools"]
    assert any("NCES" in text for text in schools["schools"].values())


def test_bird_gold_predictions_score_100_without_databases(bird_dir, tmp_path):
    questions = json.loads((bird_dir / "mini_dev_sqlite.json").read_text())
    preds = tmp_path / "gold.jsonl"
    preds.write_text("".join(json.dumps({"id": q["question_id"], "sql": q["SQL"]}) + "\n" for q in questions))
    summary = evaluate(bird_dir, predictions=preds, out=tmp_path / "run")
    assert summary["n"] == 212 and summary["ex"] == 100.0
    assert set(summary["by_difficulty"]) == {"simple", "moderate", "challenging"}


def test_unreadable_inputs_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="no question file"):
        load_dataset(tmp_path)
    (tmp_path / "dev.json").write_text("{}")
    with pytest.raises(ConfigError, match="non-empty JSON list"):
        load_dataset(tmp_path)
