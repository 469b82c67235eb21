"""Execution accuracy: run gold and predicted SQL on the question's database and compare their results.

Every statement goes through `Database.execute` (guarded, read-only) with a generous row cap. Wrong answers get
a failure class after AgentNLQ's result codes: malformed, execution_error, empty, superset or wrong.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError

from groundsql.db import Database, Result
from groundsql.errors import DatabaseError, RefusedStatement
from groundsql.evaluation.matching import (
    bird_equal,
    contains_gold,
    has_order_by,
    normalize_operators,
    remove_distinct,
    spider_equal,
)

log = logging.getLogger("groundsql")

SCORING_MAX_ROWS = 100_000
SCORING_TIMEOUT_S = 60.0

#: Failure classes for wrong answers (AgentNLQ RES1, RES2, RES4, RES5, RES6).
FAILURES = ("execution_error", "wrong", "empty", "superset", "malformed")


@dataclass
class Verdict:
    """The outcome of scoring one predicted query."""

    correct: bool
    failure: str | None = None  # one of FAILURES when wrong
    error: str | None = None
    gold_rows: int | None = None
    predicted_rows: int | None = None


class Scorer:
    """Scores predicted SQL against gold SQL; caches open databases and gold results across questions.

    Args:
        rules: "spider" (row multisets, column permutations, DISTINCT removed) or "bird" (row sets).
        keep_distinct: with Spider rules, keep DISTINCT instead of removing it (the evaluator's --keep_distinct).
        timeout_s: time limit per statement.
    """

    def __init__(self, rules: str = "spider", *, keep_distinct: bool = False,
                 timeout_s: float = SCORING_TIMEOUT_S) -> None:
        self.rules = rules
        self.keep_distinct = keep_distinct
        self.timeout_s = timeout_s
        self._databases: dict[Path, Database] = {}
        self._gold: dict[tuple[Path, str], Result | str] = {}
        self._lock = threading.Lock()

    def score(self, db_path: Path | None, gold_sql: str, predicted_sql: str | None) -> Verdict:
        """Score one prediction by executing both queries; without a database file only identical SQL scores."""
        predicted_sql = (predicted_sql or "").strip()
        if not predicted_sql:
            return Verdict(correct=False, failure="malformed", error="no SQL was produced")
        if db_path is None:
            if _same_query(gold_sql, predicted_sql):
                return Verdict(correct=True)
            return Verdict(correct=False, failure="execution_error",
                           error="the database file is not available, so only identical SQL can be scored")
        if not _parses(predicted_sql):
            return Verdict(correct=False, failure="malformed", error="sqlglot cannot parse the predicted SQL")
        gold = self._gold_result(db_path, gold_sql)
        if isinstance(gold, str):
            return Verdict(correct=False, failure="execution_error", error=f"gold SQL failed: {gold}")
        try:
            predicted = self._database(db_path).execute(self._prepare(predicted_sql), max_rows=SCORING_MAX_ROWS,
                                                        timeout_s=self.timeout_s)
        except RefusedStatement as exc:
            return Verdict(correct=False, failure="malformed", error=str(exc), gold_rows=gold.row_count)
        except DatabaseError as exc:
            return Verdict(correct=False, failure="execution_error", error=str(exc), gold_rows=gold.row_count)
        verdict = Verdict(correct=self._equal(gold, predicted, gold_sql), gold_rows=gold.row_count,
                          predicted_rows=predicted.row_count)
        if predicted.truncated or gold.truncated:
            verdict.error = f"a result was cut at {SCORING_MAX_ROWS} rows; the comparison covers only those"
        if not verdict.correct:
            verdict.failure = classify(gold.rows, predicted.rows)
        return verdict

    def close(self) -> None:
        for database in self._databases.values():
            database.close()
        self._databases.clear()

    # -- internals ---------------------------------------------------------------------------------

    def _prepare(self, sql: str) -> str:
        sql = normalize_operators(sql)
        if self.rules == "spider" and not self.keep_distinct:
            sql = remove_distinct(sql)
        return sql

    def _equal(self, gold: Result, predicted: Result, gold_sql: str) -> bool:
        if self.rules == "bird":
            return bird_equal(gold.rows, predicted.rows)
        return spider_equal(gold.rows, predicted.rows, order_matters=has_order_by(gold_sql))

    def _database(self, path: Path) -> Database:
        with self._lock:
            if path not in self._databases:
                self._databases[path] = Database(str(path), timeout_s=self.timeout_s, max_rows=SCORING_MAX_ROWS)
            return self._databases[path]

    def _gold_result(self, path: Path, gold_sql: str) -> Result | str:
        key = (path, gold_sql)
        with self._lock:
            cached = self._gold.get(key)
        if cached is not None:
            return cached
        try:
            result: Result | str = self._database(path).execute(self._prepare(gold_sql), max_rows=SCORING_MAX_ROWS,
                                                                timeout_s=self.timeout_s)
        except DatabaseError as exc:
            log.warning("gold SQL failed on %s: %s", path.name, exc)
            result = str(exc)
        with self._lock:
            self._gold[key] = result
        return result


def classify(gold: list[tuple], predicted: list[tuple]) -> str:
    """The failure class of a wrong but executed answer."""
    if not predicted and gold:
        return "empty"
    if gold and contains_gold(gold, predicted):
        return "superset"
    return "wrong"


def _parses(sql: str) -> bool:
    try:
        return sqlglot.parse_one(sql, read="sqlite") is not None
    except SqlglotError:
        return False


def _same_query(gold: str, predicted: str) -> bool:
    """Identical text (whitespace and a trailing semicolon aside) is trivially the same answer."""
    def fold(sql: str) -> str:
        return " ".join(sql.strip().rstrip(";").split())

    return fold(gold) == fold(predicted)
