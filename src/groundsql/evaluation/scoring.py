"""Execution accuracy: run gold and predicted SQL on the question's database and compare their results.

Every statement goes through `Database.execute` (guarded, read-only) with a generous row cap, and is read in the
dialect of the database it runs on (a SQLite file, or a copy in PostgreSQL, MariaDB, DuckDB or Spark). Wrong
answers get a failure class after AgentNLQ's result codes: malformed, execution_error, empty, superset or wrong.
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError

from groundsql.db import Database, Result
from groundsql.db.result import value_from_text
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
        self._databases: dict[str, Database] = {}
        self._gold: dict[tuple[str, str], Result | str] = {}
        self._lock = threading.Lock()

    def score(self, db_path: Path | str | None, gold_sql: str, predicted_sql: str | None) -> Verdict:
        """Score one prediction by executing both queries; without a database only identical SQL scores.

        Args:
            db_path: the question's SQLite file, or the URL of its copy in another engine.
            gold_sql: the gold query, written in that database's dialect.
            predicted_sql: the prediction, read in that database's dialect.
        """
        predicted_sql = (predicted_sql or "").strip()
        if not predicted_sql:
            return Verdict(correct=False, failure="malformed", error="no SQL was produced")
        if db_path is None:
            if _same_query(gold_sql, predicted_sql):
                return Verdict(correct=True)
            return Verdict(correct=False, failure="execution_error",
                           error="the database file is not available, so only identical SQL can be scored")
        try:
            database = self._database(db_path)
        except DatabaseError as exc:
            return Verdict(correct=False, failure="execution_error", error=str(exc))
        if not _parses(predicted_sql, database.dialect):
            return Verdict(correct=False, failure="malformed", error="sqlglot cannot parse the predicted SQL")
        gold = self._gold_result(db_path, gold_sql)
        if isinstance(gold, str):
            return Verdict(correct=False, failure="execution_error", error=f"gold SQL failed: {gold}")
        try:
            predicted = database.execute(self._prepare(predicted_sql, database.dialect), max_rows=SCORING_MAX_ROWS,
                                         timeout_s=self.timeout_s)
        except RefusedStatement as exc:
            return Verdict(correct=False, failure="malformed", error=str(exc), gold_rows=gold.row_count)
        except DatabaseError as exc:
            return Verdict(correct=False, failure="execution_error", error=str(exc), gold_rows=gold.row_count)
        verdict = Verdict(correct=self.equal(gold, predicted, gold_sql, database.dialect), gold_rows=gold.row_count,
                          predicted_rows=predicted.row_count)
        if predicted.truncated or gold.truncated:
            verdict.error = f"a result was cut at {SCORING_MAX_ROWS} rows; the comparison covers only those"
        if not verdict.correct:
            verdict.failure = classify(gold.rows, predicted.rows)
        return verdict

    def score_table(self, db_path: Path | str | None, gold_sql: str, table: Result | None) -> Verdict:
        """Score a final table the answer computed outside SQL (the `prospy` Python stage) against the gold
        result, with the rules `score` applies to a query's result (rows, column permutations, order only when
        the gold has ORDER BY).

        The table was read back from CSV, so both sides are compared as CSV carries them: the gold's text cells
        that spell numbers become numbers, and numbers are rounded to 4 places (`comparable`), as pandas and
        SQLite may sum floats in a different order.
        """
        if table is None:
            return Verdict(correct=False, failure="malformed", error="the answer has no final table")
        if db_path is None:
            return Verdict(correct=False, failure="execution_error",
                           error="the database file is not available, so the gold result cannot be computed")
        try:
            database = self._database(db_path)
        except DatabaseError as exc:
            return Verdict(correct=False, failure="execution_error", error=str(exc))
        gold = self._gold_result(db_path, gold_sql)
        if isinstance(gold, str):
            return Verdict(correct=False, failure="execution_error", error=f"gold SQL failed: {gold}")
        gold_rows = comparable([tuple(_as_csv_value(v) for v in row) for row in gold.rows])
        table_rows = comparable([tuple(row) for row in table.rows])
        verdict = Verdict(correct=self._match(gold_rows, table_rows, gold_sql, database.dialect),
                          gold_rows=gold.row_count, predicted_rows=table.row_count)
        if not verdict.correct:
            verdict.failure = classify(gold_rows, table_rows)
        return verdict

    def close(self) -> None:
        for database in self._databases.values():
            database.close()
        self._databases.clear()

    # -- internals ---------------------------------------------------------------------------------

    def equal(self, gold: Result, predicted: Result, gold_sql: str, dialect: str = "sqlite") -> bool:
        """Whether two results are the same answer under the rules; across engines numbers are compared after
        `comparable` (a PostgreSQL NUMERIC average and a SQLite REAL one are the same value)."""
        gold_rows, predicted_rows = gold.rows, predicted.rows
        if dialect != "sqlite":
            gold_rows, predicted_rows = comparable(gold_rows), comparable(predicted_rows)
        return self._match(gold_rows, predicted_rows, gold_sql, dialect)

    def _match(self, gold_rows: list[tuple], predicted_rows: list[tuple], gold_sql: str, dialect: str) -> bool:
        if self.rules == "bird":
            return bird_equal(gold_rows, predicted_rows)
        return spider_equal(gold_rows, predicted_rows, order_matters=has_order_by(gold_sql, dialect))

    def prepare(self, sql: str, dialect: str = "sqlite") -> str:
        """The statement as the rules run it (operators joined; DISTINCT removed under Spider rules)."""
        return self._prepare(sql, dialect)

    def _prepare(self, sql: str, dialect: str = "sqlite") -> str:
        sql = normalize_operators(sql)
        if self.rules == "spider" and not self.keep_distinct:
            sql = remove_distinct(sql, dialect)
        return sql

    def _database(self, location: Path | str) -> Database:
        key = str(location)
        with self._lock:
            if key not in self._databases:
                self._databases[key] = Database(key, timeout_s=self.timeout_s, max_rows=SCORING_MAX_ROWS)
            return self._databases[key]

    def gold_result(self, location: Path | str, gold_sql: str) -> Result | str:
        """The gold query's result on the database at `location` (cached), or its error message."""
        return self._gold_result(location, gold_sql)

    def _gold_result(self, location: Path | str, gold_sql: str) -> Result | str:
        key = (str(location), gold_sql)
        with self._lock:
            cached = self._gold.get(key)
        if cached is not None:
            return cached
        try:
            database = self._database(location)
            result: Result | str = database.execute(self._prepare(gold_sql, database.dialect),
                                                    max_rows=SCORING_MAX_ROWS, timeout_s=self.timeout_s)
        except DatabaseError as exc:
            log.warning("gold SQL failed on %s: %s", Path(str(location)).name, exc)
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


def comparable(rows: list[tuple]) -> list[tuple]:
    """Rows with engine-specific value types made comparable: exact decimals and floats rounded to 4 places
    (MariaDB divides to 4 decimals; integral values become ints), dates and times as ISO text, booleans as 0/1."""
    return [tuple(_comparable(v) for v in row) for row in rows]


def _comparable(value: object) -> object:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (decimal.Decimal, float)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return number
        rounded = round(number, 4)
        return int(rounded) if rounded == int(rounded) else rounded
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def _as_csv_value(value: object) -> object:
    """A gold cell as it reads back from CSV (text that spells a number is that number; "" is NULL)."""
    return value_from_text(value) if isinstance(value, str) else value


def _parses(sql: str, dialect: str = "sqlite") -> bool:
    try:
        return sqlglot.parse_one(sql, read=dialect) is not None
    except SqlglotError:
        return False


def _same_query(gold: str, predicted: str) -> bool:
    """Identical text (whitespace and a trailing semicolon aside) is trivially the same answer."""
    def fold(sql: str) -> str:
        return " ".join(sql.strip().rstrip(";").split())

    return fold(gold) == fold(predicted)
