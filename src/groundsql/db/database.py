"""`Database`: the only path from groundsql to an engine — guarded, read-only, time- and row-limited."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
import sqlglot
from sqlalchemy.pool import QueuePool, StaticPool

from groundsql.db.column_types import declared_types, engine_types
from groundsql.db.files import check_csv_file, check_not_empty, check_sqlite_file
from groundsql.db.guard import ALLOWED_ROOTS, Scope, check_statement
from groundsql.db.limits import EngineLimits, check_max_rows, check_timeout
from groundsql.db.result import Result
from groundsql.db.urls import Target, parse_target
from groundsql.errors import ConfigError, DatabaseError, QueryTimeout

log = logging.getLogger("groundsql")

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_ROWS = 1000
#: SQLite connections kept open for reuse; threads beyond it get their own connection for the statement.
SQLITE_POOL_SIZE = 8
#: Engines with a module of their own, each with the test of the URLs it serves (`Database.__init_subclass__`).
_ENGINES: list[tuple[Callable[[str], bool], type[Database]]] = []


class Database:
    """One database, opened read-only.

    Args:
        url: a SQLAlchemy-style URL or a bare file path (see `parse_target`).
        timeout_s: default statement time limit in seconds.
        max_rows: default row cap; results beyond it are cut and flagged `truncated`.
        allow_system_catalogs: let statements read system catalogs, other databases and catalog functions
            (off by default: model-written SQL reads only this database's own tables and views).
        limits: memory and size bounds held by the engine (`EngineLimits` defaults when None).
    """

    def __init_subclass__(cls, *, handles: Callable[[str], bool] | None = None, **kwargs: Any) -> None:
        """An engine with a module of its own (Spark: pyspark, no SQLAlchemy) subclasses `Database` with
        `handles=` a test of the URLs it serves; `Database(url)` then builds that subclass."""
        super().__init_subclass__(**kwargs)
        if handles is not None:
            _ENGINES.append((handles, cls))

    def __new__(cls, url: str, **settings: Any) -> Database:
        if cls is Database:
            engine = next((engine for handles, engine in _ENGINES if handles(url)), cls)
            return super().__new__(engine)
        return super().__new__(cls)

    def __init__(self, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_rows: int = DEFAULT_MAX_ROWS,
                 allow_system_catalogs: bool = False, limits: EngineLimits | None = None):
        self.timeout_s = check_timeout(timeout_s)
        self.max_rows = check_max_rows(max_rows)
        self.target: Target = parse_target(url)
        self._check_files()
        self.allow_system_catalogs = allow_system_catalogs
        self.limits = limits or EngineLimits()
        self._scope: Scope | None = None
        self._scope_lock = threading.Lock()
        self._superuser: bool | None = None
        self._declared: dict[str, dict[str, str] | None] = {}  # SQLite declared column types, per table
        self._engine = self._create_engine()
        self._engine_lock = threading.Lock()  # in-memory DuckDB has exactly one connection
        _warm_dialect(self.dialect)
        self._check_connection()

    # -- public -----------------------------------------------------------------------------------

    @property
    def dialect(self) -> str:
        """The sqlglot dialect name: sqlite, duckdb, postgres, mysql or spark."""
        return self.target.dialect

    @property
    def backend(self) -> str:
        return self.target.backend

    @property
    def display(self) -> str:
        """The database's location with any password masked."""
        return self.target.display

    @property
    def engine(self) -> sa.Engine:
        """The SQLAlchemy engine, for introspection only (the inspector reads catalog tables)."""
        return self._engine

    def execute(self, sql: str, *, max_rows: int | None = None, timeout_s: float | None = None) -> Result:
        """Check `sql` with the guard, then run it read-only within the time and row limits.

        Raises:
            RefusedStatement: the guard refused the statement.
            QueryTimeout: the statement ran past the time limit.
            DatabaseError: the engine reported an error.
        """
        statement = check_statement(sql, self.dialect, scope=self.scope(),
                                    allow_system_catalogs=self.allow_system_catalogs)
        max_rows = self.max_rows if max_rows is None else check_max_rows(max_rows)
        timeout_s = self.timeout_s if timeout_s is None else check_timeout(timeout_s)
        result = self._run(sql.strip().rstrip(";"), max_rows, timeout_s,
                           server_cursor=isinstance(statement, ALLOWED_ROOTS))
        if self.backend == "sqlite" and result.columns:
            try:
                result.types = declared_types(statement, result.columns, self._declared_columns)
            except Exception:  # noqa: BLE001 - types are a courtesy for DataFrames; the rows stand without them
                log.debug("no declared types for %s", sql, exc_info=True)
        return result

    def execute_catalog_query(self, sql: str, *, max_rows: int | None = None) -> Result:
        """groundsql's own introspection: a read-only query that may read system catalogs.

        Never pass model-written or user-written SQL here; `execute` is the path for those.
        """
        check_statement(sql, self.dialect, allow_system_catalogs=True)
        return self._run(sql.strip().rstrip(";"), max_rows or self.max_rows, self.timeout_s)

    def scope(self) -> Scope:
        """The relations statements may read: this database's own tables and views (read once, cached)."""
        with self._scope_lock:
            if self._scope is None:
                self._scope = self._load_scope()
            return self._scope

    def refresh_scope(self) -> Scope:
        """Re-read the relations (a table created since the first statement)."""
        with self._scope_lock:
            self._scope = self._load_scope()
            return self._scope

    def close(self) -> None:
        self._engine.dispose()

    def _declared_columns(self, table: str) -> dict[str, str] | None:
        """SQLite: {column: declared type} of `table` (lowercase names), read once; None when there is none."""
        cache = self._declared
        key = table.lower()
        if key not in cache:
            with self._raw_connection() as raw:
                rows = raw.execute("SELECT name, type FROM pragma_table_info(?)", (table,)).fetchall()
            cache[key] = {str(name).lower(): str(kind or "") for name, kind in rows} or None
        return cache[key]

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Database({self.display!r}, dialect={self.dialect!r})"

    # -- engine setup -----------------------------------------------------------------------------

    def _check_files(self) -> None:
        """Refuse, before any engine work, a file that is empty or not what its name says."""
        t = self.target
        if t.backend == "sqlite" and t.path is not None:
            check_sqlite_file(t.path)
        elif t.path is not None:
            check_not_empty(t.path)

    def _create_engine(self) -> sa.Engine:
        t = self.target
        if t.backend == "sqlite":
            uri = f"file:{quote(str(t.path))}?mode=ro"

            def connect() -> sqlite3.Connection:
                conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
                conn.execute("PRAGMA query_only = ON")
                return conn

            # A queue pool hands each connection to one thread at a time and never closes one another thread
            # is using (the default for a creator-built SQLite engine did, and crashed under 6+ workers).
            return sa.create_engine("sqlite://", creator=connect, poolclass=QueuePool,
                                    pool_size=SQLITE_POOL_SIZE, max_overflow=-1)
        if t.backend == "duckdb" and t.data_files:
            engine = sa.create_engine("duckdb:///:memory:", poolclass=StaticPool)
            self._load_data_files(engine)
            return engine
        if t.backend == "duckdb":
            return sa.create_engine(
                t.url, connect_args={"read_only": True, "config": {"enable_external_access": False,
                                                                    **self._duckdb_bounds()}}
            )
        if t.backend == "postgresql":
            # standard_conforming_strings: backslashes in '' strings mean what sqlglot read them as.
            return sa.create_engine(
                t.url,
                connect_args={"options": "-c default_transaction_read_only=on -c standard_conforming_strings=on",
                              "connect_timeout": 10},
                pool_pre_ping=True,
            )
        if t.backend == "mysql":
            try:
                import pymysql  # noqa: F401
            except ImportError:
                raise ConfigError("MySQL/MariaDB needs the pymysql driver: pip install 'groundsql[mysql]'") from None
            return sa.create_engine(t.url, connect_args={"connect_timeout": 10}, pool_pre_ping=True)
        raise ConfigError(f"unsupported backend {t.backend}")

    def _load_data_files(self, engine: sa.Engine) -> None:
        """Copy CSV/Parquet/JSON files into the private in-memory database, then cut off file access."""
        readers = {".csv": "read_csv_auto", ".parquet": "read_parquet", ".json": "read_json_auto",
                   ".jsonl": "read_json_auto"}
        with engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            for path in self.target.data_files:
                name = path.stem.replace("'", "").replace('"', "") or "data"
                suffix = path.suffix.lower()
                width = check_csv_file(path) if suffix == ".csv" else None
                reader = readers[suffix]
                literal = str(path).replace("'", "''")
                raw.execute(f"CREATE TABLE \"{name}\" AS SELECT * FROM {reader}('{literal}')")
                loaded = len(raw.execute(f"SELECT * FROM \"{name}\" LIMIT 0").description)
                if width is not None and loaded != width:
                    raise ConfigError(f"{path}: the header has {width} fields but {loaded} column(s) were read; "
                                      "check the delimiter and quoting")
            for name, value in self._duckdb_bounds().items():
                raw.execute(f"SET {name} = '{value}'")
            raw.execute("SET enable_external_access = false")
            raw.execute("SET lock_configuration = true")

    def _duckdb_bounds(self) -> dict[str, str]:
        """Memory and threads for DuckDB; no spilling to a temporary folder next to the user's file."""
        return {"memory_limit": f"{self.limits.memory_mb}MB", "threads": str(self.limits.threads),
                "temp_directory": ""}

    def _load_scope(self) -> Scope:
        backend = self.backend
        if backend == "sqlite":
            rows = self.execute_catalog_query(
                "SELECT 'main', name FROM sqlite_master WHERE type IN ('table', 'view')", max_rows=1_000_000).rows
            default, database = "main", None
        elif backend == "duckdb":
            rows = self.execute_catalog_query(
                "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
                "UNION ALL SELECT schema_name, view_name FROM duckdb_views() "
                "WHERE database_name = current_database() AND NOT internal", max_rows=1_000_000).rows
            default, database = self.execute_catalog_query("SELECT current_schema(), current_database()").rows[0]
        elif backend == "postgresql":
            rows = self.execute_catalog_query(
                "SELECT n.nspname, c.relname FROM pg_catalog.pg_class AS c "
                "JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace "
                "WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname = current_schema()",
                max_rows=1_000_000).rows
            default, database = self.execute_catalog_query("SELECT current_schema(), current_database()").rows[0]
        elif backend == "mysql":
            rows = self.execute_catalog_query(
                "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
                max_rows=1_000_000).rows
            default = database = self.execute_catalog_query("SELECT DATABASE()").rows[0][0]
        else:  # fail closed: a new backend must say which relations are its own
            raise ConfigError(f"no relation scope for {backend}: list its relations in Database._load_scope")
        relations = frozenset((str(schema).lower(), str(name).lower()) for schema, name in rows)
        return Scope(relations, str(default or "").lower(), str(database).lower() if database else None,
                     refresh=self.refresh_scope)

    def _check_connection(self) -> None:
        try:
            with self._engine.connect() as conn:
                if self.backend == "sqlite":  # reads the schema page: a damaged file fails here, not later
                    conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").fetchone()
        except sa.exc.SQLAlchemyError as exc:
            damaged = ("not a database", "malformed", "corrupt")
            if self.backend == "sqlite" and any(m in _first_line(exc).lower() for m in damaged):
                raise ConfigError(f"{self.display} is not a readable SQLite database ({_first_line(exc)})") from None
            raise DatabaseError(f"cannot connect to {self.display}: {_first_line(exc)}") from None
        except Exception as exc:  # driver errors not wrapped by SQLAlchemy (duckdb, sqlite3)
            raise DatabaseError(f"cannot open {self.display}: {_first_line(exc)}") from None

    # -- execution --------------------------------------------------------------------------------

    def _run(self, sql: str, max_rows: int, timeout_s: float, *, server_cursor: bool = False) -> Result:
        """Run an already-checked statement. Tests call this directly to show the engine itself refuses writes.

        `server_cursor`: the statement is a plain query, so PostgreSQL may stream it through a server-side
        cursor and only `max_rows + 1` rows ever leave the server.
        """
        started = time.perf_counter()
        try:
            with self._raw_connection() as raw, self._limits(raw, timeout_s, max_rows):
                cursor = self._cursor(raw, server_cursor)
                try:
                    cursor.execute(sql)
                    columns = [d[0] for d in cursor.description or []]
                    types = engine_types(self.backend, cursor.description)
                    rows = [tuple(r) for r in cursor.fetchmany(max_rows + 1)] if columns else []
                finally:
                    _close_quietly(cursor)
                    if self.backend == "duckdb":
                        # A result still streaming would otherwise run to completion when the transaction
                        # is rolled back at release, after the timer is gone; interrupting an idle
                        # connection does nothing.
                        raw.interrupt()
        except QueryTimeout:
            raise
        except Exception as exc:
            message = _first_line(exc)
            if _is_timeout(message):
                raise QueryTimeout(f"query cancelled after {timeout_s:g} s time limit") from None
            raise DatabaseError(message) from None
        truncated = len(rows) > max_rows
        return Result(
            columns=columns,
            rows=rows[:max_rows],
            truncated=truncated,
            elapsed_s=time.perf_counter() - started,
            sql=sql,
            types=types if any(types) else [],
        )

    def _cursor(self, raw: Any, server_cursor: bool) -> Any:
        """A cursor that fetches incrementally where the driver would otherwise buffer the whole result."""
        if self.backend == "postgresql" and server_cursor:
            return raw.cursor(name=f"groundsql_{threading.get_ident()}")
        if self.backend == "mysql":
            import pymysql.cursors

            return raw.cursor(pymysql.cursors.SSCursor)
        return raw.cursor()

    @contextmanager
    def _raw_connection(self) -> Iterator[Any]:
        lock = self._engine_lock if self.target.data_files else _NullLock()
        with lock, self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            try:
                yield raw
            except BaseException:
                if self.backend in ("mysql", "duckdb") and not self.target.data_files:
                    conn.invalidate()  # a cancelled statement may leave session state behind: never reuse it
                raise
            finally:
                if not conn.invalidated:
                    try:
                        raw.rollback()
                    except Exception:  # some drivers complain when there is nothing to roll back
                        pass

    @contextmanager
    def _limits(self, raw: Any, timeout_s: float, max_rows: int) -> Iterator[None]:
        """Time, row and memory limits held by the engine for one statement; the interrupt stays armed until
        the statement's cursor is closed."""
        backend = self.backend
        limits = self.limits
        if backend == "sqlite":
            deadline = time.monotonic() + timeout_s
            raw.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
            if hasattr(raw, "setlimit"):
                raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.max_value_mb * 1024 * 1024)
            try:
                yield
            finally:
                raw.set_progress_handler(None, 0)
        elif backend == "duckdb":
            timer = threading.Timer(timeout_s, raw.interrupt)
            timer.start()
            try:
                yield
            finally:
                timer.cancel()
        elif backend == "postgresql":
            if self._superuser is None:
                with raw.cursor() as cur:
                    cur.execute("SHOW is_superuser")
                    self._superuser = cur.fetchone()[0] == "on"
                raw.rollback()
            with raw.cursor() as cur:
                cur.execute("BEGIN READ ONLY")
                cur.execute(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}")
                cur.execute(f"SET LOCAL work_mem = '{limits.work_mem_mb}MB'")
                if self._superuser:  # only superusers may set temp_file_limit
                    cur.execute(f"SET LOCAL temp_file_limit = '{limits.temp_file_mb}MB'")
            yield
        elif backend == "mysql":
            with raw.cursor() as cur:
                try:
                    cur.execute(f"SET SESSION max_statement_time = {float(timeout_s)}")  # MariaDB
                except Exception:
                    cur.execute(f"SET SESSION max_execution_time = {int(timeout_s * 1000)}")  # MySQL
                size = limits.tmp_table_mb * 1024 * 1024
                cur.execute(f"SET SESSION sql_select_limit = {int(max_rows) + 1}, tmp_table_size = {size}, "
                            f"max_heap_table_size = {size}")
                cur.execute("START TRANSACTION READ ONLY")
            yield
        else:
            yield


def _warm_dialect(dialect: str) -> None:
    """Load the sqlglot dialect once on this thread: its lazy first load is not safe to race from worker
    threads, which then rendered identifiers with another dialect's quotes."""
    sqlglot.parse_one("SELECT 1 AS x", read=dialect).sql(dialect=dialect)


class _NullLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_TIMEOUT_MARKERS = ("interrupted", "statement timeout", "max_statement_time", "max_execution_time",
                    "query execution was interrupted", "canceling statement")


def _is_timeout(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in _TIMEOUT_MARKERS)


def _close_quietly(cursor: Any) -> None:
    try:
        cursor.close()
    except Exception:  # closing after a cancelled statement may raise; the connection is discarded then
        pass


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return text[0] if text else type(orig).__name__
