"""A local SQLite log of every answered question: what was asked, which SQL ran, tokens and timings.

Users query it with `groundsql runs` or any SQLite tool. The schema evolves through numbered migrations.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from groundsql.answer import Answer
from groundsql.db.result import json_safe

MIGRATIONS: list[str] = [
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        question TEXT NOT NULL,
        database TEXT NOT NULL,
        preset TEXT,
        model TEXT,
        sql TEXT,
        ok INTEGER NOT NULL,
        error TEXT,
        row_count INTEGER,
        confidence REAL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        llm_calls INTEGER,
        db_queries INTEGER,
        elapsed_s REAL,
        trace TEXT
    )""",
    # 2-3: conversations (multi-turn asking; see groundsql.conversations)
    """CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        database TEXT NOT NULL,
        title TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS conversation_turns (
        id INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        position INTEGER NOT NULL,
        created_at REAL NOT NULL,
        question TEXT NOT NULL,
        standalone TEXT NOT NULL,
        sql TEXT,
        run_id INTEGER,
        columns TEXT,
        preview TEXT,
        row_count INTEGER,
        error TEXT
    )""",
    # 4: marks — a user's verdict on an answer (right, or wrong with the corrected SQL); see groundsql.marking.
    # A marked run is pinned: it feeds the evaluation suite, so pruning must keep it (`PINNED_RUNS`).
    """CREATE TABLE IF NOT EXISTS run_marks (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id),
        verdict TEXT NOT NULL CHECK (verdict IN ('right', 'wrong')),
        corrected_sql TEXT,
        marked_at REAL NOT NULL
    )""",
]

#: Runs that must outlive any retention or pruning: those a user marked (the suite's questions). A condition on
#: `runs.id`, e.g. ``DELETE FROM runs WHERE created_at < ? AND NOT (id IN (SELECT run_id FROM run_marks))``.
PINNED_RUNS = "id IN (SELECT run_id FROM run_marks)"
VERDICTS = ("right", "wrong")


def state_dir() -> Path:
    """GROUNDSQL_STATE_DIR, else ~/.local/share/groundsql."""
    return Path(os.environ.get("GROUNDSQL_STATE_DIR") or Path.home() / ".local" / "share" / "groundsql")


class RunStore:
    """Append-only log of runs in `runs.sqlite` under the state directory."""

    def __init__(self, path: Path | None = None):
        self.path = path or state_dir() / "runs.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._migrate()

    def _migrate(self) -> None:
        """Bring the schema up to date. `BEGIN IMMEDIATE` takes the write lock before the version is read, so
        processes opening a new store at once apply each migration exactly once (the others wait, then see it)."""
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] >= len(MIGRATIONS):
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                for number, statement in enumerate(MIGRATIONS[version:], start=version + 1):
                    conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {number}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def record(self, answer: Answer, database: str) -> int:
        """Store one answer; `database` must already be display-safe (no password)."""
        usage = answer.trace.usage()
        trace = json.dumps(answer.trace.to_list(), default=json_safe)
        with self._connect() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (created_at, question, database, preset, model, sql, ok, error, row_count, "
                "confidence, prompt_tokens, completion_tokens, llm_calls, db_queries, elapsed_s, trace) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (time.time(), answer.question, database, answer.preset, answer.model, answer.sql,
                 int(answer.error is None and answer.result is not None), answer.error,
                 answer.result.row_count if answer.result is not None else None, answer.confidence,
                 usage.prompt_tokens, usage.completion_tokens, usage.llm_calls, usage.db_queries,
                 answer.elapsed_s, trace),
            )
            return int(cursor.lastrowid)

    def get(self, run_id: int) -> dict[str, Any] | None:
        """One run with its trace (decoded) and its mark (None when unmarked), or None."""
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        data = dict(row)
        data["trace"] = json.loads(data["trace"]) if data.get("trace") else []
        data["mark"] = self.mark_of(run_id)
        return data

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest runs (without traces), each with its `mark` verdict (None when unmarked)."""
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(
                "SELECT r.id, r.created_at, r.question, r.database, r.preset, r.model, r.sql, r.ok, r.error, "
                "r.row_count, r.prompt_tokens, r.completion_tokens, r.llm_calls, r.db_queries, r.elapsed_s, "
                "m.verdict AS mark FROM runs AS r LEFT JOIN run_marks AS m ON m.run_id = r.id "
                "ORDER BY r.id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(r) for r in rows]

    # -- marks ------------------------------------------------------------------------------------------

    def set_mark(self, run_id: int, verdict: str, corrected_sql: str | None = None) -> dict[str, Any]:
        """Store (or replace) the user's verdict on run `run_id`; returns the mark. Checking the corrected SQL
        is the caller's job (`groundsql.marking.mark_run` runs it through the guard first)."""
        if verdict not in VERDICTS:
            raise ValueError(f"a mark is one of {VERDICTS}, not {verdict!r}")
        marked_at = time.time()
        with self._connect() as conn:
            conn.execute("INSERT OR REPLACE INTO run_marks (run_id, verdict, corrected_sql, marked_at) "
                         "VALUES (?, ?, ?, ?)", (run_id, verdict, corrected_sql, marked_at))
        return {"run_id": run_id, "verdict": verdict, "corrected_sql": corrected_sql, "marked_at": marked_at}

    def mark_of(self, run_id: int) -> dict[str, Any] | None:
        """The mark of one run, or None."""
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM run_marks WHERE run_id = ?", (run_id,)).fetchone()
        return dict(row) if row is not None else None

    def is_marked(self, run_id: int) -> bool:
        """Whether the user marked the run (a marked run is pinned: pruning keeps it)."""
        return self.mark_of(run_id) is not None

    def marked(self, database: str | None = None) -> list[dict[str, Any]]:
        """Marked runs, oldest first, with their question, SQL, verdict and corrected SQL; only those asked of
        `database` (its display form) when given."""
        query = ("SELECT r.id, r.created_at, r.question, r.database, r.preset, r.model, r.sql, r.ok, r.error, "
                 "m.verdict, m.corrected_sql, m.marked_at FROM runs AS r JOIN run_marks AS m ON m.run_id = r.id")
        params: tuple[Any, ...] = ()
        if database is not None:
            query += " WHERE r.database = ?"
            params = (database,)
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(query + " ORDER BY r.id", params).fetchall()
        return [dict(r) for r in rows]
