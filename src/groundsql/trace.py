"""The record of one run: every model call and every query, with tokens, time and outcome."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ModelCall:
    """One call to a model (possibly returning several completions)."""

    role: str
    model: str
    step: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    n: int = 1
    cached_tokens: int = 0  # prompt tokens served from the provider's cache, not evaluated
    messages: list[dict[str, str]] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    error: str | None = None
    kind: str = "model"
    #: Per output, how probable the model found it ({mean, least, tokens}: `models.base.Likelihood`), where the
    #: model reports it.
    likelihoods: list[dict[str, float | int] | None] = field(default_factory=list)

    @property
    def evaluated_tokens(self) -> int:
        """Prompt tokens the model read for this call (sent minus served from its cache): its cost on the CPU."""
        return max(0, self.prompt_tokens - self.cached_tokens)


@dataclass
class QueryRun:
    """One statement sent through `Database.execute`."""

    sql: str
    step: str
    ok: bool
    elapsed_s: float
    row_count: int = 0
    error: str | None = None
    kind: str = "query"


@dataclass
class Note:
    """A free-form step record (a plan, a linked schema, a vote) for people reading the trace."""

    step: str
    data: dict[str, Any]
    kind: str = "note"


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_calls: int = 0
    db_queries: int = 0
    #: The part of `prompt_tokens` served from a prompt cache (the embedded model's KV cache, an API's cache).
    cached_prompt_tokens: int = 0

    @property
    def evaluated_prompt_tokens(self) -> int:
        """Prompt tokens the model actually had to read: what a call costs in time on the CPU."""
        return self.prompt_tokens - self.cached_prompt_tokens

    def to_dict(self) -> dict[str, int]:
        """The counts, with `evaluated_prompt_tokens` (sent minus prefix-cached) beside them."""
        return asdict(self) | {"evaluated_prompt_tokens": self.evaluated_prompt_tokens}


class Trace:
    """Thread-safe, append-only list of events for one question."""

    def __init__(self) -> None:
        self._events: list[ModelCall | QueryRun | Note] = []
        self._lock = threading.Lock()
        self.started = time.time()

    def add(self, event: ModelCall | QueryRun | Note) -> None:
        with self._lock:
            self._events.append(event)

    def begin(self, kind: str, step: str, **info: Any) -> None:
        """Announce that a model call (`kind` "model") or a query ("query") of `step` starts now; records nothing.

        The event itself is added when it finishes; a watcher (the server's progress stream) overrides this to show
        what is running meanwhile.
        """

    def is_cancelled(self) -> bool:
        """Whether the run was cancelled (a watching caller's trace says so; a plain trace never is)."""
        return False

    def note(self, step: str, **data: Any) -> None:
        self.add(Note(step=step, data=data))

    @property
    def events(self) -> list[ModelCall | QueryRun | Note]:
        with self._lock:
            return list(self._events)

    def usage(self) -> Usage:
        usage = Usage()
        for event in self.events:
            if isinstance(event, ModelCall):
                usage.prompt_tokens += event.prompt_tokens
                usage.completion_tokens += event.completion_tokens
                usage.cached_prompt_tokens += event.cached_tokens
                usage.llm_calls += 1
            elif isinstance(event, QueryRun):
                usage.db_queries += 1
        return usage

    def model_calls(self) -> list[ModelCall]:
        """The model calls, in the order they were made."""
        return [e for e in self.events if isinstance(e, ModelCall)]

    def notes(self, step: str) -> list[dict[str, Any]]:
        return [e.data for e in self.events if isinstance(e, Note) and e.step == step]

    def to_list(self) -> list[dict[str, Any]]:
        return [asdict(e) for e in self.events]
