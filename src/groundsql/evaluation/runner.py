"""Run a preset over benchmark questions (or score given SQL), one appended result line per question."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from groundsql.answer import Answer
from groundsql.catalog.schema import Schema as CatalogSchema
from groundsql.db import Database, Result
from groundsql.errors import ConfigError, GroundsqlError, ModelNotInstalled
from groundsql.evaluation.datasets import Dataset, Question, load_dataset, select
from groundsql.evaluation.linking import Schema, gold_schema, linking_scores
from groundsql.evaluation.regression import add_regression, previous_run
from groundsql.evaluation.results import (
    CONFIG_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    ResultsWriter,
    check_resumable,
    read_config,
    read_results,
    write_atomic,
)
from groundsql.evaluation.scoring import Scorer
from groundsql.evaluation.suite import (
    SuiteGold,
    database_fingerprint,
    fingerprint_changes,
    is_suite_file,
    load_suite,
)
from groundsql.evaluation.summary import summarize
from groundsql.models import Model, load_model
from groundsql.options import Options, parse_options
from groundsql.selection.calibration import Signals
from groundsql.trace import Trace

log = logging.getLogger("groundsql")

_SIGNAL_FIELDS = frozenset(f.name for f in fields(Signals))

#: The most questions run at once.
MAX_WORKERS = 64
#: Called after each finished question with (record, finished so far, total to do).
Progress = Callable[[dict[str, Any], int, int], None]


@dataclass
class EvalOptions:
    """What to run and on which questions. `predictions` switches to scoring given SQL with no model."""

    preset: str = "baseline"
    model: str | Model | None = None  # a spec, or a loaded model (e.g. one already warmed up)
    models: dict[str, str | Model] | None = None  # a model per role (orchestrator, judge…); others use `model`
    samples: int = 1
    workers: int = 1
    stage: str = "full"  # "full" runs the preset; "link" runs only schema linking
    linker: str | None = None
    predictions: str | None = None
    keep_distinct: bool = False
    db: list[str] | None = None
    ids: list[str] | None = None
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    model_timeout_s: float | None = None  # total time per model call (None: GROUNDSQL_MODEL_TIMEOUT or default)
    options: dict[str, Any] | Options = field(default_factory=dict)  # the preset's (validated before the run)
    engine: str | None = None  # URL template of copies in another engine, e.g. postgresql://…/spider_{db_id}
    knowledge: str | None = None  # a knowledge folder, or a folder of them named by db_id
    database: str | None = None  # a suite's live database (default: the URL recorded in the suite)
    previous: str | None = None  # the run directory to compare with (default for a suite: its previous run)


class _Schemas:
    """Table → columns of each database, read once (for linking metrics)."""

    def __init__(self) -> None:
        self._cache: dict[Path, Schema] = {}
        self._lock = threading.Lock()

    def get(self, db: Database, path: Path) -> Schema:
        with self._lock:
            if path not in self._cache:
                from groundsql.catalog import introspect

                schema = introspect(db)
                self._cache[path] = {t.name: [c.name for c in t.columns] for t in schema.tables}
            return self._cache[path]


def run_evaluation(dataset: Dataset | str | Path, options: EvalOptions, out: str | Path | None = None, *,
                   progress: Progress | None = None) -> dict[str, Any]:
    """Evaluate every selected question not already in `out`, then write `summary.json` and return it.

    Args:
        dataset: a `Dataset`, a Spider/BIRD dataset path or a suite file (`evaluation.suite`); a suite's run
            is compared with `options.previous`, else with the suite's previous run (`evaluation.regression`).
        options: preset, model, filters, workers…
        out: the run directory; an existing one is resumed (same settings required). None keeps results in memory.
        progress: called after each question finishes.

    Returns:
        The summary (see `summarize`).
    """
    settings = _check_names(options)
    _check_numbers(options)
    data = dataset if isinstance(dataset, Dataset) else _load(dataset, options)
    if options.database and data.suite is None:
        raise ConfigError("--database names the live database of a suite; a benchmark's databases are its files "
                          "(use --engine for copies in another engine)")
    if data.suite is not None and options.engine:
        raise ConfigError("a suite runs on its own database; give another one with --database, not --engine")
    questions = select(data.questions, db=options.db, ids=options.ids, sample=options.sample, seed=options.seed,
                       limit=options.limit)
    _check_ids(data, options, questions)
    if not questions:
        raise ConfigError("no question matches the filters")
    config = _config(data, options, settings)
    if out is not None and data.suite is not None and options.previous is None:
        found = previous_run(data.root, out)
        config["previous_run"] = str(found) if found is not None else None
    records: list[dict[str, Any]] = []
    writer: ResultsWriter | None = None
    # A user's suite keeps DISTINCT: its gold means exactly what it says (count(DISTINCT x) is not count(x)).
    scorer = Scorer("bird" if data.kind == "bird" else "spider",
                    keep_distinct=options.keep_distinct or data.suite is not None)
    try:
        # Everything that can be refused (model spec, predictions file) is checked before `out` is touched.
        job = _Job(data, options, scorer, settings)
    except BaseException:
        scorer.close()
        raise
    try:
        if data.suite is not None:
            config["suite"] = job.suite_check(questions[0])
        if out is not None:
            out = Path(out)
            check_resumable(out, config, normalize=lambda previous: _identity(options, previous))
            config = read_config(out / CONFIG_FILE)  # a resumed run compares with the run it first named
            records = read_results(out / RESULTS_FILE, repair=True)
            writer = ResultsWriter(out / RESULTS_FILE)
        wanted = {str(q.id) for q in questions}
        done = {str(r["id"]) for r in records}
        records = [r for r in records if str(r["id"]) in wanted]
        todo = [q for q in questions if str(q.id) not in done]
        if done & wanted:
            log.info("resuming: %d of %d questions already done", len(done & wanted), len(questions))
        finished = len(records)

        def record_done(record: dict[str, Any]) -> None:
            nonlocal finished
            records.append(record)
            if writer is not None:
                writer.write(record)
            finished += 1
            if progress is not None:
                progress(record, finished, len(questions))

        if options.workers <= 1 or options.predictions:
            for question in todo:
                record_done(job.evaluate(question))
        else:
            with ThreadPoolExecutor(max_workers=options.workers) as pool:
                futures = [pool.submit(job.evaluate, q) for q in todo]
                try:
                    for future in as_completed(futures):
                        record_done(future.result())
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
    finally:
        if writer is not None:
            writer.close()
        scorer.close()
        job.close()
    order = {str(q.id): i for i, q in enumerate(questions)}
    records.sort(key=lambda r: order.get(str(r["id"]), 0))
    summary = summarize(records, config)
    add_regression(summary, config, records)
    if out is not None:
        write_atomic(Path(out) / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    return summary


def _load(dataset: str | Path, options: EvalOptions) -> Dataset:
    """A benchmark directory or question file, or a suite file (on `options.database` when given)."""
    if is_suite_file(dataset):
        return load_suite(dataset, database=options.database)
    return load_dataset(dataset)


def _check_numbers(options: EvalOptions) -> None:
    """Counts and limits are whole numbers in range, checked before anything runs or is written."""
    for name, value, low in (("samples", options.samples, 1), ("workers", options.workers, 1),
                             ("limit", options.limit, 1), ("sample", options.sample, 1)):
        if value is None and name in ("limit", "sample"):
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(f"--{name} must be a whole number of at least {low}, got {value!r}")
    if options.workers > MAX_WORKERS:
        raise ConfigError(f"--workers must be at most {MAX_WORKERS}, got {options.workers}")
    if options.model_timeout_s is not None:
        from groundsql.models.deadline import check_model_timeout

        check_model_timeout(options.model_timeout_s, source="--model-timeout")


def _check_ids(data: Dataset, options: EvalOptions, questions: list[Question]) -> None:
    """Every id given with --ids is among the questions the run's set holds (its --db and --sample): ids pick
    questions of that set, so a run directory never holds a question its settings do not select."""
    if not options.ids:
        return
    given = list(dict.fromkeys(str(i).strip() for i in options.ids))
    chosen = {str(q.id) for q in select(data.questions, db=options.db, ids=given, sample=options.sample,
                                         seed=options.seed)}
    missing = [i for i in given if i not in chosen]
    if not missing:
        return
    known = {str(q.id) for q in data.questions}
    unknown = [i for i in missing if i not in known]
    if unknown:
        raise ConfigError(f"--ids: no question {', '.join(unknown[:5])} in {data.root}")
    picked = []
    if options.db:
        picked.append(f"--db {','.join(options.db)}")
    if options.sample is not None:
        picked.append(f"--sample {options.sample} --seed {options.seed}")
    raise ConfigError(f"--ids: question {', '.join(missing[:5])} is not among the questions "
                      f"{' '.join(picked)} selects; ids pick questions of that set (drop --sample/--db to "
                      "ask any question, in another --out directory)")


def _check_names(options: EvalOptions) -> Options | None:
    """Fail before the first question on an unknown preset, linker, stage or option, not once per question;
    returns the validated options (None when scoring given predictions)."""
    if options.stage not in ("full", "link"):
        raise ConfigError(f"unknown stage {options.stage!r}; use full or link")
    if options.predictions:
        return None
    return _settings(options, options.options)


def _settings(options: EvalOptions, raw: dict[str, Any] | Options) -> Options:
    """`raw` validated for the run: against the preset and its linkers, or (--stage link) the linkers only."""
    given = dict(raw.given() if isinstance(raw, Options) else raw)
    if options.linker:
        given["linker"] = options.linker
    if options.stage == "link":
        from groundsql.knowledge import KnowledgeOptions
        from groundsql.linking import linker_options
        from groundsql.options import combine

        spec = options.linker or "full"
        given.pop("linker", None)
        # the knowledge switches decide which catalog and descriptions the linkers see
        return parse_options(combine(*linker_options(spec), KnowledgeOptions), given, what=f"linker {spec!r}")
    from groundsql.pipelines import preset_options

    return preset_options(options.preset, given)


def _identity(options: EvalOptions, raw: dict[str, Any]) -> dict[str, Any]:
    """The run identity of options as given in an earlier run.json (unchanged when they no longer validate)."""
    try:
        identity = _settings(options, raw).identity()
    except ConfigError:
        return raw
    identity.pop("linker", None)
    return identity


def _config(data: Dataset, options: EvalOptions, settings: Options | None) -> dict[str, Any]:
    """The run's identity (run.json): equal settings give equal identities however they were spelled; options
    hold only what differs from the defaults, `settings` every value for the record."""
    identity = settings.identity() if settings is not None else {}
    linker = identity.pop("linker", None) or options.linker
    return {
        "dataset": str(data.root), "kind": data.kind,
        "preset": None if options.predictions else options.preset,
        "model": None if options.predictions else _model_spec(options.model),
        "models": None if options.predictions or not options.models else
        {role: _model_spec(m) for role, m in sorted(options.models.items())},
        "samples": options.samples, "stage": "score" if options.predictions else options.stage,
        "linker": linker, "predictions": options.predictions, "knowledge": options.knowledge,
        "engine": _engine_display(options.engine) if options.engine else None,
        "options": identity,
        "settings": settings.model_dump(mode="json") if settings is not None else {},
        "keep_distinct": options.keep_distinct,
        "filters": {"db": options.db, "ids": options.ids, "limit": options.limit, "sample": options.sample,
                    "seed": options.seed},
        "previous_run": options.previous,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


class _Job:
    """Evaluates single questions; shared by the worker threads."""

    def __init__(self, data: Dataset, options: EvalOptions, scorer: Scorer, settings: Options | None) -> None:
        self.data = data
        self.options = options
        self.settings = settings
        self.scorer = scorer
        self.schemas = _Schemas()
        self._databases: dict[Path, Database] = {}
        self._lock = threading.Lock()
        self._description_cache: dict[str, dict[str, dict[str, str]]] = {}
        self.engine = EngineGold(options.engine, scorer) if options.engine else None
        self.suite = SuiteGold(data.suite) if data.suite is not None else None
        self.predictions = _read_predictions(options.predictions) if options.predictions else None
        self.model: Model | None = None
        self.roles: dict[str, Model] = {}
        if self.predictions is None:
            # Roles first: a misnamed role model is the likelier mistake, and it is reported before the default
            # model is looked for (which may itself be missing on this machine).
            self.roles = {role: self._load(m) for role, m in (options.models or {}).items()}
            self.model = self._load(options.model)

    def _load(self, model: str | Model | None) -> Model:
        if isinstance(model, Model):
            return model
        return load_model(model, timeout_s=self.options.model_timeout_s)

    def close(self) -> None:
        for database in self._databases.values():
            database.close()

    def database(self, path: Path | str) -> Database:
        """The open database at a path or URL (one per location, shared by the worker threads)."""
        with self._lock:
            if path not in self._databases:
                self._databases[path] = Database(str(path))
            return self._databases[path]

    def location(self, q: Question) -> Path | str | None:
        """Where the question runs: its SQLite file, its copy in the --engine, or a suite's database."""
        if self.engine is not None:
            return self.engine.url(q.db_id)
        return q.db_url or q.db_path

    def suite_check(self, q: Question) -> dict[str, Any]:
        """The suite's database now against its fingerprint at build time (recorded in run.json and reported)."""
        assert self.data.suite is not None
        location = self.location(q)
        assert location is not None
        database = self.database(location)
        now = database_fingerprint(database)
        built = self.data.suite.get("fingerprint") or {}
        changes = fingerprint_changes(built, now)
        if changes:
            log.warning("the database changed since the suite was built: %s; questions whose gold result changed "
                        "are reported as gold_changed, not scored", "; ".join(changes))
        return {"name": self.data.suite.get("name"), "built_at": self.data.suite.get("built_at"),
                "database": database.display, "questions": len(self.data.suite.get("questions") or []),
                "fingerprint_built": built.get("digest"), "fingerprint_now": now.get("digest"),
                "database_changes": changes}

    def _descriptions(self, db_id: str) -> dict[str, dict[str, str]]:
        with self._lock:
            if db_id not in self._description_cache:
                self._description_cache[db_id] = self.data.descriptions(db_id)
            return self._description_cache[db_id]

    def _knowledge(self, q: Question, database: Database) -> tuple[Any | None, list[str]]:
        """The question's knowledge and the sources of the verified examples left out of it (leave-one-out).

        The knowledge is the `--knowledge` folder (its subfolder named by db_id when there is one), else the
        folder found beside the database; the examples that are this very question are left out (see
        `leave_one_out`). None when there is none (then `knowledge.prepare` looks as usual,
        and reports a folder it cannot read on the question). With knowledge off no example reaches a prompt, and a
        `--knowledge` folder still lends its descriptions."""
        from groundsql.evaluation.leave_one_out import without_own_examples
        from groundsql.knowledge import load_for

        folder = None
        if self.options.knowledge:
            root = Path(self.options.knowledge).expanduser()
            folder = root / q.db_id if (root / q.db_id).is_dir() else root
        if self.settings is None or not getattr(self.settings, "knowledge", True):
            return (load_for(database, folder) if folder is not None else None), []
        try:
            loaded = load_for(database, folder)
        except GroundsqlError:
            if folder is not None:
                raise
            return None, []
        if loaded is None:
            return None, []
        gold = self.engine.check(q)[0] if self.engine is not None else None
        return without_own_examples(loaded, q.question, gold or q.gold_sql, database.dialect)

    def evaluate(self, q: Question) -> dict[str, Any]:
        record: dict[str, Any] = {"id": q.id, "db_id": q.db_id, "question": q.question, "difficulty": q.difficulty,
                                  "gold_sql": q.gold_sql, "sql": "", "correct": False, "failure": None,
                                  "error": None, "pipeline_error": None,
                                  "usage": {"prompt_tokens": 0, "completion_tokens": 0, "llm_calls": 0,
                                            "db_queries": 0},
                                  "elapsed_s": 0.0}
        if self.engine is not None:
            gold, excluded, reason = self.engine.check(q)
            record["engine_gold_sql"] = gold
            repair = self.engine.gold_repair(q)
            if repair:
                record["engine_gold_repair"] = repair
            if excluded:  # reported, never counted: the copy cannot give the gold answer
                record.update(correct=None, excluded=excluded, error=reason)
                return record
        if self.suite is not None:
            location = self.location(q)
            excluded, reason = self.suite.check(q, self.database(location)) if location is not None else (None, None)
            if excluded:  # the database changed under this question: reported, never scored
                record.update(correct=None, excluded=excluded, error=reason)
                return record
        if self.predictions is not None:
            return self._score_given(q, record)
        return self._run_pipeline(q, record)

    # -- predictions mode --------------------------------------------------------------------------

    def _score_given(self, q: Question, record: dict[str, Any]) -> dict[str, Any]:
        assert self.predictions is not None
        given = self.predictions.get(str(q.id))
        if given is None:
            record.update(failure="malformed", error="no prediction for this question")
            return record
        record["sql"] = given.get("sql") or ""
        self._score(q, record, given.get("linked_schema"), [])
        return record

    # -- pipeline mode -----------------------------------------------------------------------------

    def _run_pipeline(self, q: Question, record: dict[str, Any]) -> dict[str, Any]:
        from groundsql.context import Context
        from groundsql.pipelines import run

        location = self.location(q)
        if location is None:
            record.update(failure="execution_error", pipeline_error="database file not found",
                          error=f"database {q.db_id} is not in {self.data.root}")
            return record
        assert self.settings is not None
        # db_id: few-shot retrieval never draws from the question's own database; gold_sql is read only after
        # selection, to update expert weights (on another engine: the gold as run there). BIRD's
        # database_description folder beside a database file is found by `knowledge.prepare` itself; the
        # descriptions read here serve databases in another engine.
        database = self.database(location)
        knowledge, left_out = self._knowledge(q, database)
        if left_out:
            record["left_out"] = left_out
        ctx = Context(question=q.question, db=database, models={"default": self.model, **self.roles},
                      evidence=q.evidence, samples=self.options.samples, options=self.settings,
                      gold_sql=record.get("engine_gold_sql") or q.gold_sql, db_id=q.db_id,
                      column_descriptions=self._descriptions(q.db_id) or None, knowledge=knowledge)
        started = time.perf_counter()
        linked: Schema | None = None
        candidates: list[str] = []
        stages: dict[str, str] = {}
        table: Result | None = None  # a final table computed outside SQL, scored instead of the SQL
        try:
            if self.options.stage == "link":
                from groundsql.knowledge import prepare
                from groundsql.linking import link

                prepare(ctx)  # the same catalog and knowledge a full run gets
                linked = link(ctx, self.options.linker or "full").as_mapping()
            else:
                answer = run(ctx, self.options.preset)
                record["sql"] = answer.sql or ""
                record["pipeline_error"] = None
                record["error"] = answer.error
                linked = answer.linked_schema
                candidates = [c.sql for c in answer.candidates]
                stages = dict(answer.stages)
                record["confidence"] = answer.confidence  # for calibration (accuracy by confidence bucket)
                if answer.warnings:
                    record["warnings"] = list(answer.warnings)
                if answer.python_code is not None or answer.views:
                    record["python"] = _python_stage(answer, ctx.trace)
                if answer.result_source == "python":
                    table = answer.result
        except ModelNotInstalled:
            raise  # no question can succeed; stop instead of recording the same failure everywhere
        except GroundsqlError as exc:
            record["pipeline_error"] = record["error"] = str(exc)
        except Exception as exc:  # one broken question must not end a long run; it is recorded, not hidden
            log.exception("question %s failed", q.id)
            record["pipeline_error"] = record["error"] = f"{type(exc).__name__}: {exc}"
        record["elapsed_s"] = round(time.perf_counter() - started, 3)
        record["usage"] = ctx.trace.usage().to_dict()
        if ctx.trace.notes("tree_repair"):  # rules that rewrote a query (kept or not), for per-rule counts
            record["tree_repairs"] = [note["rule"] for note in ctx.trace.notes("tree_repair")]
        shape_repairs = ctx.trace.notes("shape-repair")
        if shape_repairs:  # exact rewrites kept, with the query before and after (per-check won / lost counts)
            record["shape_repairs"] = [{"check": n["check"], "before": n["before"], "after": n["after"]}
                                       for n in shape_repairs]
        found = sorted({name for kind in ("shape", "sanity") for n in ctx.trace.notes(kind)
                        for name in n.get("findings") or []})
        if found:
            record["findings"] = found
        paths = [n["path"] for n in ctx.trace.notes("agentnlq") if n.get("stage") == "outcome"]
        decisions = [n["stage"] for n in ctx.trace.notes("auto") if n.get("stage")]
        if decisions:  # auto: cheap, sanity-repair, escalate, no-escalation, abstain (its benchmark shares)
            record["auto_path"] = decisions
        scored = [n for n in ctx.trace.notes("auto") + ctx.trace.notes("confidence") if "ran" in n]
        if scored:  # the calibration signals behind the last confidence (benchmarks/calibration_fit.py)
            record["signals"] = {k: v for k, v in scored[-1].items() if k in _SIGNAL_FIELDS}
        if paths:  # agentnlq: solved on the fast path, after escalation, or not at all (its benchmark shares)
            record["agentnlq_path"] = paths[-1]
        if ctx.trace.notes("apex.budget"):  # apex: its trajectories and switches, read question by question
            from groundsql.pipelines.apex import apex_record

            record["apex"] = apex_record(ctx.trace)
        recap = [n for n in ctx.trace.notes("recap") if n.get("agent") == "done"]
        if recap:  # recap: rounds of each agent, for the benchmark's per-question counts
            record["recap"] = _recap_counts(recap[-1])
        if self.options.stage == "link":
            record["correct"] = None
            self._link_scores(q, record, linked)
            return record
        self._score(q, record, linked, candidates, stages, table)
        return record

    def _score(self, q: Question, record: dict[str, Any], linked: Schema | None, candidates: list[str],
               stages: dict[str, str] | None = None, table: Result | None = None) -> None:
        """Score the answer's SQL by running it; or, when the answer's final table did not come from its SQL
        (`table`), that table itself (recorded as `scored: python_table`)."""
        location, gold_sql = self.location(q), record.get("engine_gold_sql") or q.gold_sql
        if table is not None:
            verdict = self.scorer.score_table(location, gold_sql, table)
            record["scored"] = "python_table"
        else:
            verdict = self.scorer.score(location, gold_sql, record["sql"])
        record["correct"] = verdict.correct
        record["failure"] = verdict.failure
        if verdict.error and not record.get("error"):
            record["error"] = verdict.error
        marked: dict[str, bool] = {} if table is not None else {record["sql"]: verdict.correct}

        def correct(sql: str) -> bool:
            if sql not in marked:
                marked[sql] = self.scorer.score(location, gold_sql, sql).correct if sql else False
            return marked[sql]

        if stages:
            record["stages"] = {name: {"sql": sql, "correct": correct(sql)} for name, sql in stages.items()}
            if table is not None:  # the last stage is the answer: the Python table
                record["stages"]["python"] = {"sql": None, "correct": verdict.correct}
        if len(candidates) > 1:
            marks = [correct(sql) for sql in candidates]
            record["candidates"] = [{"sql": sql, "correct": ok} for sql, ok in zip(candidates, marks)]
            record["ex_at_k"] = sum(marks) / len(marks)
            record["pass_at_k"] = any(marks)
        self._link_scores(q, record, linked)

    def _link_scores(self, q: Question, record: dict[str, Any], linked: Schema | None) -> None:
        location = q.db_url or q.db_path
        if linked is None or location is None:
            return
        schema = self.schemas.get(self.database(location), Path(str(location)))
        record["linked_schema"] = linked
        record["linking"] = linking_scores(gold_schema(q.gold_sql, schema), linked, schema)
        record["linked_columns"] = sum(len(cols) or len(schema.get(t, [])) for t, cols in linked.items())


