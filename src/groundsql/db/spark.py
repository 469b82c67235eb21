"""Spark as an engine: a cluster master (`spark://`), Spark Connect (`sc://`) or a local session (`spark+local://`).

Work is pushed down as Spark SQL; only capped results come back to the driver. Spark has no read-only session,
so every statement passes the common guard plus Spark's own checks (`spark_guard`), each query runs in its own
job group (or Spark Connect tag) that is cancelled at the time limit and again until the query returns (jobs
submitted after a cancellation would otherwise run on), and rows are capped with `take`.
Each `SparkDatabase` gets a session of its own (temporary views and current database are not shared), over one
SparkContext per process (local and cluster modes).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundsql.db.database import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, Database, _first_line, _warm_dialect
from groundsql.db.guard import Scope, check_statement, parser_failures_refused
from groundsql.db.limits import EngineLimits
from groundsql.db.result import Result
from groundsql.db.spark_guard import check_spark_statement, check_spark_text, check_spark_tree, executable_sql
from groundsql.db.spark_urls import (
    is_spark_url,
    parquet_comment,
    spark_connection_url,
    spark_database,
    spark_local_path,
    spark_mode,
    spark_tables,
)
from groundsql.db.urls import parse_target
from groundsql.errors import ConfigError, DatabaseError, QueryTimeout

log = logging.getLogger("groundsql")

#: Settings for a local session started by groundsql (an existing session in the process is reused as is).
#: Variable substitution off: Spark would otherwise replace `${…}` in a statement after the guard read it.
#: The driver's heap and the size of the results it collects are bounded, so one statement cannot take the
#: machine's memory; a JVM out of memory exits (and is restarted) rather than limping on. Spark's SQL parser
#: (ANTLR) caches what it learns from every statement it parses and never lets go: tens of thousands of distinct
#: statements (a long-running server, the fuzz run) fill the driver's heap until the JVM dies, so the session
#: manages those caches and flushes them once they reach 5% of the driver's memory.
LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",
    "spark.sql.variable.substitute": "false",
    "spark.driver.memory": "1g",
    "spark.driver.maxResultSize": "256m",
    "spark.sql.parser.manageParserCaches": "true",
    "spark.sql.parser.parserDfaCacheFlushRatio": "5",
}

#: Session settings groundsql sets on every session it opens (its own, on a cluster, through Spark Connect).
#: A sort under a LIMIT above the top-K threshold is a global sort, which spills, instead of an in-memory top-K
#: whose buffer is sized by the LIMIT: `… ORDER BY x LIMIT 1000000000` in a subquery (the row cap only reaches
#: the outer query) otherwise ends the JVM out of memory at once (fuzz finding 10). Same rows either way.
SESSION_CONF = {"spark.sql.variable.substitute": "false",
                "spark.sql.execution.topKSortFallbackThreshold": "100000"}

#: Seconds past the time limit after which a query that cancellation did not stop counts as stuck: a local
#: session groundsql started is then restarted (its JVM ended), any other one is interrupted and reported.
STUCK_AFTER_S = 1.0

_START_LOCK = threading.Lock()


@dataclass(frozen=True)
class SparkColumn:
    name: str
    type: str
    nullable: bool
    comment: str | None


@dataclass(frozen=True)
class SparkRelation:
    """A table or view of the session's current database, as the Spark catalog lists it."""

    name: str
    is_view: bool
    comment: str | None
    columns: tuple[SparkColumn, ...]


