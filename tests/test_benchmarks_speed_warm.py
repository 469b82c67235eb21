"""benchmarks/speed.py's warm-up choice on the open Spider split: other questions of the timed questions' databases,
never a timed one."""

from __future__ import annotations

import pytest

from benchmarks import speed
from groundsql.evaluation.datasets import load_dataset, select


def test_the_warm_up_asks_other_questions_of_the_same_databases() -> None:
    if not (speed.DEFAULT_SPIDER / "dev.json").is_file():
        pytest.skip("the open Spider split (../shared/data/spider) is not here")
    selection = {"sample": 150, "seed": 2026, "ids": None, "limit": 20}
    questions = load_dataset(speed.DEFAULT_SPIDER).questions
    timed = select(select(questions, sample=150, seed=2026), limit=20)
    warm = speed.warm_up_ids(speed.DEFAULT_SPIDER, selection, per_database=2)
    by_id = {str(q.id): q for q in questions}
    databases = {q.db_id for q in timed}
    assert warm and not set(warm) & {str(q.id) for q in timed}
    assert {by_id[i].db_id for i in warm} == databases and len(warm) == 2 * len(databases)


def _label(root, label: str, ids: list[int]) -> None:
    import json

    run = root / label / "baseline"
    run.mkdir(parents=True)
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "llm_calls": 1, "cached_prompt_tokens": 40}
    (run / "results.jsonl").write_text("".join(
        json.dumps({"id": i, "correct": True, "elapsed_s": 1.0 + i, "usage": usage}) + "\n" for i in ids))
    (run / "requests.jsonl").write_text("".join(
        json.dumps({"id": i, "step": "generate", "prompt_s": 0.5, "generation_s": 0.5, "evaluated_tokens": 60,
                    "completion_tokens": 10}) + "\n" for i in ids))


def test_the_report_shows_a_label_on_all_its_questions_beside_the_shared_ones(tmp_path, monkeypatch) -> None:
    _label(tmp_path, "old", [1])
    _label(tmp_path, "new", [1, 2, 3])
    monkeypatch.setattr(speed, "RESULTS", tmp_path)
    speed.cmd_report(None)
    text = (tmp_path / "speed.md").read_text()
    new = text.split("## new", 1)[1].split("## old", 1)[0]
    old = text.split("## old", 1)[1].split("## Where", 1)[0]
    assert "| baseline | 1 |" in new and "| baseline (all its questions) | 3 |" in new
    assert "| baseline | 1 |" in old and "all its questions" not in old


def test_llama_limit_also_times_a_short_tail_read_after_a_cached_prefix(local_model) -> None:
    if not (speed.DEFAULT_SPIDER / "tables.json").is_file():
        pytest.skip("the open Spider split (../shared/data/spider) is not here: too little text for a prefix")
    limit = speed.llama_limit(local_model, prompt_tokens=48, generate_tokens=4, repeats=1, tail_tokens=16,
                              tail_after=96)
    assert (limit["tail_tokens"], limit["tail_after"]) == (16, 96)
    assert limit["tail_tok_s"] > 0 and limit["prompt_tok_s"] > 0 and limit["generation_tok_s"] > 0
    assert len(limit["tail_tok_s_all"]) == 1
