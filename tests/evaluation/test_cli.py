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


def test_an_id_outside_the_sample_is_refused_not_appended(spider_dir, gold_predictions, tmp_path):
    runner = CliRunner()
    out = tmp_path / "sampled"
    args = ["eval", str(spider_dir), "--predictions", str(gold_predictions), "--sample", "12", "--seed", "3",
            "--out", str(out)]
    assert runner.invoke(cli, args).exit_code == 0
    sampled = [json.loads(line)["id"] for line in (out / "results.jsonl").read_text().splitlines()]
    outside = next(i for i in range(646) if i not in sampled)
    refused = runner.invoke(cli, [*args, "--ids", str(outside)])
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert f"--ids: question {outside} is not among the questions --sample 12 --seed 3 selects" in refused.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 12
    inside = runner.invoke(cli, [*args, "--ids", str(sampled[0]), "--json"])  # ids pick within the sample
    assert inside.exit_code == 0 and json.loads(inside.output)["n"] == 1
    unknown = runner.invoke(cli, ["eval", str(spider_dir), "--predictions", str(gold_predictions), "--ids", "99999"])
    assert unknown.exit_code != 0 and "--ids: no question 99999 in" in unknown.output


def test_a_wrong_typed_prediction_names_the_file_and_line(spider_dir, tmp_path):
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": 0, "sql": "SELECT 1"}) + "\n"
                     + json.dumps({"id": 1, "sql": "SELECT 1", "linked_schema": "singer"}) + "\n")
    result = CliRunner().invoke(cli, ["eval", str(spider_dir), "--predictions", str(preds), "--ids", "0,1",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{preds}:2: 'linked_schema' must be an object of table → list of column names" in result.output
    assert not (tmp_path / "run").exists()


def test_a_model_that_never_answers_fails_the_run_and_says_pipeline_errors(spider_dir, tmp_path, monkeypatch):
    from groundsql.evaluation import runner as eval_runner
    from groundsql.models.scripted import ScriptedModel

    monkeypatch.setattr(eval_runner, "load_model", lambda spec, **options: ScriptedModel(name="silent"))
    args = ["eval", str(spider_dir), "--model", "openai:silent", "--db", "concert_singer", "--limit", "3",
            "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert "pipeline errors: 3 of 3 question(s)" in result.output and "no scripted reply left" in result.output
    assert "every question ended in a pipeline error" in result.output
    as_json = CliRunner().invoke(cli, [*args, "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output.splitlines()[0])["pipeline_errors"] == 3


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
