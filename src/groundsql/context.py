"""`Context`: the inputs of one question and the single path through which stages call models and queries.

The Context API, in full:

- Inputs: `question`, `db`, `models` (by role; `model(role)`), `evidence`, `samples`, `catalog`, `schema`,
  `knowledge` (the database's knowledge folder; `knowledge.prepare` fills it and `catalog` before a preset runs).
- `options`: the run's validated options (`groundsql.options.Options`; a plain dict given here is validated
  against every registered option, and `pipelines.run` validates it again for the chosen preset and linkers).
  Stages never read it by key; a stage declares one small model next to its code and asks for it:

      from pydantic import Field
      from groundsql.options import Options

      class RepairOptions(Options):                      # frozen, unknown keys refused
          repair_depth: int = Field(2, ge=0, description="one line for docs/options.md")

      def repair(ctx, candidate, *, options: RepairOptions | None = None):
          options = options or ctx.settings(RepairOptions)   # its defaults, overridden by what the run was given

  The model is then accepted on the command line by mixing it into the options of every preset that runs the
  stage (`class SsevOptions(RepairOptions, SelectionOptions, …)`; a linker's model is registered with
  `@linker(name, description, options=…)` instead). Presets receive their options object as their second
  argument and pass it (or its fields) down: `repair(ctx, candidate, options=options)`.
- Evaluation-only inputs, explicit: `gold_sql` (read after selection to learn expert weights), `db_id` (few-shot
  examples never come from it), `column_descriptions` (BIRD's per-database descriptions).
- `on_step`: an optional listener for stages that report progress step by step (apex exploration);
  `on_provisional`: one for answers a preset announces before it has finished (`Context.provisional`).
- `cache`: values computed once per question and shared by stages (`RunCache`: typed fields, no string keys).
- `chat`, `query`, `try_query`: the only way stages call a model or the database; both are announced on `trace`
  when they start (`Trace.begin`) and recorded on it when they finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from groundsql.catalog import Catalog, Schema, introspect
from groundsql.db import Database, Result
from groundsql.errors import DatabaseError, ModelError
from groundsql.models import Completion, Message, Model
from groundsql.models.deadline import cancel_check
from groundsql.options import Options, known_options, parse_options
from groundsql.trace import ModelCall, QueryRun, Trace

if TYPE_CHECKING:
    from groundsql.catalog.joins import JoinGraph
    from groundsql.catalog.values import ValueIndex, ValueMatch

OptionsT = TypeVar("OptionsT", bound=Options)

#: Receives (event, data) after each step of a stage that reports progress.
StepListener = Callable[[str, dict], None]
#: Receives a provisional answer ({stage, sql, columns, rows, row_count, error}) that later steps may replace.
AnswerListener = Callable[[dict], None]
#: Rows of a provisional answer passed to the listener (the rest arrive with the final answer).
PROVISIONAL_ROWS = 50


@dataclass
class RunCache:
    """Per-question values that several stages reuse. Add a typed field here for a new one."""

    texts: dict[tuple, str] = field(default_factory=dict)  # rendered schema texts, keyed by what they show
    master_plan: str | None = None  # APEX logical plan (linking makes it, generation reuses it)
    example_pool: Any = None  # the few-shot `ExamplePool` (None: not configured)
    example_pool_ready: bool = False
    declared_join_graph: JoinGraph | None = None
    literal_matches: list[ValueMatch] | None = None
    fallback_value_index: ValueIndex | None = None
    grounded: bool = False  # `knowledge.prepare` has resolved the catalog and the knowledge folder
    prompt_contexts: dict[tuple, Any] = field(default_factory=dict)  # `knowledge.PromptContext` by render arguments
    knowledge_retriever: Any = None  # the `knowledge.KnowledgeRetriever` of `Context.knowledge`
    provisional: Any = None  # the latest `Candidate` announced with `Context.provisional` (best so far)


@dataclass
class Context:
    """Immutable inputs of one run plus its trace. Stages never call a model or an engine directly."""

    question: str
    db: Database
    models: dict[str, Model]
    evidence: str | None = None
    samples: int = 1
    options: Options = field(default_factory=Options)
    trace: Trace = field(default_factory=Trace)
    catalog: Catalog | None = None  # profiled metadata (inferred keys, value index, descriptions) when available
    knowledge: Any | None = None  # a `knowledge.Knowledge` (rules, glossary, examples, documents, descriptions)
    gold_sql: str | None = None  # evaluation only: the reference query, read after selection to learn weights
    db_id: str | None = None  # evaluation only: the benchmark's database id (few-shot never draws from it)
    column_descriptions: dict[str, dict[str, str]] | None = None  # table → column → description (BIRD)
    on_step: StepListener | None = None
    on_provisional: AnswerListener | None = None
    cache: RunCache = field(default_factory=RunCache)
    _schema: Schema | None = None

    def __post_init__(self) -> None:
        if isinstance(self.options, Mapping):
            self.options = parse_options(known_options(), self.options)

    def settings(self, model: type[OptionsT]) -> OptionsT:
        """The run's options as `model`: its defaults, overridden by the values the run was given for its fields."""
        if type(self.options) is model:
            return self.options
        given = self.options.given()
        return model.model_validate({k: v for k, v in given.items() if k in model.model_fields})

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
        self.trace.begin("model", step, role=role, model=model.spec)
        started = time.perf_counter()
        try:
            with cancel_check(self.trace.is_cancelled):
                completion = model.complete(messages, **options)
        except ModelError as exc:
            self.trace.add(ModelCall(role=role, model=model.spec, step=step, prompt_tokens=0, completion_tokens=0,
                                     latency_s=time.perf_counter() - started, messages=messages, error=str(exc)))
            raise
        self.trace.add(ModelCall(
            role=role, model=model.spec, step=step, prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, latency_s=completion.latency_s,
            n=len(completion.texts), messages=messages, outputs=list(completion.texts),
            cached_tokens=completion.cached_tokens,
            likelihoods=[item.to_dict() if item is not None else None for item in completion.likelihoods],
        ))
        return completion

    def query(self, sql: str, *, step: str, max_rows: int | None = None) -> Result:
        """Run `sql` through the guarded `Database.execute` and record it; errors propagate."""
        self.trace.begin("query", step, sql=sql)
        started = time.perf_counter()
        try:
            result = self.db.execute(sql, max_rows=max_rows)
        except DatabaseError as exc:
            self.trace.add(QueryRun(sql=sql, step=step, ok=False, elapsed_s=time.perf_counter() - started,
                                    error=str(exc)))
            raise
        self.trace.add(QueryRun(sql=sql, step=step, ok=True, elapsed_s=result.elapsed_s, row_count=result.row_count))
        return result

    def provisional(self, candidate: Any, *, stage: str) -> None:
        """Announce an answer (a `groundsql.answer.Candidate`) that later steps may replace: noted on the trace (the best answer so far when a run
        is cut off) and passed to `on_provisional` as {stage, sql, columns, rows, row_count, error}."""
        result = candidate.result
        data: dict[str, Any] = {"stage": stage, "sql": candidate.sql, "error": candidate.error,
                                "columns": list(result.columns) if result is not None else [],
                                "row_count": result.row_count if result is not None else 0}
        self.trace.note("provisional", **data)
        self.cache.provisional = candidate
        if self.on_provisional is not None:
            rows = [list(row) for row in result.rows[:PROVISIONAL_ROWS]] if result is not None else []
            self.on_provisional(data | {"rows": rows})

    def try_query(self, sql: str, *, step: str, max_rows: int | None = None) -> tuple[Result | None, str | None]:
        """Like `query`, but returns (result, None) or (None, error message)."""
        try:
            return self.query(sql, step=step, max_rows=max_rows), None
        except DatabaseError as exc:
            return None, str(exc)
