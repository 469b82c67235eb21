"""`groundsql eval` from the command line: scoring, reports, compare, the large-schema builder."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from groundsql.cli import cli

pytestmark = pytest.mark.integration


@pytest.fixture()
def gold_predictions(spider_dir, tmp_path):
    questions = json.loads((spider_dir / "dev.json").read_text())
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps({"id": i, "sql": q["query"]}) + "\n" for i, q in enumerate(questions)))
    return path


def test_scoring_gold_predictions_reports_100(spider_dir, gold_predictions, tmp_path):
    out = tmp_path / "gold"
    result = CliRunner().invoke(cli, ["eval", str(spider_dir), "--predictions", str(gold_predictions),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "EX 100.0% (646/646)" in result.output
    assert json.loads((out / "summary.json").read_text())["ex"] == 100.0


def test_json_summary_and_compare(spider_dir, gold_predictions, tmp_path):
    runner = CliRunner()
    worse = tmp_path / "worse.jsonl"
    rows = [json.loads(line) for line in gold_predictions.read_text().splitlines()[:10]]
    rows[3]["sql"] = "SELECT 1"
    worse.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for name, preds in (("a", gold_predictions), ("b", worse)):
        result = runner.invoke(cli, ["eval", "run", str(spider_dir), "--predictions", str(preds), "--limit", "10",
                                     "--out", str(tmp_path / name), "--json"])
        assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["n"] == 10 and summary["ex"] == 90.0
    compared = runner.invoke(cli, ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    data = json.loads(compared.output)
    assert data["common"] == 10 and list(data["only"].values()) == [["3"], []]
    text = runner.invoke(cli, ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b")]).output
    assert "only **predictions:gold.jsonl** right (1): 3" in text


def test_user_errors_are_one_line(spider_dir, tmp_path):
    result = CliRunner().invoke(cli, ["eval", str(spider_dir), "--db", "nowhere", "--predictions",
                                      str(tmp_path / "missing.jsonl")])
    assert result.exit_code != 0
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_make_large_schema(spider_dir, tmp_path):
    train = spider_dir.parent / "spider_train"
    if not train.is_dir():
        pytest.skip("spider_train not found")
    out = tmp_path / "large"
    runner = CliRunner()
    result = runner.invoke(cli, ["eval", "make-large-schema", "--out", str(out), "--spider", str(spider_dir),
                                 "--train", str(train)])
    assert result.exit_code == 0, result.output
    assert "(0 dropped)" in result.output
    tables = json.loads((out / "tables.json").read_text())[0]
    assert len(tables["table_names_original"]) > 700
    assert "concert_singer__singer" in tables["table_names_original"]
    questions = json.loads((out / "dev.json").read_text())
    assert len(questions) == 646 and questions[0]["query"].count("concert_singer__singer") == 1
    preds = tmp_path / "large_gold.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "sql": q["query"]}) + "\n" for i, q in enumerate(questions)))
    scored = runner.invoke(cli, ["eval", str(out), "--predictions", str(preds), "--sample", "60", "--json"])
    assert json.loads(scored.output)["ex"] == 100.0
    again = runner.invoke(cli, ["eval", "make-large-schema", "--out", str(out), "--spider", str(spider_dir),
                                "--train", str(train)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_model_for_is_checked_before_any_question(spider_dir, tmp_path):
    runner = CliRunner()
    malformed = runner.invoke(cli, ["eval", str(spider_dir), "--model-for", "orchestrator", "--limit", "1"])
    assert malformed.exit_code == 2 and "expected ROLE=SPEC" in malformed.output
    out = tmp_path / "run"
    unknown = runner.invoke(cli, ["eval", str(spider_dir), "--model-for", "orchestrator=nowhere:model",
                                  "--limit", "1", "--out", str(out)])
    assert unknown.exit_code != 0 and "nowhere" in unknown.output and "Traceback" not in unknown.output
    assert not (out / "results.jsonl").exists()