class SparkDatabase(Database, handles=is_spark_url):
    """One Spark SQL session, guarded and limited like every other `Database` (made by `Database(url)`)."""

    def __init__(self, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_rows: int = DEFAULT_MAX_ROWS,
                 allow_system_catalogs: bool = False, limits: EngineLimits | None = None):
        if timeout_s <= 0 or max_rows <= 0:
            raise ConfigError("timeout and row limit must be positive")
        self.target = parse_target(url)
        self.timeout_s = timeout_s
        self.max_rows = max_rows
        self.allow_system_catalogs = allow_system_catalogs
        self.limits = limits or EngineLimits()  # memory is the cluster's own configuration on Spark
        self._scope: Scope | None = None
        self._scope_lock = threading.Lock()
        self.mode = spark_mode(url)
        self._url = url
        self._file_views: dict[str, str | None] = {}  # a file's table → the comment its footer records
        self._session, self._generation = _open_session(url), _GENERATION
        _warm_dialect(self.dialect)
        self._prepare_session()

    # -- public -----------------------------------------------------------------------------------

    @property
    def engine(self):  # type: ignore[override]
        raise DatabaseError("Spark has no SQLAlchemy engine; use Database.execute and SparkDatabase.relations")

    @property
    def session(self) -> Any:
        """The pyspark `SparkSession` (for loading data in tests and `eval load`; queries go through execute)."""
        return self._live_session()

    def execute(self, sql: str, *, max_rows: int | None = None, timeout_s: float | None = None) -> Result:
        """Check `sql` with the common guard and Spark's own checks, then run it, without its comments, within
        the limits."""
        with parser_failures_refused():
            check_spark_text(sql)
            check_spark_statement(sql)
            check_spark_tree(check_statement(sql, self.dialect, allow_system_catalogs=self.allow_system_catalogs))
            check_statement(sql, self.dialect, scope=self.scope(), allow_system_catalogs=self.allow_system_catalogs)
            runnable = executable_sql(sql).strip().rstrip(";").strip()
        return self._run(runnable, max_rows or self.max_rows, timeout_s or self.timeout_s)

    def execute_catalog_query(self, sql: str, *, max_rows: int | None = None) -> Result:
        check_spark_text(sql)
        check_spark_tree(check_statement(sql, self.dialect, allow_system_catalogs=True))
        return self._run(executable_sql(sql).strip().rstrip(";").strip(), max_rows or self.max_rows,
                         self.timeout_s)

    def relations(self) -> list[SparkRelation]:
        """Tables and views of the current database (temporary views included), with their columns. Files a
        local session exposes count as tables, with the comment a Parquet footer records (`parquet_comment`)."""
        catalog = self._live_session().catalog
        found: list[SparkRelation] = []
        # Spark lists a temporary view's name in lower case (it matches names whatever their case); a file's
        # table keeps the file's own spelling, as the same data has on SQLite or DuckDB
        files = {name.lower(): name for name in self._file_views}
        try:
            for table in catalog.listTables():
                columns = tuple(SparkColumn(c.name, c.dataType, bool(c.nullable), c.description or None)
                                for c in catalog.listColumns(table.name))
                kind = (table.tableType or "").upper()
                is_file = kind == "TEMPORARY" and table.name.lower() in files
                is_view = kind == "VIEW" or (kind == "TEMPORARY" and not is_file)
                name = files[table.name.lower()] if is_file else table.name
                comment = table.description or (self._file_views[name] if is_file else None)
                found.append(SparkRelation(name, is_view, comment or None, columns))
        except Exception as exc:
            raise DatabaseError(f"cannot list the tables of {self.display}: {_spark_message(exc)}") from None
        return sorted(found, key=lambda r: r.name)  # by the names shown (a file's own case), as other engines list

    def _load_scope(self) -> Scope:
        """The current database's tables and views plus this session's temporary views (unqualified names
        resolve to those first in Spark), qualified by the current catalog."""
        catalog = self._live_session().catalog
        try:
            database = catalog.currentDatabase().lower()
            current_catalog = catalog.currentCatalog().lower()
        except Exception as exc:
            raise DatabaseError(f"cannot read the catalog of {self.display}: {_spark_message(exc)}") from None
        relations = frozenset((database, r.name.lower()) for r in self.relations())
        return Scope(relations, database, current_catalog, refresh=self.refresh_scope)

    def close(self) -> None:
        if self.mode == "connect":
            try:
                self._session.stop()
            except Exception:  # the server may already be gone
                pass
        # Local and cluster sessions share the process's SparkContext; it stops when the process ends.

    @property
    def substitution_off(self) -> bool:
        """Whether this session reports variable substitution off (`${` is refused either way)."""
        try:
            return str(self._session.conf.get("spark.sql.variable.substitute", "true")).lower() == "false"
        except Exception:
            return False

    @property
    def owns_session(self) -> bool:
        """A local session whose JVM groundsql started: it may end and restart it when a statement wedges it."""
        return self.mode == "local" and _owned_context() is not None and self._generation == _GENERATION

    # -- setup ------------------------------------------------------------------------------------

    def _prepare_session(self) -> None:
        """Session settings, the current database and the local folder's files as views."""
        for key, value in SESSION_CONF.items():
            try:
                self._session.conf.set(key, value)
            except Exception as exc:  # a server may forbid it; `${` is refused by the guard regardless
                log.warning("cannot set %s=%s on %s: %s", key, value, self.display, _spark_message(exc))
        database = spark_database(self._url)
        try:
            if database:
                self._session.catalog.setCurrentDatabase(database)
            local = spark_local_path(self._url)
            if local is not None:
                self._file_views.clear()
                self._register_files(local)
        except DatabaseError:
            raise
        except Exception as exc:
            raise DatabaseError(f"cannot open {self.display}: {_spark_message(exc)}") from None

    def _live_session(self) -> Any:
        """This database's session, reopened first when groundsql restarted the local JVM since (or restarts it
        now, when it ended outside a statement)."""
        if self._generation == _GENERATION and self.mode == "local" and not self._alive() \
                and not _restart_local_jvm(self._generation):
            raise DatabaseError(f"the Spark session of {self.display} ended (its SparkContext stopped); "
                                    "connect again")
        if self._generation != _GENERATION:
            if self.mode != "local":
                raise DatabaseError(f"the Spark session of {self.display} ended; connect again")
            log.info("reopening %s on the restarted local Spark session", self.display)
            self._session, self._generation = _open_session(self._url), _GENERATION
            self._prepare_session()
        return self._session

    def _register_files(self, path) -> None:
        """Expose each data file (or Parquet folder) as a temporary view named after it; keep the table comment
        its Parquet footer records (a temporary view has none in the catalog)."""
        for name, data in spark_tables(path).items():
            suffix = data.suffix.lower()
            reader = self._session.read
            if suffix == ".csv":
                frame = reader.option("header", "true").option("inferSchema", "true").csv(str(data))
            elif suffix in (".json", ".jsonl"):
                frame = reader.json(str(data))
            elif suffix == ".orc":
                frame = reader.orc(str(data))
            else:
                frame = reader.parquet(str(data))
            frame.createOrReplaceTempView(name)
            self._file_views[name] = parquet_comment(data)

    # -- execution --------------------------------------------------------------------------------

    def _run(self, sql: str, max_rows: int, timeout_s: float) -> Result:
        """Run an already-checked statement in its own cancellable job group, keeping at most `max_rows`.

        At the time limit the job group is cancelled (again every `CANCEL_EVERY_S`); a statement still running
        `STUCK_AFTER_S` later (planning, or a task that ignores cancellation) ends the local JVM groundsql
        started, so the call returns and the next statement gets a fresh session."""
        session = self._live_session()
        started = time.perf_counter()
        group = f"groundsql-{uuid.uuid4().hex[:12]}"
        fired, done, stuck = threading.Event(), threading.Event(), threading.Event()
        cancel = self._group(group)

        def unstick() -> None:
            stuck.set()
            self._unstick()

        watcher = threading.Thread(target=_cancel_after, args=(timeout_s, cancel, fired, done, unstick), daemon=True)
        try:
            watcher.start()
            frame = session.sql(sql)
            columns = list(frame.columns)
            rows = [tuple(row) for row in frame.take(max_rows + 1)]
        except Exception as exc:
            message = _spark_message(exc)
            if fired.is_set() and not stuck.is_set() and self.owns_session and self._still_running(group):
                stuck.set()  # the job is cancelled but its tasks run on, holding the session's cores
                _kill_local_jvm()
            ended = stuck.is_set() or not self._alive()
            restarted = ended and self.mode == "local" and _restart_local_jvm(self._generation)
            if restarted:
                log.warning("the local Spark session ended (%s); it restarts for the next statement", message)
            if fired.is_set():
                tail = "; it did not stop, so the local Spark session was restarted" if restarted else ""
                raise QueryTimeout(f"query cancelled after {timeout_s:g} s time limit{tail}") from None
            if ended:
                after = "it restarts for the next statement" if restarted else "connect again"
                raise DatabaseError(f"the Spark session ended while running the statement (out of memory or "
                                    f"killed: {message}); {after}") from None
            raise DatabaseError(message) from None
        finally:
            done.set()
            self._end_group(group)
        return Result(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows,
                      elapsed_s=time.perf_counter() - started, sql=sql)

    def _still_running(self, group: str) -> bool:
        """Whether tasks of the cancelled job group `group` still run `STUCK_AFTER_S` after its cancellation
        returned (a task that never checks for cancellation keeps a local session's cores busy for minutes)."""
        deadline = time.monotonic() + STUCK_AFTER_S
        try:
            tracker = self._session.sparkContext.statusTracker()
            while True:
                stages = [tracker.getStageInfo(stage) for job in tracker.getJobIdsForGroup(group)
                          for stage in (getattr(tracker.getJobInfo(job), "stageIds", None) or [])]
                if not any(stage is not None and stage.numActiveTasks > 0 for stage in stages):
                    return False
                if time.monotonic() >= deadline:
                    return True
                time.sleep(0.1)
        except Exception:  # the JVM is gone: nothing runs
            return False

    def _unstick(self) -> None:
        """A statement ignored cancellation past the limit: end the local JVM groundsql started (the blocked
        call then fails at once), or interrupt every operation of a Spark Connect session."""
        if self.mode == "connect":
            self._session.interruptAll()
        elif self.owns_session:
            log.warning("a Spark statement ignored cancellation; ending the local Spark JVM")
            _kill_local_jvm()
        else:
            log.warning("a Spark statement ignored cancellation on a session groundsql did not start; it runs on")

    def _alive(self) -> bool:
        """Whether the session's SparkContext (or Spark Connect server) still answers."""
        try:
            if self.mode == "connect":
                self._session.range(1).collect()
                return True
            return not self._session.sparkContext._jsc.sc().isStopped()
        except Exception:
            return False

    def _group(self, group: str):
        """Tag this thread's next jobs with `group`; return the function that cancels them."""
        session = self._session
        if self.mode == "connect":
            session.addTag(group)
            return lambda: session.interruptTag(group)
        context = session.sparkContext
        context.setJobGroup(group, "groundsql query", interruptOnCancel=True)
        return lambda: context.cancelJobGroup(group)

    def _end_group(self, group: str) -> None:
        try:
            if self.mode == "connect":
                self._session.removeTag(group)
            else:
                self._session.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        except Exception:  # nothing to undo once the session is gone
            pass


