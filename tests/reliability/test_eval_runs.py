"""Evaluation runs keep one identity, are validated before anything is written, and survive SIGKILL
(issue defects 12 and 13, and the crash-and-resume part of the fault suite)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groundsql.errors import ConfigError
from groundsql.evaluation import evaluate, load_dataset
from tests.reliability.conftest import REPO, groundsql

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def spider(spider_dir):
    return load_dataset(spider_dir)


def gold_predictions(spider, path: Path, count: int = 60) -> Path:
    path.write_text("".join(json.dumps({"id": q.id, "sql": q.gold_sql}) + "\n" for q in spider.questions[:count]))
    return path


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- 12. every setting that changes the questions or their scoring is the run's identity --------------------

@pytest.mark.parametrize("change", [{"seed": 2}, {"sample": 6}, {"keep_distinct": True}])
def test_resuming_with_other_questions_or_scoring_is_refused(spider, tmp_path: Path, change: dict) -> None:
    preds = gold_predictions(spider, tmp_path / "p.jsonl")
    settings = {"predictions": preds, "out": tmp_path / "run", "sample": 5, "seed": 1, "limit": None}
    first = evaluate(spider, report=False, **settings)
    with pytest.raises(ConfigError, match="different settings"):
        evaluate(spider, report=False, **{**settings, **change})
    assert len(lines(tmp_path / "run" / "results.jsonl")) == first["n"] == 5
    recorded = json.loads((tmp_path / "run" / "run.json").read_text())
    assert recorded["keep_distinct"] is False and recorded["filters"]["sample"] == 5
    assert recorded["filters"]["seed"] == 1


def test_a_larger_limit_extends_a_run_and_each_summary_counts_its_own_questions(spider, tmp_path: Path) -> None:
    preds = gold_predictions(spider, tmp_path / "p.jsonl")
    out = tmp_path / "run"
    assert evaluate(spider, report=False, predictions=preds, out=out, limit=3)["n"] == 3
    assert evaluate(spider, report=False, predictions=preds, out=out, limit=5)["n"] == 5
    assert len(lines(out / "results.jsonl")) == 5
    assert evaluate(spider, report=False, predictions=preds, out=out, limit=2)["n"] == 2  # a subset, reported alone
    assert json.loads((out / "summary.json").read_text())["n"] == 2


def test_the_same_settings_resume_and_an_old_run_json_without_the_new_keys_still_resumes(spider,
                                                                                         tmp_path: Path) -> None:
    preds = gold_predictions(spider, tmp_path / "p.jsonl")
    out = tmp_path / "run"
    evaluate(spider, report=False, predictions=preds, out=out, limit=4)
    config = json.loads((out / "run.json").read_text())
    del config["keep_distinct"]  # written by an older groundsql
    (out / "run.json").write_text(json.dumps(config))
    assert evaluate(spider, report=False, predictions=preds, out=out, limit=4)["n"] == 4
    assert len(lines(out / "results.jsonl")) == 4


# -- 13. validate first, create after; run.json is written atomically and a damaged one is named ------------

def test_a_refused_start_leaves_no_run_directory_behind(spider, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match="GGUF file not found"):
        evaluate(spider, report=False, model=f"local:{tmp_path}/missing.gguf", out=out, limit=2)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 0, "sql": 1}\n')
    with pytest.raises(ConfigError, match="bad.jsonl:1"):
        evaluate(spider, report=False, predictions=bad, out=out, limit=2)
    with pytest.raises(ConfigError, match="--workers"):
        evaluate(spider, report=False, predictions=bad, out=out, limit=2, workers=0)
    assert not out.exists()
    good = gold_predictions(spider, tmp_path / "good.jsonl")
    assert evaluate(spider, report=False, predictions=good, out=out, limit=2)["n"] == 2


@pytest.mark.parametrize("damage", ["", '{"dataset": "x", "pre'])
def test_a_damaged_run_json_is_named(spider, tmp_path: Path, damage: str) -> None:
    preds = gold_predictions(spider, tmp_path / "p.jsonl")
    out = tmp_path / "run"
    evaluate(spider, report=False, predictions=preds, out=out, limit=2)
    (out / "run.json").write_text(damage)
    with pytest.raises(ConfigError, match=r"run\.json is damaged"):
        evaluate(spider, report=False, predictions=preds, out=out, limit=2)
    result = groundsql("eval", "compare", str(out), str(out))
    assert result.returncode == 2 and "run.json is damaged" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_json_and_summary_are_replaced_whole(spider, tmp_path: Path) -> None:
    preds = gold_predictions(spider, tmp_path / "p.jsonl")
    out = tmp_path / "run"
    evaluate(spider, report=False, predictions=preds, out=out, limit=3)
    assert json.loads((out / "run.json").read_text())["filters"]["limit"] == 3
    assert json.loads((out / "summary.json").read_text())["n"] == 3
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


# -- crash and resume: SIGKILL in the middle of an evaluation ------------------------------------------------

@pytest.mark.slow
def test_sigkill_mid_eval_then_resume_loses_and_repeats_nothing(spider_dir: Path, oracle_server,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "run"
    oracle_server.delay_s = 0.25
    args = ["eval", "run", str(spider_dir), "--db", "concert_singer", "--limit", "12", "--preset", "baseline",
            "--model", oracle_server.spec, "--workers", "2", "--out", str(out), "--json"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.Popen([sys.executable, "-m", "groundsql.cli", *args], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            results = out / "results.jsonl"
            if results.exists() and results.read_text().count("\n") >= 3:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the evaluation wrote no results within 60 s")
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    kept = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    assert 3 <= len(kept) < 12
    asked_before = len(oracle_server.times)
    resumed = groundsql(*args, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    records = lines(out / "results.jsonl")
    ids = [r["id"] for r in records]
    assert sorted(ids) == list(range(12)) and len(ids) == len(set(ids))
    assert summary["n"] == 12 and summary["ex"] == 100.0
    # only the unfinished questions were asked again (at most the two in flight were asked twice)
    assert len(oracle_server.times) - asked_before == 12 - len(kept)
    assert len(oracle_server.times) <= 12 + 2


def test_a_model_that_never_answers_costs_each_question_its_deadline_only(spider, tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from tests.reliability.fault_server import FaultServer

    with FaultServer(default="silent") as server:
        started = time.monotonic()
        summary = evaluate(spider, report=False, preset="baseline", model=server.spec, model_timeout_s=1,
                           out=tmp_path / "run", db=["concert_singer"], limit=2)
        elapsed = time.monotonic() - started
    assert summary["n"] == 2 and summary["ex"] == 0.0 and elapsed < 6
    for record in lines(tmp_path / "run" / "results.jsonl"):
        assert "no complete reply within the 1 s model deadline" in record["pipeline_error"]
    assert json.loads((tmp_path / "run" / "run.json").read_text())["model"] == server.spec
