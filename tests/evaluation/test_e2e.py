"""One real question through the real embedded model, scored and reported."""

from __future__ import annotations

import json

import pytest

from groundsql.evaluation import evaluate

pytestmark = pytest.mark.e2e


def test_real_model_run_records_usage_and_latency(spider_dir, local_model, tmp_path):
    summary = evaluate(spider_dir, preset="baseline", model=local_model, out=tmp_path, ids=["0"])
    record = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert record["sql"].strip().upper().startswith("SELECT")
    assert record["usage"]["llm_calls"] >= 1 and record["usage"]["prompt_tokens"] > 100
    assert record["elapsed_s"] > 0 and summary["latency_s"]["p50"] > 0
    assert summary["n"] == 1 and summary["ex"] in (0.0, 100.0)
    assert (tmp_path / "report.md").exists()