#: Seconds between cancellations once the time limit has passed.
CANCEL_EVERY_S = 0.5


def _cancel_after(timeout_s: float, cancel, fired: threading.Event, done: threading.Event, unstick) -> None:
    """At the time limit, cancel the query's jobs, and again every `CANCEL_EVERY_S` until it returns: a
    cancellation only reaches jobs already submitted, and a query still being planned (or between jobs) at the
    limit would otherwise start its jobs afterwards and run to the end. `STUCK_AFTER_S` past the limit,
    `unstick()` once."""
    if done.wait(timeout_s):
        return
    fired.set()
    deadline: float | None = time.monotonic() + STUCK_AFTER_S
    while True:
        try:
            cancel()
        except Exception as exc:  # the session is gone: nothing left to cancel
            log.debug("cancelling a Spark query failed: %s", exc)
            return
        wait = CANCEL_EVERY_S if deadline is None else max(0.0, min(CANCEL_EVERY_S, deadline - time.monotonic()))
        if done.wait(wait):
            return
        if deadline is not None and time.monotonic() >= deadline:
            deadline = None  # once: afterwards keep cancelling jobs the statement still submits (a session
            try:             # groundsql did not start is never ended, so a late job must be cancelled too)
                unstick()
            except Exception as exc:
                log.debug("ending a stuck Spark query failed: %s", exc)


