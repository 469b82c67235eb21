"""A reply store for benchmarks: a model call whose exact request (model, messages, sampling settings) was made
before gets the stored reply instead of a new generation.

Greedy decoding of a byte-identical prompt gives the same reply, so replaying it measures everything else the
same: the cross-engine benchmark asks every engine the same prompts (docs/engines.md) and so needs the embedded
model only for the prompts that differ (a repair quoting an engine's own error). Set ``GROUNDSQL_REPLY_STORE`` to
a file to turn it on; it is never on by default, and a replayed call is marked on the trace (`replayed` notes
through the token counts it carries: the stored ones) so reports can say so.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from groundsql.models.base import Completion, Likelihood, Message, Model

REPLY_STORE_ENV = "GROUNDSQL_REPLY_STORE"


class ReplyStore:
    """Replies keyed by a hash of the request, in one SQLite file (safe to share between processes)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, texts TEXT NOT NULL, "
                         "prompt_tokens INTEGER, completion_tokens INTEGER, cached_tokens INTEGER, "
                         "likelihoods TEXT)")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(replies)")}
            if "likelihoods" not in columns:  # a store written before replies carried them
                conn.execute("ALTER TABLE replies ADD COLUMN likelihoods TEXT")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    @staticmethod
    def key(spec: str, messages: list[Message], **settings: Any) -> str:
        payload = json.dumps({"model": spec, "messages": messages, **settings}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Completion | None:
        with self._lock, self._connect() as conn:
            row = conn.execute("SELECT texts, prompt_tokens, completion_tokens, cached_tokens, likelihoods "
                               "FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        likelihoods = [Likelihood(**item) if item else None for item in json.loads(row[4])] if row[4] else []
        return Completion(texts=json.loads(row[0]), prompt_tokens=row[1], completion_tokens=row[2],
                          cached_tokens=row[3], likelihoods=likelihoods)

    def put(self, key: str, completion: Completion) -> None:
        with self._lock, self._connect() as conn:
            likelihoods = [item.to_dict() if item is not None else None for item in completion.likelihoods]
            conn.execute("INSERT OR REPLACE INTO replies (key, texts, prompt_tokens, completion_tokens, "
                         "cached_tokens, likelihoods) VALUES (?, ?, ?, ?, ?, ?)",
                         (key, json.dumps(completion.texts), completion.prompt_tokens,
                          completion.completion_tokens, completion.cached_tokens,
                          json.dumps(likelihoods) if likelihoods else None))


class ReplayingModel(Model):
    """`inner` behind a `ReplyStore`: stored replies for repeated requests, new ones generated and stored."""

    def __init__(self, inner: Model, store: ReplyStore):
        super().__init__(timeout_s=inner.timeout_s, retry=inner.retry)
        self.inner, self.store = inner, store
        self.spec, self.serial = inner.spec, inner.serial
        self.replayed = 0

    def _generate(self, messages, *, n, temperature, max_tokens, json_schema, stop, seed) -> Completion:
        key = self.store.key(self.spec, messages, n=n, temperature=temperature, max_tokens=max_tokens,
                             json_schema=json_schema, stop=stop, seed=seed)
        stored = self.store.get(key)
        if stored is not None:
            self.replayed += 1
            return stored
        completion = self.inner._generate(messages, n=n, temperature=temperature, max_tokens=max_tokens,
                                          json_schema=json_schema, stop=stop, seed=seed)
        self.store.put(key, completion)
        return completion

    def __getattr__(self, name: str) -> Any:  # count_tokens, path(), … of the wrapped model
        return getattr(self.inner, name)
