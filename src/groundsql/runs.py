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
]


def state_dir() -> Path:
    """GROUNDSQL_STATE_DIR, else ~/.local/share/groundsql."""
    return Path(os.environ.get("GROUNDSQL_STATE_DIR") or Path.home() / ".local" / "share" / "groundsql")


class RunStore:
    """Append-only log of runs in `runs.sqlite` under the state directory."""

    def __init__(self, path: Path | None = None):
        self.path = path or state_dir() / "runs.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number, statement in enumerate(MIGRATIONS[version:], start=version + 1):
                conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

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
        """One run (without its trace) by id, or None."""
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute(
                "SELECT id, created_at, question, database, preset, model, sql, ok, error, row_count FROM runs "
                "WHERE id = ?", (run_id,)).fetchone()
        return dict(row) if row is not None else None

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(
                "SELECT id, created_at, question, database, preset, model, sql, ok, error, row_count, "
                "prompt_tokens, completion_tokens, llm_calls, db_queries, elapsed_s FROM runs "
                "ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(r) for r in rows]