#: The SparkContext groundsql started in this process (None: none, or one the user started), and how many
#: times groundsql restarted it (a `SparkDatabase` made before a restart reopens its session).
_OWNED: dict[str, Any] = {"context": None}
_GENERATION = 0


def _owned_context() -> Any:
    return _OWNED["context"]


def _kill_local_jvm() -> None:
    """End the JVM of the SparkContext groundsql started (Py4J calls waiting on it fail at once)."""
    from pyspark import SparkContext

    process = getattr(SparkContext._gateway, "proc", None)
    if process is not None and process.poll() is None:
        process.kill()
        process.wait(timeout=30)


def _restart_local_jvm(generation: int) -> bool:
    """Forget a local JVM groundsql started that ended or wedged, so that the next session starts a fresh one.
    Returns whether it did (False: already done for `generation`, or not groundsql's JVM)."""
    global _GENERATION
    with _START_LOCK:
        if generation != _GENERATION or _owned_context() is None:
            return False
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        _kill_local_jvm()
        gateway = SparkContext._gateway
        try:
            if gateway is not None:
                gateway.shutdown()
        except Exception:  # its JVM is gone
            pass
        SparkContext._gateway = None
        SparkContext._jvm = None
        SparkContext._active_spark_context = None
        SparkSession._instantiatedSession = None
        SparkSession._activeSession = None
        _OWNED["context"] = None
        _GENERATION += 1
        return True


