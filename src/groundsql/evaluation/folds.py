"""Folds of a benchmark's databases: the place to tune, split so a change can be checked on databases it was not
chosen on. A database's fold is a hash of its id (stable across machines, runs and dataset versions), so a
question never moves between folds and every question of one database sits in the same fold."""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict

from groundsql.evaluation.datasets import Dataset, Question

#: Folds the training databases are split into.
FOLDS = 5


def fold_of(db_id: str, folds: int = FOLDS) -> int:
    """The fold of a database: its id's SHA-256 modulo `folds`."""
    return int(hashlib.sha256(db_id.encode("utf-8")).hexdigest(), 16) % folds


def fold_sample(dataset: Dataset, *, dbs_per_fold: int, per_db: int, seed: int,
                folds: int = FOLDS) -> list[Question]:
    """A reproducible sample stratified by fold: in each fold, `dbs_per_fold` databases drawn at random among
    those with a file and at least `per_db` questions, then `per_db` questions of each; in file order.

    Few databases with many questions each keep an embedded model's prompt cache warm (a new database's schema
    is read once); the folds keep the databases apart for checking a choice where it was not made.
    """
    by_db: dict[str, list[Question]] = defaultdict(list)
    for question in dataset.questions:
        if question.db_path is not None:
            by_db[question.db_id].append(question)
    chosen: list[Question] = []
    for fold in range(folds):
        rng = random.Random(seed * 100 + fold)
        eligible = sorted(db for db, qs in by_db.items() if fold_of(db, folds) == fold and len(qs) >= per_db)
        for db in rng.sample(eligible, min(dbs_per_fold, len(eligible))):
            chosen.extend(rng.sample(by_db[db], per_db))
    order = {id(q): index for index, q in enumerate(dataset.questions)}
    return sorted(chosen, key=lambda q: order[id(q)])