class EngineGold:
    """Gold SQL for the copies in another engine: transpiled with sqlglot, then run on the copy and compared with
    the SQLite gold result. A question counts only when they agree; the others are reported as excluded."""

    def __init__(self, template: str, scorer: Scorer) -> None:
        from groundsql.evaluation.load import url_dialect

        self.template = template
        self.scorer = scorer
        self.dialect = url_dialect(template)
        self._names: dict[Path, set[str]] = {}
        self._checked: dict[str, tuple[str | None, str | None, str | None]] = {}
        self._repaired: dict[str, str] = {}  # question id → the rules that made its gold run on the engine
        self._schemas: dict[Path, CatalogSchema] = {}
        self._lock = threading.Lock()

    def url(self, db_id: str) -> str:
        from groundsql.evaluation.load import engine_url

        return engine_url(self.template, db_id)

    def check(self, q: Question) -> tuple[str | None, str | None, str | None]:
        """(gold SQL for the engine, exclusion class or None, why it was excluded)."""
        key = str(q.id)
        with self._lock:
            if key in self._checked:
                return self._checked[key]
        found = self._check(q)
        with self._lock:
            self._checked[key] = found
        return found

    def _check(self, q: Question) -> tuple[str | None, str | None, str | None]:
        from groundsql.evaluation.transpile import GoldNotTranspilable, transpile_gold

        if q.db_path is None:
            return None, "gold_error", f"the SQLite original of {q.db_id} is missing, so the gold cannot be checked"
        try:
            gold = transpile_gold(q.gold_sql, self.dialect, self.names(q.db_path),
                                  self._original_schema(q.db_path) if q.db_path is not None else None)
        except GoldNotTranspilable as exc:
            return None, "untranspilable", f"gold SQL does not transpile to {self.dialect}: {exc}"
        original = self.scorer.gold_result(q.db_path, q.gold_sql)
        if isinstance(original, str):
            return gold, "gold_error", f"gold SQL fails on SQLite: {original}"
        copied = self.scorer.gold_result(self.url(q.db_id), gold)
        if isinstance(copied, str):
            repaired = self._repair(q, gold, copied)
            if repaired is not None and not isinstance(again := self.scorer.gold_result(self.url(q.db_id),
                                                                                        repaired[0]), str):
                gold, copied = repaired[0], again
                with self._lock:
                    self._repaired[str(q.id)] = repaired[1]
        if isinstance(copied, str):
            return gold, "gold_error", f"transpiled gold fails on {self.dialect}: {copied}"
        if not self.scorer.equal(original, copied, gold, self.dialect):
            return gold, "gold_mismatch", (f"transpiled gold returns a different result on {self.dialect} "
                                           f"({copied.row_count} rows vs {original.row_count} on SQLite)")
        return gold, None, None

    def regrouped(self, q: Question) -> bool:
        """Whether the question's gold ran on the engine only after a tree repair rule (`gold_repair`)."""
        return self.gold_repair(q) is not None

    def gold_repair(self, q: Question) -> str | None:
        """The rules ("grouping", "grouping, bare", "types", …) after which the question's gold ran on the engine;
        None when it ran as transpiled."""
        with self._lock:
            return self._repaired.get(str(q.id))

    def _repair(self, q: Question, gold: str, error: str) -> tuple[str, str] | None:
        """(gold, rules) with SQLite's leniency the engine refused stated by the tree repair's rules: the columns
        the grouped keys determine added to GROUP BY, other bare columns as SQLite picks them, text compared with
        numbers as SQLite reads it, a scalar subquery's first row. The caller keeps it only when its result still
        equals the SQLite gold."""
        from groundsql.generation.tree_repair import declared_join_graph
        from groundsql.sql.repairs import (
            RepairFacts,
            aggregate_bare_columns,
            compare_as_sqlite,
            group_dependent_columns,
            limit_scalar_subqueries,
        )
        from groundsql.sql.repairs.base import parse_query

        if q.db_path is None:
            return None
        tree = parse_query(gold, self.dialect)
        if tree is None:
            return None
        schema = self._original_schema(q.db_path)
        facts = RepairFacts(schema=schema, joins=declared_join_graph(schema), dialect=self.dialect, error=error)
        rules = (("grouping", group_dependent_columns), ("bare", aggregate_bare_columns),
                 ("types", compare_as_sqlite), ("subquery", limit_scalar_subqueries))
        fired = [name for name, rule in rules if rule(tree, facts).changes]
        return (tree.sql(dialect=self.dialect), ", ".join(fired)) if fired else None

    def _original_schema(self, path: Path) -> CatalogSchema:
        """The SQLite original's declared structure (its keys, which a Spark copy cannot declare)."""
        from groundsql.catalog import introspect

        with self._lock:
            if path in self._schemas:
                return self._schemas[path]
        with Database(str(path)) as db:
            schema = introspect(db)
        with self._lock:
            self._schemas[path] = schema
        return schema

    def names(self, path: Path) -> set[str]:
        import sqlite3

        with self._lock:
            if path in self._names:
                return self._names[path]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
            found = {t.lower() for t in tables}
            for table in tables:
                quoted = '"' + table.replace('"', '""') + '"'
                found |= {r[1].lower() for r in conn.execute(f"PRAGMA table_info({quoted})")}
        finally:
            conn.close()
        with self._lock:
            self._names[path] = found
        return found


