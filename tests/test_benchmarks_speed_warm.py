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
