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
]


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
        """One run with its trace (decoded), or None."""
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        data = dict(row)
        data["trace"] = json.loads(data["trace"]) if data.get("trace") else []
        return data

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        with self._connect() as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(
                "SELECT id, created_at, question, database, preset, model, sql, ok, error, row_count, "
                "prompt_tokens, completion_tokens, llm_calls, db_queries, elapsed_s FROM runs "
                "ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(r) for r in rows]
