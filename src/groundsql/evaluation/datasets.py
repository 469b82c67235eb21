"""Benchmark question files in Spider and BIRD format, and the filters `groundsql eval` applies to them."""

from __future__ import annotations

import csv
import io
import json
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundsql.errors import ConfigError

log = logging.getLogger("groundsql")

#: Question files tried, in order, when a dataset directory is given.
QUESTION_FILES = ("dev.json", "mini_dev_sqlite.json", "dev_sqlite.json", "questions.json", "train_spider.json")
#: Where a database file may live under a dataset directory.
DATABASE_DIRS = ("database", "dev_databases", "databases", ".")  # ".": <db>/<db>.sqlite beside the file


@dataclass
class Question:
    """One benchmark question. `id` is its `question_id` where the file has one, else its 0-based position."""

    id: int | str
    db_id: str
    question: str
    gold_sql: str
    evidence: str | None = None
    difficulty: str | None = None
    db_path: Path | None = None
    db_url: str | None = None  # where a suite's question runs (a URL or path) when it is not a file under `root`


@dataclass
class Dataset:
    """Questions of one benchmark file plus where its databases live."""

    name: str
    kind: str  # "spider" (result multisets), "bird" (result sets) or "suite" (a user's suite, Spider's rules)
    root: Path
    questions: list[Question] = field(default_factory=list)
    suite: dict[str, Any] | None = None  # a suite file's contents: database, fingerprint, frozen gold results

    def descriptions(self, db_id: str) -> dict[str, dict[str, str]]:
        """BIRD column descriptions, {table: {column: text}}; empty when the dataset has none."""
        return load_descriptions(self.root, db_id)


def load_dataset(path: str | Path, *, kind: str | None = None) -> Dataset:
    """Read a Spider- or BIRD-format question file (a suite file is read by `evaluation.suite.load_suite`).

    Args:
        path: a dataset directory (holding dev.json or mini_dev_sqlite.json) or the question file itself.
        kind: "spider" or "bird"; detected from the file's fields when None.

    Returns:
        The `Dataset`, questions in file order, each with the path of its database file when one exists.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        found = next((path / name for name in QUESTION_FILES if (path / name).is_file()), None)
        if found is None:
            raise ConfigError(f"no question file in {path}; expected one of: {', '.join(QUESTION_FILES)}")
        file, root = found, path
    elif path.is_file():
        file, root = path, path.parent
    else:
        raise ConfigError(f"dataset not found: {path}")
    try:
        records = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {file}: {exc}") from None
    if not isinstance(records, list) or not records:
        raise ConfigError(f"{file} must hold a non-empty JSON list of questions")
    kind = kind or ("bird" if "SQL" in records[0] else "spider")
    if kind not in ("spider", "bird"):
        raise ConfigError(f"unknown dataset kind {kind!r}; use spider or bird")
    questions = [_question(record, position, root) for position, record in enumerate(records)]
    if kind == "spider":
        from groundsql.evaluation.hardness import spider_hardness

        for q in questions:
            if q.difficulty is None:
                q.difficulty = spider_hardness(q.gold_sql)
    return Dataset(name=root.name if file.name in QUESTION_FILES else file.stem, kind=kind, root=root,
                   questions=questions)


def _question(record: dict, position: int, root: Path) -> Question:
    try:
        db_id = record["db_id"]
        text = record["question"]
        gold = record.get("SQL", record.get("query"))
    except (KeyError, TypeError):
        raise ConfigError(f"question {position} lacks db_id or question") from None
    if gold is None:
        raise ConfigError(f"question {position} has no gold SQL (field 'query' or 'SQL')")
    qid = record.get("question_id", position)
    return Question(id=qid, db_id=db_id, question=text, gold_sql=gold, evidence=record.get("evidence") or None,
                    difficulty=record.get("difficulty"), db_path=database_path(root, db_id))


def database_path(root: Path, db_id: str) -> Path | None:
    """The SQLite file of `db_id` under a dataset directory, or None when it is not there."""
    for folder in DATABASE_DIRS:
        for suffix in (".sqlite", ".db"):
            candidate = root / folder / db_id / f"{db_id}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def select(questions: list[Question], *, db: list[str] | None = None, ids: list[str] | None = None,
           sample: int | None = None, seed: int = 0, limit: int | None = None) -> list[Question]:
    """Filter questions: by database, a seeded random sample (kept in file order), then by id, then the first
    `limit`. The database filter and the sample fix a run's set of questions; ids and limit pick among them."""
    chosen = list(questions)
    if db:
        wanted = set(db)
        chosen = [q for q in chosen if q.db_id in wanted]
    if sample is not None and sample < len(chosen):
        keep = set(random.Random(seed).sample(range(len(chosen)), sample))
        chosen = [q for index, q in enumerate(chosen) if index in keep]
    if ids:
        wanted_ids = {str(i).strip() for i in ids}
        chosen = [q for q in chosen if str(q.id) in wanted_ids]
    if limit is not None:
        chosen = chosen[:limit]
    return chosen


def load_descriptions(root: Path, db_id: str) -> dict[str, dict[str, str]]:
    """Read BIRD's `database_description/<table>.csv` files into {table: {column: description}}."""
    folder = next((root / d / db_id / "database_description" for d in DATABASE_DIRS
                   if (root / d / db_id / "database_description").is_dir()), None)
    if folder is None:
        return {}
    tables: dict[str, dict[str, str]] = {}
    for file in sorted(folder.glob("*.csv")):
        raw = file.read_bytes()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        columns: dict[str, str] = {}
        for row in csv.DictReader(io.StringIO(text)):
            name = (row.get("original_column_name") or "").strip()
            if not name:
                continue
            parts = [(row.get("column_description") or "").strip(), (row.get("value_description") or "").strip()]
            columns[name] = " ".join(p for p in parts if p)
        tables[file.stem] = columns
    return tables
