"""A local SQLite log of every answered question: what was asked, which SQL ran, tokens and timings.

Users query it with `groundsql runs` or any SQLite tool. The schema evolves through numbered migrations.

The store stays bounded (`Retention`: runs by age, count and size, conversations by idle age and count, pruned
as runs are recorded and by `groundsql runs prune`), and traces are stored compactly: each trace is
zlib-compressed JSON (`trace_z`), and the long blocks of its prompts (a schema, the rules) are stored once in
`prompt_blocks` and referenced by hash, so the same schema asked about a thousand times is kept once. Runs
written before migration 5 keep their plain `trace` and still read; `runs prune` compacts them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import random
import shutil
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from groundsql.answer import Answer
from groundsql.db.result import json_safe
from groundsql.errors import ConfigError

log = logging.getLogger("groundsql")

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
    # 5-10: compact traces (compressed, prompt blocks stored once) and the indexes retention needs
    "ALTER TABLE runs ADD COLUMN trace_z BLOB",
    """CREATE TABLE IF NOT EXISTS prompt_blocks (
        hash TEXT PRIMARY KEY,
        text BLOB NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS run_prompt_blocks (
        run_id INTEGER NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (run_id, hash)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS run_prompt_blocks_hash ON run_prompt_blocks (hash)",
    "CREATE INDEX IF NOT EXISTS runs_created_at ON runs (created_at)",
    "CREATE INDEX IF NOT EXISTS conversation_turns_run ON conversation_turns (run_id)",
    # 11-14: conversation retention (a conversation's last activity) and its turns found without a table scan
    "ALTER TABLE conversations ADD COLUMN active_at REAL",
    """UPDATE conversations SET active_at = coalesce((SELECT max(t.created_at) FROM conversation_turns AS t
        WHERE t.conversation_id = conversations.id), created_at)""",
    "CREATE INDEX IF NOT EXISTS conversations_active_at ON conversations (active_at)",
    "CREATE INDEX IF NOT EXISTS conversation_turns_conversation ON conversation_turns (conversation_id, position)",
]

#: Runs that must outlive any retention or pruning: those a user marked (the suite's questions). A condition on
#: `runs.id`, e.g. ``DELETE FROM runs WHERE created_at < ? AND NOT (id IN (SELECT run_id FROM run_marks))``.
PINNED_RUNS = "id IN (SELECT run_id FROM run_marks)"
#: Runs that pruning keeps: the marked ones, and those a conversation's turn points at (its history stays whole).
KEPT_RUNS = f"({PINNED_RUNS} OR id IN (SELECT run_id FROM conversation_turns WHERE run_id IS NOT NULL))"
VERDICTS = ("right", "wrong")

#: Environment variables that set the retention of every store a process opens (0 or "none": no limit).
RETENTION_ENV = {"max_age_days": "GROUNDSQL_RUNS_MAX_AGE_DAYS", "max_runs": "GROUNDSQL_RUNS_MAX_RUNS",
                 "max_mb": "GROUNDSQL_RUNS_MAX_MB",
                 "conversations_max_age_days": "GROUNDSQL_CONVERSATIONS_MAX_AGE_DAYS",
                 "max_conversations": "GROUNDSQL_CONVERSATIONS_MAX"}
#: A conversation with a turn (or an ask begun) this recently is in use: no retention limit deletes it.
CONVERSATION_GRACE_S = 3600.0
#: When a conversation was last in use: its last turn, the start of its last ask, or its creation.
_ACTIVE = "coalesce(active_at, created_at)"
#: Records between two retention checks of one store (the first record of a process checks too).
CHECK_EVERY = 200
#: Pruning goes this far below a count or size limit, so that it runs now and then rather than on every check.
PRUNE_TO = 0.9
#: A prompt block at least this long is stored once and referenced; shorter text stays inline.
MIN_BLOCK_CHARS = 200
#: Free space on the store's disk below which every check warns.
LOW_DISK_MB = 1024
#: The write-ahead log is truncated to this size after each checkpoint.
WAL_LIMIT_BYTES = 16 * 1024 * 1024
#: Connections one store keeps open, whatever the number of threads using it (more callers wait their turn).
POOL_SIZE = 4
#: Page cache of each pooled connection in KiB (SQLite's default is 2 MiB): appends and small reads need little.
CACHE_KIB = 512
#: The least time between two warnings of one kind from one store.
WARN_EVERY_S = 600.0


class Retention(BaseModel):
    """How much of the run store is kept; None (or 0 in the environment) turns a limit off.

    Runs past any limit are deleted oldest first, except the runs a user marked (the evaluation suite's
    questions) and the runs a conversation's turn points at. Conversations past theirs are deleted least recently
    used first, with their turns (their runs then age like any other), except one used in the last
    `CONVERSATION_GRACE_S`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_age_days: float | None = Field(90.0, description="Runs older than this many days are deleted.")
    max_runs: int | None = Field(100_000, description="At most this many runs are kept.")
    max_mb: float | None = Field(500.0, description="The store's live data is kept under this many megabytes.")
    conversations_max_age_days: float | None = Field(
        90.0, description="Conversations not used for this many days are deleted with their turns.")
    max_conversations: int | None = Field(
        10_000, description="At most this many conversations are kept, the most recently used.")

    @classmethod
    def from_env(cls, **overrides: Any) -> Retention:
        """The defaults, overridden by GROUNDSQL_RUNS_MAX_AGE_DAYS / _MAX_RUNS / _MAX_MB, then by `overrides`
        (those given as None are left to the environment and defaults)."""
        values: dict[str, Any] = {}
        for name, variable in RETENTION_ENV.items():
            raw = os.environ.get(variable, "").strip()
            if raw:
                values[name] = _limit(raw, variable)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**{k: (None if v == 0 else v) for k, v in values.items()})


def _limit(raw: str, variable: str) -> float | None:
    if raw.lower() in ("none", "off"):
        return None
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"{variable} must be a number (0 or none: no limit), not {raw!r}") from None


@dataclass
class PruneReport:
    """What one pruning deleted and what the store holds after it."""

    by_age: int = 0
    by_count: int = 0
    by_size: int = 0
    compacted: int = 0
    runs: int = 0
    kept: int = 0  # marked runs and those conversations point at: never pruned
    conversations_by_age: int = 0
    conversations_by_count: int = 0
    conversations: int = 0  # left after pruning
    mb_before: float = 0.0
    mb_after: float = 0.0
    file_mb: float = 0.0

    @property
    def deleted(self) -> int:
        """Runs deleted."""
        return self.by_age + self.by_count + self.by_size

    @property
    def conversations_deleted(self) -> int:
        return self.conversations_by_age + self.conversations_by_count

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"deleted": self.deleted, "conversations_deleted": self.conversations_deleted}


def state_dir() -> Path:
    """GROUNDSQL_STATE_DIR, else ~/.local/share/groundsql."""
    return Path(os.environ.get("GROUNDSQL_STATE_DIR") or Path.home() / ".local" / "share" / "groundsql")


def _use_write_ahead_log(conn: sqlite3.Connection, wait_s: float = 30.0) -> None:
    """Put the store in write-ahead logging (a record costs no fsync of its own, and readers never wait for the
    writer). Switching needs the file to itself, and SQLite answers "database is locked" at once, without its busy
    timeout, while another connection opening the new store holds a lock: the switch is tried again until
    `wait_s` has passed."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.005, 0.05))


class RunStore:
    """The log of runs in `runs.sqlite` under the state directory, kept within `retention`.

    Args:
        path: the SQLite file (default: ``runs.sqlite`` in `state_dir()`).
        retention: the limits (default: `Retention.from_env()`).
    """

    def __init__(self, path: Path | None = None, retention: Retention | None = None):
        self.path = path or state_dir() / "runs.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.retention = retention if retention is not None else Retention.from_env()
        self._since_check = CHECK_EVERY  # the first record of a process checks
        self._check_lock = threading.Lock()
        self._warned: dict[str, float] = {}
        self._local = threading.local()  # the connection this thread has borrowed, if any
        self._slots = threading.BoundedSemaphore(POOL_SIZE)
        self._idle: list[sqlite3.Connection] = []  # list.append and list.pop are atomic
        self._pool_lock = threading.Lock()
        self._opened = 0
        self._migrate()

    def _migrate(self) -> None:
        """Bring the schema up to date. `BEGIN IMMEDIATE` takes the write lock before the version is read, so
        processes opening a new store at once apply each migration exactly once (the others wait, then see it)."""
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            _use_write_ahead_log(conn)
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

    @contextmanager
    def connection(self, row_factory: Any = None) -> Iterator[sqlite3.Connection]:
        """One of the store's pooled connections, for one transaction (committed when the block ends, rolled back
        when it raises); also for the tables that live beside the runs (conversations).

        At most `POOL_SIZE` connections are open, each with a `CACHE_KIB` page cache, however many threads call:
        a server's pools run a few dozen threads, and a connection per thread, each filling SQLite's default
        2 MiB cache as the file grows, made the server's memory creep for hours. A thread that already holds
        one gets the same connection back, inside the outer transaction.
        """
        held = getattr(self._local, "conn", None)
        if held is not None:
            previous, held.row_factory = held.row_factory, row_factory
            try:
                yield held
            finally:
                held.row_factory = previous
            return
        with self._slots:
            try:
                conn = self._idle.pop()
            except IndexError:
                conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                conn.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable across crashes of the process
                conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
                conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
                with self._pool_lock:
                    self._opened += 1
            conn.row_factory = row_factory
            self._local.conn = conn
            try:
                with conn:
                    yield conn
            finally:
                self._local.conn = None
                self._idle.append(conn)

    @property
    def open_connections(self) -> int:
        """Pooled connections open now (at most `POOL_SIZE`)."""
        return self._opened

    def close(self) -> None:
        """Close the idle pooled connections (a later call opens new ones)."""
        while self._idle:
            self._idle.pop().close()
            with self._pool_lock:
                self._opened -= 1

    def record(self, answer: Answer, database: str) -> int:
        """Store one answer; `database` must already be display-safe (no password). Every `CHECK_EVERY` records
        (and the first of a process) the store is checked against its retention and pruned when over it."""
        usage = answer.trace.usage()
        events, blocks = _split_prompts(json.loads(json.dumps(answer.trace.to_list(), default=json_safe)))
        trace_z = zlib.compress(json.dumps(events, separators=(",", ":")).encode("utf-8"), 6)
        with self.connection() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (created_at, question, database, preset, model, sql, ok, error, row_count, "
                "confidence, prompt_tokens, completion_tokens, llm_calls, db_queries, elapsed_s, trace, trace_z) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (time.time(), answer.question, database, answer.preset, answer.model, answer.sql,
                 int(answer.error is None and answer.result is not None), answer.error,
                 answer.result.row_count if answer.result is not None else None, answer.confidence,
                 usage.prompt_tokens, usage.completion_tokens, usage.llm_calls, usage.db_queries,
                 answer.elapsed_s, trace_z),
            )
            run_id = int(cursor.lastrowid)
            _store_blocks(conn, run_id, blocks)
        self._after_record()
        return run_id

    def get(self, run_id: int) -> dict[str, Any] | None:
        """One run with its trace (decoded) and its mark (None when unmarked), or None (an id outside SQLite's
        integer range, which no run can have, included)."""
        if not _storable_id(run_id):
            return None
        with self.connection(sqlite3.Row) as conn:
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return None
            data = dict(row)
            data["trace"] = _read_trace(conn, data.pop("trace"), data.pop("trace_z", None))
        data["mark"] = self.mark_of(run_id)
        return data

    # -- retention --------------------------------------------------------------------------------------

    def _after_record(self) -> None:
        with self._check_lock:
            self._since_check += 1
            if self._since_check < CHECK_EVERY:
                return
            self._since_check = 0
        try:
            self.check()
        except sqlite3.Error as exc:  # a busy or full disk must not fail the answer that was just stored
            log.warning("could not check the run store's retention: %s", exc)

    def check(self) -> PruneReport | None:
        """Prune when the store is over its retention; warn when its disk runs low. The report, or None when
        nothing was over."""
        report = self.prune() if self._over() else None
        self._warn_if_low()
        return report

    def size_mb(self) -> float:
        """The store's live data in megabytes (its pages in use, without the free ones SQLite will reuse)."""
        with self.connection() as conn:
            return _live_mb(conn)

    def _over(self) -> bool:
        limits = self.retention
        with self.connection() as conn:
            if limits.max_age_days is not None:
                oldest = conn.execute(f"SELECT min(created_at) FROM runs WHERE NOT {KEPT_RUNS}").fetchone()[0]
                if oldest is not None and oldest < time.time() - limits.max_age_days * 86400:
                    return True
            if limits.max_runs is not None and _count(conn) > limits.max_runs:
                return True
            if limits.conversations_max_age_days is not None:
                idle = conn.execute(f"SELECT min({_ACTIVE}) FROM conversations").fetchone()[0]
                if idle is not None and idle < _conversation_cutoff(limits.conversations_max_age_days):
                    return True
            if limits.max_conversations is not None and _count(conn, "conversations") > limits.max_conversations:
                return True
            return limits.max_mb is not None and _live_mb(conn) > limits.max_mb

    def prune(self, retention: Retention | None = None, *, dry_run: bool = False, compact: bool = False,
              vacuum: bool = False) -> PruneReport:
        """Delete the runs past `retention` (default: the store's), oldest first, never a marked run or one a
        conversation points at, and the prompt blocks no run uses any more.

        Args:
            retention: the limits to apply (default: the store's own).
            dry_run: count what would go, delete nothing.
            compact: also rewrite runs stored before migration 5 (plain JSON traces) in the compact form.
            vacuum: also give the freed pages back to the file system (rewrites the file; slow on big stores).
        """
        limits = retention or self.retention
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            report = PruneReport(mb_before=_live_mb(conn))
            conn.execute("BEGIN IMMEDIATE")
            try:  # a dry run deletes as a real one would, then rolls back: its counts are exact
                if compact:
                    report.compacted = _compact_legacy(conn)
                # conversations first: the runs of those deleted are no longer kept; they age or go by count below
                report.conversations_by_age, report.conversations_by_count = _prune_conversations(conn, limits)
                report.conversations = _count(conn, "conversations")
                if limits.max_age_days is not None:
                    cutoff = time.time() - limits.max_age_days * 86400
                    report.by_age = conn.execute(f"DELETE FROM runs WHERE created_at < ? AND NOT {KEPT_RUNS}",
                                                 (cutoff,)).rowcount
                total = _count(conn)
                if limits.max_runs is not None and total > limits.max_runs:
                    report.by_count = _delete_oldest(conn, total - int(limits.max_runs * PRUNE_TO))
                    total -= report.by_count
                _collect_blocks(conn)
                for _ in range(4) if limits.max_mb is not None else ():
                    live = _live_mb(conn)  # each pass deletes about the excess; the blocks it frees shrink the next
                    if live <= limits.max_mb or total <= 0:
                        break
                    deleted = _delete_oldest(conn, math.ceil((live - limits.max_mb * PRUNE_TO) / (live / total)))
                    if deleted == 0:
                        break
                    report.by_size += deleted
                    total -= deleted
                    _collect_blocks(conn)
                report.runs = total
                report.kept = conn.execute(f"SELECT count(*) FROM runs WHERE {KEPT_RUNS}").fetchone()[0]
                report.mb_after = _live_mb(conn)
                conn.execute("ROLLBACK" if dry_run else "COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            if vacuum and not dry_run:
                conn.execute("VACUUM")
        finally:
            conn.close()
        report.file_mb = self.path.stat().st_size / 1e6 if self.path.exists() else 0.0
        if report.conversations_deleted and not dry_run:
            log.info("run store %s: pruned %d conversation(s) (%d by age, %d by count)", self.path,
                     report.conversations_deleted, report.conversations_by_age, report.conversations_by_count)
        if report.deleted and not dry_run:
            log.info("run store %s: pruned %d run(s) (%d by age, %d by count, %d by size); %.1f MB live",
                     self.path, report.deleted, report.by_age, report.by_count, report.by_size, report.mb_after)
        if limits.max_mb is not None and report.mb_after > limits.max_mb and not dry_run:
            self._warn("over", "run store %s holds %.0f MB, over its %.0f MB limit, in runs it must keep (marked, "
                       "or in conversations)", self.path, report.mb_after, limits.max_mb)
        return report

    def _warn_if_low(self) -> None:
        try:
            free_mb = shutil.disk_usage(self.path.parent).free / 1e6
        except OSError:
            return
        if free_mb < LOW_DISK_MB:
            self._warn("disk", "only %.0f MB free on the disk holding the run store %s; lower its retention "
                       "(GROUNDSQL_RUNS_MAX_MB) or run `groundsql runs prune --vacuum`", free_mb, self.path)
        if self.retention.max_mb is None:
            size = self.path.stat().st_size / 1e6 if self.path.exists() else 0.0
            if size > 1000:
                self._warn("large", "the run store %s is %.0f MB and has no size limit (GROUNDSQL_RUNS_MAX_MB)",
                           self.path, size)

    def _warn(self, kind: str, message: str, *args: Any) -> None:
        now = time.monotonic()
        if now - self._warned.get(kind, -WARN_EVERY_S) >= WARN_EVERY_S:
            self._warned[kind] = now
            log.warning(message, *args)

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        """The latest runs (without traces), each with its `mark` verdict (None when unmarked)."""
        with self.connection(sqlite3.Row) as conn:
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
        with self.connection() as conn:
            conn.execute("INSERT OR REPLACE INTO run_marks (run_id, verdict, corrected_sql, marked_at) "
                         "VALUES (?, ?, ?, ?)", (run_id, verdict, corrected_sql, marked_at))
        return {"run_id": run_id, "verdict": verdict, "corrected_sql": corrected_sql, "marked_at": marked_at}

    def mark_of(self, run_id: int) -> dict[str, Any] | None:
        """The mark of one run, or None."""
        if not _storable_id(run_id):
            return None
        with self.connection(sqlite3.Row) as conn:
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
        with self.connection(sqlite3.Row) as conn:
            rows = conn.execute(query + " ORDER BY r.id", params).fetchall()
        return [dict(r) for r in rows]


# -- compact traces ------------------------------------------------------------------------------------


def _split_prompts(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The events with each long prompt block (paragraphs of `MIN_BLOCK_CHARS` or more) replaced by its hash;
    and {hash: block}. A message's content becomes ``{"$blocks": [hash or text, ...]}``, joined by blank lines."""
    blocks: dict[str, str] = {}
    for event in events:
        for message in event.get("messages") or []:
            content = message.get("content")
            if not isinstance(content, str) or len(content) < MIN_BLOCK_CHARS:
                continue
            parts: list[Any] = []
            for part in content.split("\n\n"):
                if len(part) >= MIN_BLOCK_CHARS:
                    key = hashlib.sha256(part.encode("utf-8")).hexdigest()[:32]
                    blocks[key] = part
                    parts.append({"#": key})
                else:
                    parts.append(part)
            message["content"] = {"$blocks": parts}
    return events, blocks


def _storable_id(run_id: int) -> bool:
    """Whether SQLite can hold the id (a 64-bit signed integer): binding a larger one raises OverflowError."""
    return -(2**63) <= run_id < 2**63


def _store_blocks(conn: sqlite3.Connection, run_id: int, blocks: dict[str, str]) -> None:
    if not blocks:
        return
    keys = list(blocks)
    known = {row[0] for row in conn.execute(
        f"SELECT hash FROM prompt_blocks WHERE hash IN ({', '.join('?' * len(keys))})", keys)}
    conn.executemany("INSERT OR IGNORE INTO prompt_blocks (hash, text) VALUES (?, ?)",
                     [(k, zlib.compress(blocks[k].encode("utf-8"), 6)) for k in keys if k not in known])
    conn.executemany("INSERT OR IGNORE INTO run_prompt_blocks (run_id, hash) VALUES (?, ?)",
                     [(run_id, k) for k in keys])


def _read_trace(conn: sqlite3.Connection, plain: str | None, packed: bytes | None) -> list[dict[str, Any]]:
    """A stored trace as `Trace.to_list` gave it: the plain JSON of old runs, or the compact form resolved."""
    if packed is None:
        return json.loads(plain) if plain else []
    events = json.loads(zlib.decompress(packed).decode("utf-8"))
    wanted = {part["#"] for event in events for message in event.get("messages") or []
              if isinstance(message.get("content"), dict)
              for part in message["content"].get("$blocks", []) if isinstance(part, dict)}
    texts: dict[str, str] = {}
    if wanted:
        keys = list(wanted)
        texts = {row[0]: zlib.decompress(row[1]).decode("utf-8") for row in conn.execute(
            f"SELECT hash, text FROM prompt_blocks WHERE hash IN ({', '.join('?' * len(keys))})", keys)}
    for event in events:
        for message in event.get("messages") or []:
            content = message.get("content")
            if isinstance(content, dict) and "$blocks" in content:
                message["content"] = "\n\n".join(
                    texts.get(part["#"], "(prompt block pruned)") if isinstance(part, dict) else part
                    for part in content["$blocks"])
    return events


def _compact_legacy(conn: sqlite3.Connection, batch: int = 500) -> int:
    """Rewrite runs stored with a plain JSON trace in the compact form; returns how many."""
    done = 0
    while True:
        rows = conn.execute("SELECT id, trace FROM runs WHERE trace IS NOT NULL AND trace_z IS NULL LIMIT ?",
                            (batch,)).fetchall()
        if not rows:
            return done
        for run_id, plain in rows:
            try:
                events, blocks = _split_prompts(json.loads(plain))
            except (ValueError, TypeError, AttributeError):
                events, blocks = [{"kind": "note", "step": "trace", "data": {"unreadable": plain[:2000]}}], {}
            packed = zlib.compress(json.dumps(events, separators=(",", ":")).encode("utf-8"), 6)
            conn.execute("UPDATE runs SET trace = NULL, trace_z = ? WHERE id = ?", (packed, run_id))
            _store_blocks(conn, run_id, blocks)
        done += len(rows)


# -- pruning ---------------------------------------------------------------------------------------------


def _count(conn: sqlite3.Connection, table: str = "runs") -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _conversation_cutoff(max_age_days: float | None) -> float:
    """Conversations last used before this time may go: past `max_age_days` (if any) and the grace period."""
    cutoff = time.time() - CONVERSATION_GRACE_S
    return cutoff if max_age_days is None else min(cutoff, time.time() - max_age_days * 86400)


def _prune_conversations(conn: sqlite3.Connection, limits: Retention) -> tuple[int, int]:
    """Delete the conversations past `limits`, least recently used first, with their turns; never one used within
    `CONVERSATION_GRACE_S`. Returns how many went by age and by count."""
    by_age = by_count = 0
    if limits.conversations_max_age_days is not None:
        by_age = _delete_conversations(conn, [row[0] for row in conn.execute(
            f"SELECT id FROM conversations WHERE {_ACTIVE} < ?",
            (_conversation_cutoff(limits.conversations_max_age_days),))])
    total = _count(conn, "conversations")
    if limits.max_conversations is not None and total > limits.max_conversations:
        excess = total - int(limits.max_conversations * PRUNE_TO)
        by_count = _delete_conversations(conn, [row[0] for row in conn.execute(
            f"SELECT id FROM conversations WHERE {_ACTIVE} < ? ORDER BY {_ACTIVE} LIMIT ?",
            (_conversation_cutoff(None), excess))])
    return by_age, by_count


def _delete_conversations(conn: sqlite3.Connection, ids: list[str]) -> int:
    conn.executemany("DELETE FROM conversation_turns WHERE conversation_id = ?", [(i,) for i in ids])
    conn.executemany("DELETE FROM conversations WHERE id = ?", [(i,) for i in ids])
    return len(ids)


def _live_mb(conn: sqlite3.Connection) -> float:
    pages = conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
    return pages * conn.execute("PRAGMA page_size").fetchone()[0] / 1e6


def _delete_oldest(conn: sqlite3.Connection, count: int) -> int:
    """Delete the `count` oldest runs that may go; returns how many went."""
    if count <= 0:
        return 0
    return conn.execute(f"DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE NOT {KEPT_RUNS} ORDER BY id "
                        "LIMIT ?)", (count,)).rowcount


def _collect_blocks(conn: sqlite3.Connection) -> None:
    """Forget the prompt blocks of deleted runs, and the blocks no run uses any more."""
    conn.execute("DELETE FROM run_prompt_blocks WHERE run_id NOT IN (SELECT id FROM runs)")
    conn.execute("DELETE FROM prompt_blocks WHERE hash NOT IN (SELECT hash FROM run_prompt_blocks)")
