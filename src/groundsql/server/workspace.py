"""`Workspace`: what one server holds — named databases, the model behind its gate, the run and conversation
stores — and the one library call behind each endpoint and MCP tool."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from groundsql.api import ask as ask_question
from groundsql.api import connect
from groundsql.catalog import Catalog, build_catalog, cached_catalog, introspect
from groundsql.conversations import ConversationStore, ask_in_conversation
from groundsql.db import Database, Result
from groundsql.db.exports import ExportInfo, info_for
from groundsql.errors import ConfigError, GroundsqlError
from groundsql.evaluation.regression import suite_overview
from groundsql.evaluation.suite import build_suite, default_suite_path
from groundsql.knowledge.listing import knowledge_summary, search_knowledge
from groundsql.knowledge.options import KnowledgeOptions
from groundsql.knowledge.store import Added, add_example, add_rule, default_folder
from groundsql.marking import mark_run
from groundsql.models import Model
from groundsql.pipelines import PRESETS, preset_options
from groundsql.runs import Retention, RunStore
from groundsql.server.gate import ModelGate, RunCancelled, Ticket
from groundsql.server.options import ServerOptions
from groundsql.server.payloads import (
    WatchedTrace,
    answer_payload,
    explained,
    schema_payload,
    schema_types,
    table_payload,
)
from groundsql.server.suite_runs import SuiteRunner

log = logging.getLogger("groundsql")


def database_name(url: str) -> str:
    """A short name for a database URL: the file's stem or the database's name."""
    from urllib.parse import urlsplit

    if "://" not in url:
        return Path(url).stem or "db"
    parts = urlsplit(url)
    return Path(parts.path).stem or parts.scheme.split("+")[0]


def parse_database_args(values: list[str]) -> dict[str, str]:
    """``NAME=URL`` or ``URL`` arguments as an ordered {name: url}; the first is the default database."""
    named: dict[str, str] = {}
    for value in values:
        name, sep, url = value.partition("=")
        if not sep or "://" in name or "/" in name or not name.strip():
            name, url = database_name(value), value
        name = name.strip()
        if name in named:
            raise ConfigError(f"two databases are named {name!r}; name them with NAME=URL")
        named[name] = url.strip()
    if not named:
        raise ConfigError("give at least one database with --db URL (or NAME=URL)")
    return named


class Workspace:
    """Named databases and one model, shared by every request.

    Args:
        databases: {name: URL}; the first is the default.
        model: the model every ask uses (loaded once; the local model serialises behind the gate).
        options: limits and defaults.
        runs: the run store (default: the user's state directory).
        knowledge: {name: folder} — the knowledge folder of a database named here (needed for a server database
            such as PostgreSQL, which has no file to keep ``<db file>.knowledge/`` beside); a database not named
            uses the folder beside its file. The folder is created by the first addition.
    """

    def __init__(self, databases: dict[str, str | Database], model: Model, options: ServerOptions | None = None,
                 runs: RunStore | None = None, knowledge: dict[str, str | Path] | None = None):
        self.options = options or ServerOptions()
        if self.options.preset not in PRESETS:
            raise ConfigError(f"unknown preset {self.options.preset!r}; choose one of: {', '.join(sorted(PRESETS))}")
        preset_options(self.options.preset, self.options.preset_options)  # a bad option fails here, not per ask
        self.model = model
        self.databases: dict[str, Database] = {}
        for name, target in databases.items():
            self.databases[name] = target if isinstance(target, Database) else connect(
                target, timeout_s=self.options.statement_timeout_s, max_rows=self.options.max_rows)
        if not self.databases:
            raise ConfigError("a workspace needs at least one database")
        self.knowledge_folders: dict[str, Path] = {}
        for name, folder in (knowledge or {}).items():
            if name not in self.databases:
                raise ConfigError(f"a knowledge folder is given for {name!r}, which is not a served database; "
                                  f"known: {', '.join(self.databases)}")
            self.knowledge_folders[name] = Path(folder).expanduser().resolve()
        self.default_database = next(iter(self.databases))
        concurrency = self.options.model_concurrency or (1 if model.spec.startswith("local:") else 4)
        self.gate = ModelGate(concurrency, self.options.queue_size)
        limits = {"max_age_days": self.options.runs_max_age_days, "max_runs": self.options.runs_max_runs,
                  "max_mb": self.options.runs_max_mb,
                  "conversations_max_age_days": self.options.conversations_max_age_days,
                  "max_conversations": self.options.conversations_max}
        retention = Retention.from_env(**limits)
        self.runs = runs or RunStore(retention=retention)
        if runs is not None and any(v is not None for v in limits.values()):
            runs.retention = retention  # the server's own limits win over the store's
        self.conversations = ConversationStore(self.runs)
        self._catalogs: dict[str, Catalog | None] = {}
        self._types: dict[str, dict[str, dict[str, str]] | None] = {}
        self._catalog_lock = threading.Lock()
        self._catalog_builds: dict[str, threading.Lock] = {}
        self._active: set[WatchedTrace] = set()
        self._active_lock = threading.Lock()
        self._knowledge_lock = threading.Lock()  # one addition to a knowledge folder at a time
        self.suite_runner = SuiteRunner(self.gate)

    # -- databases ------------------------------------------------------------------------------------

    def database(self, name: str | None = None) -> tuple[str, Database]:
        name = name or self.default_database
        try:
            return name, self.databases[name]
        except KeyError:
            raise ConfigError(f"no database named {name!r}; known: {', '.join(self.databases)}") from None

    def list_databases(self) -> list[dict[str, Any]]:
        return [{"name": name, "dialect": db.dialect, "location": db.display, "default": name == self.default_database}
                for name, db in self.databases.items()]

    def catalog(self, name: str | None = None, *, build: bool = False, fresh: bool = False) -> Catalog | None:
        """The database's catalog: the cached one, or (with `build`) profiled now (statistics only, no model).

        A miss is remembered until a call with `build`, or with `fresh`, which looks in the catalog cache again
        (`groundsql profile` may have filled it meanwhile).
        """
        name, db = self.database(name)
        with self._catalog_lock:
            catalog = self._catalogs.get(name)
            if catalog is not None or not (build or fresh or name not in self._catalogs):
                return catalog
            lock = self._catalog_builds.setdefault(name, threading.Lock())
        with lock:  # one look (or profiling) per database at a time; other databases and memoised answers go on
            catalog = self._catalogs.get(name)
            if catalog is None:
                catalog = build_catalog(db) if build else cached_catalog(db)
            with self._catalog_lock:
                self._catalogs[name] = catalog
                if catalog is not None:
                    self._types.pop(name, None)  # lineage types from the catalog from now on
            return catalog

    def _catalog_for_ask(self, name: str, preset: str) -> Catalog | None:
        """The catalog an ask shows the model: profiled here once, before the question (as `groundsql ask` does), when
        the preset renders it; so the schema, `/mcp` and every later request see the same catalog."""
        wanted = getattr(preset_options(preset, self.options.preset_options), "catalog_context", True)
        try:
            return self.catalog(name, build=wanted)
        except GroundsqlError as exc:  # as in the library: the prompt then shows the plain schema
            log.warning("no catalog for %s (%s); the prompt shows the plain schema", name, exc)
            return None

    def column_types(self, name: str | None = None) -> dict[str, dict[str, str]] | None:
        """``{table: {column: type}}`` of a database (introspected once), for lineage."""
        name, db = self.database(name)
        if name not in self._types:
            catalog = self.catalog(name)
            self._types[name] = schema_types(catalog, None if catalog is not None else introspect(db))
        return self._types[name]

    def schema(self, name: str | None = None) -> dict[str, Any]:
        name, db = self.database(name)
        catalog = self.catalog(name, fresh=True)
        return {"database": name, **schema_payload(catalog.schema if catalog is not None else introspect(db), catalog)}

    def profile(self, name: str | None = None, table: str | None = None) -> dict[str, Any]:
        name, _ = self.database(name)
        catalog = self.catalog(name, build=True)
        data = catalog.to_dict(include_values=False, include_schema=False)
        data["database"] = name
        if table is not None:
            profile = catalog.table(table)
            if profile is None:
                raise ConfigError(f"no table {table!r} in {name}")
            data["tables"] = [profile.to_dict()]
        return data

    def search_values(self, text: str, name: str | None = None, limit: int = 10) -> dict[str, Any]:
        name, _ = self.database(name)
        catalog = self.catalog(name, build=True)
        matches = catalog.value_index.lookup(text, limit=max(1, min(limit, 100)))
        return {"database": name, "query": text, "matches": [
            {"table": m.table, "column": m.column, "value": m.value, "score": m.score, "exact": m.exact}
            for m in matches]}

    # -- knowledge (the folder configured for a database, else ``<db file>.knowledge/`` beside its file) ------

    def knowledge_folder(self, name: str | None = None) -> Path | None:
        """The knowledge folder configured for a database (it may not exist yet); None: the one beside its file."""
        name, _ = self.database(name)
        return self.knowledge_folders.get(name)

    def knowledge(self, name: str | None = None) -> dict[str, Any]:
        """What the database's knowledge folder holds: folder, counts, items, problems."""
        name, db = self.database(name)
        return {"database": name, **knowledge_summary(db, self.knowledge_folder(name))}

    def add_example(self, question: str, sql: str, name: str | None = None) -> dict[str, Any]:
        """Add a verified example (checked by the guard and run once, read-only); creates the folder if needed."""
        name, db = self.database(name)
        with self._knowledge_lock:
            return {"database": name, **_outcome(add_example(self._writable_folder(name, db), question, sql, db))}

    def add_rule(self, text: str, name: str | None = None, tables: list[str] | None = None) -> dict[str, Any]:
        """Add a business rule, optionally scoped to tables; creates the folder if needed."""
        name, db = self.database(name)
        with self._knowledge_lock:
            return {"database": name, **_outcome(add_rule(self._writable_folder(name, db), text, tables=tables))}

    def search_knowledge(self, query: str, name: str | None = None, limit: int = 5) -> dict[str, Any]:
        """The knowledge items the configured retriever (`knowledge_retriever`, BM25 by default) finds for `query`:
        kind, text, score, source."""
        name, db = self.database(name)
        settings = KnowledgeOptions.from_options(self.options.preset_options)
        return {"database": name, "query": query,
                "items": search_knowledge(db, query, limit=max(1, min(limit, 50)), folder=self.knowledge_folder(name),
                                          retriever=settings.knowledge_retriever,
                                          embedding_model=settings.embedding_model)}

    def _writable_folder(self, name: str, db: Database) -> Path:
        return self.knowledge_folders.get(name) or default_folder(db)

    # -- marks and suites (how good is it on this database?) -----------------------------------------------

    @property
    def suites_dir(self) -> Path:
        """Where this server's suites live: ``suites/`` beside the run store (GROUNDSQL_STATE_DIR by default)."""
        return self.runs.path.parent / "suites"

    def mark_run(self, run_id: int, verdict: str, sql: str | None = None, learn: bool = False) -> dict[str, Any]:
        """Mark a run's answer right or wrong (a correction is run through the guard first); with `learn`, the
        question and its right SQL also become a verified example."""
        record = self.runs.get(run_id)
        if record is None:
            raise ConfigError(f"no run {run_id}")
        name = next((n for n, db in self.databases.items() if db.display == record["database"]), None)
        if name is None:
            raise ConfigError(f"run {run_id} was asked of a database this server does not serve")
        db = self.databases[name]
        with self._knowledge_lock:
            outcome = mark_run(run_id, verdict, sql=sql, db=db, learn=learn, store=self.runs,
                               folder=self._writable_folder(name, db) if learn else None)
        return {"database": name, **outcome.to_dict()}

    def build_suite(self, name: str | None = None) -> dict[str, Any]:
        """Build the database's suite from its verified examples and marked runs (gold results frozen now)."""
        name, db = self.database(name)
        folder = self.knowledge_folders.get(name)
        report = build_suite(db, folder=folder if folder is not None and folder.is_dir() else None, store=self.runs,
                             out=default_suite_path(db, self.suites_dir))
        return {"database": name, **report.to_dict()}

    def suites(self) -> list[dict[str, Any]]:
        """The suites of the served databases: runs, the latest run's answers and its comparison with the one
        before."""
        served = {db.display: name for name, db in self.databases.items()}
        found = []
        for path in sorted(self.suites_dir.glob("*.json")) if self.suites_dir.is_dir() else []:
            try:
                overview = suite_overview(path)
            except (ValueError, OSError, KeyError, GroundsqlError) as exc:
                log.warning("skipping the suite %s: %s", path.name, exc)
                continue
            if overview["database"] in served:
                found.append({"database_name": served[overview["database"]], **overview})
        return found

    def run_suite(self, suite: str, preset: str | None = None) -> dict[str, Any]:
        """Start scoring the suite named `suite` (a file in `suites_dir`) with `preset` (default: the server's) in
        the background; poll `suite_job` for its progress."""
        chosen = preset or self.options.preset
        if chosen not in PRESETS:
            raise ConfigError(f"unknown preset {chosen!r}; choose one of: {', '.join(sorted(PRESETS))}")
        path = self.suites_dir / f"{suite}.json"
        if "/" in suite or "\\" in suite or suite.startswith(".") or not path.is_file():
            raise ConfigError(f"no suite {suite!r}; build one first")
        recorded = suite_overview(path, questions=False)["database"]
        name = next((n for n, db in self.databases.items() if db.display == recorded), None)
        if name is None:
            raise ConfigError(f"no database of suite {suite!r} is served here ({recorded})")
        return self.suite_runner.start(path, chosen, self.model, self.databases[name].target.url).to_dict()

    def suite_job(self, job_id: int) -> dict[str, Any]:
        return self.suite_runner.get(job_id).to_dict()

    # -- SQL --------------------------------------------------------------------------------------------

    def run_sql(self, sql: str, name: str | None = None, max_rows: int | None = None) -> dict[str, Any]:
        """Run one statement through the guard and limits; the table plus its explanation and chart."""
        name, db = self.database(name)
        started = time.perf_counter()
        cap = min(max_rows or self.options.max_rows, self.options.max_rows)
        result = db.execute(sql, max_rows=cap)
        return {"database": name, "sql": sql, **table_payload(result),
                "elapsed_s": round(time.perf_counter() - started, 3),
                **explained(sql, result, db.dialect, self.catalog(name), self.column_types(name))}

    def run_result(self, run_id: int) -> tuple[Result, ExportInfo]:
        """A stored run's result, for download: its SQL run again (through the guard, under the server's row cap)
        on the database it was asked of. The run store keeps no rows, so this is the result as of now."""
        record = self.runs.get(run_id)
        if record is None:
            raise ConfigError(f"no run {run_id}")
        if not record.get("sql"):
            raise ConfigError(f"run {run_id} has no SQL to run (its answer failed or asked for a clarification)")
        name = next((n for n, db in self.databases.items() if db.display == record["database"]), None)
        if name is None:
            raise ConfigError(f"no database of run {run_id} is served here ({record['database']})")
        result = self.databases[name].execute(record["sql"], max_rows=self.options.max_rows)
        return result, info_for(result, question=record["question"], sql=record["sql"],
                                row_cap=self.options.max_rows)

    # -- asking -----------------------------------------------------------------------------------------

    def admit(self) -> Ticket:
        """A place in the model's queue, or `QueueFull` at once."""
        return self.gate.admit()

    def ask(self, question: str, name: str | None = None, *, conversation_id: str | None = None,
            evidence: str | None = None, preset: str | None = None, trace: WatchedTrace | None = None,
            ticket: Ticket | None = None) -> dict[str, Any]:
        """Answer a question (a conversation's next one when `conversation_id` is given), within the gate.

        The caller may hold a `ticket` from `admit`; it is released here whatever happens.
        """
        ticket = ticket or self.admit()
        trace = trace if trace is not None else WatchedTrace()
        with self._active_lock:
            self._active.add(trace)
        try:
            if conversation_id is not None:
                conversation = self.conversations.get(conversation_id)
                name = name or (conversation.database if conversation.database in self.databases else None)
            name, db = self.database(name)
            chosen = preset or self.options.preset
            if chosen not in PRESETS:
                raise ConfigError(f"unknown preset {chosen!r}; choose one of: {', '.join(sorted(PRESETS))}")
            catalog = self._catalog_for_ask(name, chosen) if self.options.use_catalog else None
            # without use_catalog, say so (False): `ask` would otherwise profile the database for its prompts
            settings = {"preset": chosen, "samples": self.options.samples,
                        "options": dict(self.options.preset_options),
                        "catalog": catalog if self.options.use_catalog else False}
            folder = self.knowledge_folders.get(name)
            if folder is not None and folder.is_dir():  # a folder not created yet holds nothing to load
                settings["knowledge"] = folder
            if trace.on_provisional is not None:
                settings["on_provisional"] = trace.on_provisional
            with self.gate.slot(trace.cancelled.is_set):
                if trace.cancelled.is_set():
                    raise RunCancelled("the run was cancelled")
                if conversation_id is not None:
                    answer, turn = ask_in_conversation(
                        self.conversations, conversation_id, question, db, model=self.model, evidence=evidence,
                        trace=trace, record=self.options.record, **settings)
                    run_id, turn_data = turn.run_id, turn.to_dict()
                else:
                    answer = ask_question(question, db, model=self.model, evidence=evidence, trace=trace, **settings)
                    run_id = self.runs.record(answer, db.display) if self.options.record else None
                    turn_data = None
            return answer_payload(answer, database=name, dialect=db.dialect, catalog=catalog, run_id=run_id,
                                  turn=turn_data, types=self.column_types(name))
        finally:
            with self._active_lock:
                self._active.discard(trace)
            ticket.release()

    def create_conversation(self, name: str | None = None, title: str | None = None) -> dict[str, Any]:
        name, _ = self.database(name)
        return self.conversations.create(name, title).to_dict()

    def cancel_all(self) -> int:
        """Cancel every run in flight (each stops at its next step); returns how many."""
        with self._active_lock:
            active = list(self._active)
        for trace in active:
            trace.cancelled.set()
        return len(active)

    def close(self) -> None:
        self.cancel_all()
        self.suite_runner.stop()
        for db in self.databases.values():
            db.close()


def _outcome(added: Added) -> dict[str, Any]:
    return {"added": added.added, "path": str(added.path), "reason": added.reason}