def _open_session(url: str) -> Any:
    """A new session: Spark Connect makes one per client; local and cluster share the process's SparkContext."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ConfigError("Spark needs pyspark: pip install 'groundsql[spark]' (and Java 17 or newer)") from None
    _quiet_pyspark()
    mode = spark_mode(url)
    master = spark_connection_url(url)
    try:
        if mode == "connect":
            # The Connect client directly: pyspark's generic builder marks the whole process as Spark Connect,
            # after which local sessions can no longer start in it.
            try:
                from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
            except ImportError as exc:
                raise ConfigError(f"Spark Connect needs its client libraries ({str(exc).splitlines()[0]}): "
                                  "pip install 'groundsql[spark]'") from None
            return RemoteSparkSession.builder.remote(master).create()
        with _START_LOCK:
            active = SparkSession.getActiveSession()
            if active is None:
                builder = SparkSession.builder.master(master).appName("groundsql")
                log_conf = Path(__file__).with_name("spark_log4j2.properties")
                java_options = "-XX:+ExitOnOutOfMemoryError"  # a JVM out of memory ends; groundsql restarts it
                if log_conf.is_file():  # the driver JVM starts with it: no WARN wall on the user's terminal
                    java_options += f" -Dlog4j2.configurationFile={log_conf}"
                builder = builder.config("spark.driver.extraJavaOptions", java_options)
                for key, value in LOCAL_CONF.items():
                    builder = builder.config(key, value)
                if mode == "local":  # groundsql writes no managed table: no spark-warehouse/ in the working folder
                    builder = builder.config("spark.sql.warehouse.dir", _private_warehouse())
                active = builder.getOrCreate()
                active.sparkContext.setLogLevel("ERROR")
                if mode == "local":
                    _OWNED["context"] = active.sparkContext
            return active.newSession()
    except ConfigError:
        raise
    except Exception as exc:
        hint = "" if os.environ.get("JAVA_HOME") or _has_java() else " (is Java 17+ installed?)"
        raise DatabaseError(f"cannot start Spark at {master}: {_spark_message(exc)}{hint}") from None


def _private_warehouse() -> str:
    """A temporary folder (removed at exit) for the warehouse of a local session groundsql starts: Spark creates
    its warehouse folder at start, by default `spark-warehouse/` in the current directory."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="groundsql-spark-warehouse-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _has_java() -> bool:
    import shutil

    return shutil.which("java") is not None


def _quiet_pyspark() -> None:
    """PySpark logs every analysis error as a JSON blob on stderr; our errors already carry the message."""
    import warnings

    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark\..*")
    logging.getLogger("py4j").setLevel(logging.ERROR)


def _spark_message(exc: BaseException) -> str:
    """The first useful line of a Spark error (Py4J wraps the Java message on the second line)."""
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("An error occurred while calling"):
            return line.removeprefix(": ").split("; line ", 1)[0]
    return _first_line(exc)
