"""Folds by database: stable, every question of a database in one fold, a reproducible stratified sample; and
Spider's training layout (databases beside the question file) loads like a dev split."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from groundsql.evaluation.datasets import load_dataset
from groundsql.evaluation.folds import fold_of, fold_sample


def _training_split(root: Path, databases: int = 12, questions: int = 6) -> Path:
    records = []
    for d in range(databases):
        db = f"db_{d}"
        (root / db).mkdir(parents=True)
        conn = sqlite3.connect(root / db / f"{db}.sqlite")
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.close()
        records += [{"db_id": db, "question": f"q{n} of {db}", "query": "SELECT x FROM t"} for n in range(questions)]
    records.append({"db_id": "missing_db", "question": "a database not here", "query": "SELECT 1"})
    (root / "train_spider.json").write_text(json.dumps(records))
    return root


def test_fold_of_is_a_stable_hash_of_the_database() -> None:
    assert fold_of("concert_singer") == fold_of("concert_singer")
    assert {fold_of(f"db_{i}") for i in range(50)} == {0, 1, 2, 3, 4}


def test_the_sample_is_stratified_reproducible_and_in_file_order(tmp_path: Path) -> None:
    dataset = load_dataset(_training_split(tmp_path))
    assert dataset.name == tmp_path.name and len(dataset.questions) == 73
    sample = fold_sample(dataset, dbs_per_fold=1, per_db=3, seed=7)
    again = fold_sample(dataset, dbs_per_fold=1, per_db=3, seed=7)
    assert [q.id for q in sample] == [q.id for q in again]
    assert [q.id for q in sample] == sorted(q.id for q in sample)
    by_db: dict[str, int] = {}
    for q in sample:
        assert q.db_path is not None and q.db_id != "missing_db"
        by_db[q.db_id] = by_db.get(q.db_id, 0) + 1
    assert set(by_db.values()) == {3}
    folds = [fold_of(db) for db in by_db]
    assert len(folds) == len(set(folds))  # one database from each fold that has one
    assert [q.id for q in fold_sample(dataset, dbs_per_fold=1, per_db=3, seed=8)] != [q.id for q in sample]