def _python_stage(answer: Answer, trace: Trace) -> dict[str, Any]:
    """Whether the answer's Python stage ran, how many attempts it made, whether its table is the answer, and what
    to read when it is wrong: the code of its last attempt and the last attempt's problem (None when it ran)."""
    attempts = trace.notes("prospy.python")
    return {"ran": answer.python_code is not None, "attempts": len(attempts), "ok": answer.result_source == "python",
            "code": answer.python_code, "problem": attempts[-1].get("problem") if attempts else None}


def _engine_display(template: str) -> str:
    from groundsql.evaluation.load import _display

    return _display(template)


def _recap_counts(done: dict[str, Any]) -> dict[str, Any]:
    """The counts of one recap run's final note: actions, critique and refinement rounds, the SQL critic's
    revisions (offered, adopted), validator verdicts."""
    verdicts = [bool(v) for v in done.get("verdicts") or []]
    revisions = [bool(v) for v in done.get("sql_revisions") or []]
    return {"steps": done.get("steps"), "validated": bool(done.get("validated")),
            "plan_versions": done.get("plan_versions"), "plan_critique_rounds": done.get("plan_critique_rounds"),
            "refine_rounds": done.get("refine_rounds"), "relinks": done.get("relinks"),
            "validator_rejections": verdicts.count(False), "sql_revisions": len(revisions),
            "sql_revisions_adopted": revisions.count(True)}


