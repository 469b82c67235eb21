"""`Context`: the inputs of one question and the single path through which stages call models and queries."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from groundsql.catalog import Catalog, Schema, introspect
from groundsql.db import Database, Result
from groundsql.errors import DatabaseError, ModelError
from groundsql.models import Completion, Message, Model
from groundsql.trace import ModelCall, QueryRun, Trace


@dataclass
class Context:
    """Immutable inputs of one run plus its trace. Stages never call a model or an engine directly."""

    question: str
    db: Database
    models: dict[str, Model]
    evidence: str | None = None
    samples: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    trace: Trace = field(default_factory=Trace)
    catalog: Catalog | None = None  # profiled metadata (inferred keys, value index, descriptions) when available
    knowledge: Any | None = None  # a `knowledge.Knowledge` (rules, glossary, examples, documents, descriptions)
    _schema: Schema | None = None

    def model(self, role: str = "generator") -> Model:
        """The model for a role (planner, generator, judge…); every role defaults to the session's model."""
        return self.models.get(role) or self.models["default"]

    @property
    def schema(self) -> Schema:
        if self._schema is None:
            self._schema = introspect(self.db)
        return self._schema

    def chat(self, step: str, messages: list[Message], *, role: str = "generator", **options: Any) -> Completion:
        """Call the role's model and record the call (tokens, latency, prompt, outputs) on the trace."""
        model = self.model(role)
        started = time.perf_counter()
        try:
            completion = model.complete(messages, **options)
        except ModelError as exc:
            self.trace.add(ModelCall(role=role, model=model.spec, step=step, prompt_tokens=0, completion_tokens=0,
                                     latency_s=time.perf_counter() - started, messages=messages, error=str(exc)))
            raise
        self.trace.add(ModelCall(
            role=role, model=model.spec, step=step, prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, latency_s=completion.latency_s,
            n=len(completion.texts), messages=messages, outputs=list(completion.texts),
        ))
        return completion

    def query(self, sql: str, *, step: str, max_rows: int | None = None) -> Result:
        """Run `sql` through the guarded `Database.execute` and record it; errors propagate."""
        started = time.perf_counter()
        try:
            result = self.db.execute(sql, max_rows=max_rows)
        except DatabaseError as exc:
            self.trace.add(QueryRun(sql=sql, step=step, ok=False, elapsed_s=time.perf_counter() - started,
                                    error=str(exc)))
            raise
        self.trace.add(QueryRun(sql=sql, step=step, ok=True, elapsed_s=result.elapsed_s, row_count=result.row_count))
        return result

    def try_query(self, sql: str, *, step: str, max_rows: int | None = None) -> tuple[Result | None, str | None]:
        """Like `query`, but returns (result, None) or (None, error message)."""
        try:
            return self.query(sql, step=step, max_rows=max_rows), None
        except DatabaseError as exc:
            return None, str(exc)
