"""Marking answers: a user says whether a run's answer was right, or gives the SQL that is.

A mark is stored with the run in the run store (`RunStore.set_mark`); a corrected query is checked first by
running it through `Database.execute` (the guard, read-only, limits), so only SQL that runs is ever kept. A mark
can also become a verified example in the database's knowledge folder (`learn`), and marked runs are the
questions `groundsql eval suite build` collects into an evaluation suite (see docs/evaluation.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot.errors import ParseError, TokenError

from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.runs import VERDICTS, RunStore

#: Rows of the corrected query's result returned with the mark (the check itself runs the whole statement).
CHECK_ROWS = 20


@dataclass(frozen=True)
class MarkOutcome:
    """What marking did: the stored mark, the corrected query's check, and the example added (when asked)."""

    mark: dict[str, Any]
    check: dict[str, Any] | None = None
    learned: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.mark, "check": self.check, "learned": self.learned}


def mark_run(run_id: int, verdict: str, *, sql: str | None = None, db: Database | None = None,
             learn: bool = False, folder: str | Path | None = None, store: RunStore | None = None) -> MarkOutcome:
    """Mark run `run_id` right or wrong, optionally with the corrected SQL, and optionally learn from it.

    Args:
        run_id: the id shown by `groundsql runs` (and returned with every answer).
        verdict: "right" or "wrong".
        sql: for a wrong answer, the query that answers the question; it is run (read-only, guarded) on `db`
            before the mark is stored. The run's own SQL given back counts as no correction.
        db: the run's database (default: reopened from the run's record, which works for database files).
        learn: also add the question with the right SQL (the run's, or the correction) as a verified example.
        folder: the knowledge folder for `learn` (default: the one beside the database).
        store: the run store (default: the user's).

    Returns:
        The `MarkOutcome`.

    Raises:
        ConfigError: no such run, an unknown verdict, or a combination that says nothing (a right answer with
            a correction, a right answer without SQL, learning a wrong answer without a correction).
        DatabaseError: the corrected SQL is refused by the guard or fails on the database.
    """
    store = store or RunStore()
    record = store.get(run_id)
    if record is None:
        raise ConfigError(f"no run #{run_id} in the run store (see `groundsql runs`)")
    if verdict not in VERDICTS:
        raise ConfigError(f"a mark is right or wrong, not {verdict!r}")
    corrected = _clean(sql)
    database = db
    if corrected is not None or learn:
        database = db or Database(record["database"])
    if corrected is not None and record.get("sql") and _same_query(corrected, record["sql"], database):
        corrected = None  # the answer's own SQL handed back (an unedited box): no correction
    if verdict == "right" and corrected is not None:
        raise ConfigError("a right answer needs no corrected SQL; mark it wrong and give the correction")
    if verdict == "right" and not record.get("sql"):
        raise ConfigError(f"run #{run_id} produced no SQL, so it cannot be right; mark it wrong with the "
                          "corrected SQL")
    if learn and verdict == "wrong" and corrected is None:
        raise ConfigError("nothing to learn from a wrong answer without the corrected SQL")
    check = _check(corrected, database) if corrected is not None else None
    mark = store.set_mark(run_id, verdict, corrected)
    learned = None
    if learn:
        from groundsql.knowledge.store import add_example, default_folder

        assert database is not None
        added = add_example(folder or default_folder(database), record["question"], corrected or record["sql"],
                            database)
        learned = {"added": added.added, "path": str(added.path), "reason": added.reason}
    return MarkOutcome(mark=mark, check=check, learned=learned)


def _check(sql: str, db: Database | None) -> dict[str, Any]:
    """Run the corrected query through the guard and limits; its columns and first rows."""
    assert db is not None
    result = db.execute(sql, max_rows=CHECK_ROWS)
    return {"columns": list(result.columns), "rows": result.to_dict()["rows"], "row_count": result.row_count,
            "truncated": result.truncated}


def _clean(sql: str | None) -> str | None:
    text = (sql or "").strip().rstrip(";").strip()
    return text or None


def _same_query(a: str, b: str, db: Database | None) -> bool:
    dialect = db.dialect if db is not None else None
    try:
        return sqlglot.parse_one(a, read=dialect) == sqlglot.parse_one(b, read=dialect)
    except (ParseError, TokenError):
        return " ".join(a.split()) == " ".join(b.split())