def _model_spec(model: str | Model | None) -> str:
    if isinstance(model, Model):
        return model.spec
    from groundsql.models import DEFAULT_MODEL

    return model or DEFAULT_MODEL


def _read_predictions(path: str) -> dict[str, dict[str, Any]]:
    """{id: {"sql": ..., "linked_schema": ...}} from a JSON Lines file."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"predictions file not found: {file}")
    found: dict[str, dict[str, Any]] = {}
    with file.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ConfigError(f"{file}:{number}: not UTF-8 text (bad byte at position {exc.start})") from None
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                raise ConfigError(f"{file}:{number}: not valid JSON; expected an object with 'id' and 'sql'") from None
            if not isinstance(item, dict) or "id" not in item:
                raise ConfigError(f"{file}:{number}: expected a JSON object with 'id' and 'sql'")
            if not isinstance(item["id"], (str, int)) or isinstance(item["id"], bool):
                raise ConfigError(f"{file}:{number}: 'id' must be a string or a whole number")
            if item.get("sql") is not None and not isinstance(item["sql"], str):
                raise ConfigError(f"{file}:{number}: 'sql' must be a string, got {type(item['sql']).__name__}")
            linked = item.get("linked_schema")
            if linked is not None and not _is_linked_schema(linked):
                raise ConfigError(f"{file}:{number}: 'linked_schema' must be an object of table → list of column "
                                  f"names ({{\"singer\": [\"name\"]}}), got {json.dumps(linked)[:80]}")
            found[str(item["id"])] = item
    return found


def _is_linked_schema(value: Any) -> bool:
    """`{table: [column, …]}`: string keys, each a list of strings (an empty list keeps every column)."""
    return isinstance(value, dict) and all(
        isinstance(table, str) and isinstance(columns, list) and all(isinstance(c, str) for c in columns)
        for table, columns in value.items())
