"""The fuzz harness: generated statements through `Database.execute` on each engine, judged by oracles.

Each engine is the attack suite's shop (tests/security/harness.py) with canaries planted: a file next to the
database, another database or schema holding a secret row, an environment variable, and where the engine has
them a session or server setting and another session's query text. Oracles, checked without groundsql:

- no write: the engine's state (file checksums, table checksums, sequences, roles, locks) is the same after
  every statement the guard let through as before it;
- no canary read: no planted secret appears in any result;
- no setting changed: the session groundsql runs on and the server's settings read the same before and after
  (and the process environment);
- no run past the limit + 2 s;
- every failure is one of the documented errors (`RefusedStatement` with a message starting ``refused:``,
  `UnknownRelation`, `QueryTimeout`, `DatabaseError`); anything else is a finding.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundsql.db import Database
from groundsql.db.guard import check_statement
from groundsql.db.limits import EngineLimits
from groundsql.errors import DatabaseError, QueryTimeout, RefusedStatement, UnknownRelation
from tests.fuzz.sqlgen import Case, Generator
from tests.security import harness as security
from tests.security.harness import file_state, stray_files

ENGINES = ("sqlite", "duckdb", "files", "postgres", "mysql", "spark")
#: The sqlglot dialect each engine's statements are written in.
DIALECT = {"sqlite": "sqlite", "duckdb": "duckdb", "files": "duckdb", "postgres": "postgres", "mysql": "mysql",
           "spark": "spark"}
VERDICTS = ("refused", "unknown_relation", "engine_error", "timeout", "ran")
LATE_MARGIN_S = 2.0
ENV_CANARY = "GROUNDSQL_CANARY_ENV"


@dataclass
class Finding:
    engine: str
    number: int
    kind: str
    oracle: str  # write | canary | setting | late | error_type | environment | session_ended
    sql: str
    detail: str


@dataclass
class FuzzTarget:
    """One engine ready for fuzzing: databases to execute on, secrets, and snapshots taken without groundsql."""

    engine: str
    databases: list[Database]
    secrets: list[str]
    state: Callable[[], Any]
    settings: Callable[[], Any]
    secret_file: str
    functions: list[str]
    close: Callable[[], None]
    #: The planted other database: the generator's `groundsql_canary_db` is rewritten to it.
    canary_db: str = security.CANARY_DB


@dataclass
class Report:
    engine: str
    seed: int
    statements: int = 0
    verdicts: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)  # (kind, verdict)
    findings: list[Finding] = field(default_factory=list)
    guard_verdicts: dict[int, str] = field(default_factory=dict)  # portable cases: number -> verdict or reason
    elapsed_s: float = 0.0
    slowest_s: float = 0.0
    state_checks: int = 0
    stopped_at: int | None = None  # the statement that ended the engine's session (the slice stops there)


class SessionEnded(Exception):
    """A statement ended the engine's session (a Spark JVM out of memory): a finding, and the slice stops."""


# -- targets --------------------------------------------------------------------------------------------


def _plant_env() -> str:
    value = os.environ.get(ENV_CANARY) or f"GROUNDSQL_CANARY_ENV_{uuid.uuid4().hex[:8]}"
    os.environ[ENV_CANARY] = value
    return value


def _other_sqlite(folder: Path) -> str:
    secret = f"GROUNDSQL_CANARY_OTHERDB_{uuid.uuid4().hex[:8]}"
    with sqlite3.connect(folder / "other.sqlite") as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS secret (v TEXT)")
        conn.execute("INSERT INTO secret VALUES (?)", (secret,))
    conn.close()
    return secret


def _raw_rows(db: Database, sql: str) -> list[tuple]:
    """Rows of `sql` on a connection groundsql would use next, read without the guard (an oracle's view)."""
    with db._raw_connection() as raw:
        cursor = raw.cursor()
        try:
            cursor.execute(sql)
            return [tuple(r) for r in cursor.fetchall()]
        finally:
            cursor.close()


def engine_functions(engine: str, db: Database) -> list[str]:
    """The engine's own function catalogue (names), read without the guard."""
    queries = {
        "sqlite": "SELECT name FROM pragma_function_list",
        "duckdb": "SELECT DISTINCT function_name FROM duckdb_functions()",
        "files": "SELECT DISTINCT function_name FROM duckdb_functions()",
        "postgres": "SELECT DISTINCT proname FROM pg_catalog.pg_proc",
        "mysql": "SELECT name FROM mysql.help_topic WHERE name REGEXP '^[A-Z_0-9]+$'",
    }
    try:
        if engine == "spark":
            return sorted({r[0] for r in db.session.sql("SHOW FUNCTIONS").collect()})  # type: ignore[attr-defined]
        return sorted({str(r[0]).lower() for r in _raw_rows(db, queries[engine]) if r[0]})
    except Exception:
        return []


def make_fuzz_target(engine: str, folder: Path, *, timeout_s: float = 2.0) -> FuzzTarget:
    """`engine` with the shop and its canaries, opened as groundsql opens it."""
    folder.mkdir(parents=True, exist_ok=True)
    env = _plant_env()
    limits = EngineLimits(memory_mb=512)
    if engine == "files":
        return _files_target(folder, env, timeout_s, limits)
    canary_db = security.CANARY_DB
    if engine == "postgres":  # names of its own: the attack suite may run beside it (pytest-xdist)
        canary_db = f"groundsql_fuzz_canary_{uuid.uuid4().hex[:6]}"
        made = security.postgres_target(canary_db, f"groundsql_fuzz_role_{uuid.uuid4().hex[:6]}")
    elif engine == "mysql":
        canary_db = f"groundsql_fuzz_canary_{uuid.uuid4().hex[:6]}"
        made = security.mysql_target(canary_db, f"groundsql_fuzz_{uuid.uuid4().hex[:6]}")
    else:
        made = security.make_target(engine, folder)
    secrets = list(made.secrets) + [env]
    extra_state: Callable[[], Any] = lambda: None  # noqa: E731
    if engine in ("sqlite", "duckdb"):
        secrets.append(_other_sqlite(folder))
    setting_secret = None
    if engine == "postgres":
        import sqlalchemy as sa

        setting_secret = f"GROUNDSQL_CANARY_SETTING_{uuid.uuid4().hex[:8]}"
        name = made.url.rsplit("/", 1)[1]
        admin = sa.create_engine(security.PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://"),
                                 isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f'ALTER DATABASE "{name}" SET groundsql.canary = \'{setting_secret}\''))
        secrets.append(setting_secret)
    db = Database(made.url, timeout_s=timeout_s, max_rows=50, limits=limits)
    db.scope()  # the one-time catalog read of the first statement, so statement times measure statements
    server = _server_settings(engine)

    def settings() -> Any:
        return {"session": _session_settings(engine, db), "server": server(), "env": dict(os.environ)}

    def state() -> Any:
        return {"engine": made.snapshot(), "strays": stray_files(), "extra": extra_state()}

    def close() -> None:
        db.close()
        made.close()

    secret_file = str(folder / "secret.txt")
    return FuzzTarget(engine, [db], [s for s in secrets if s], state, settings, secret_file,
                      engine_functions(engine, db), close, canary_db)


def _files_target(folder: Path, env: str, timeout_s: float, limits: EngineLimits) -> FuzzTarget:
    """The shop's orders as CSV and its customers as Parquet: two file databases, used in turn."""
    import duckdb

    rows = security.shop_rows()
    conn = duckdb.connect()
    for table in ("orders", "customers"):
        conn.execute(f"CREATE TABLE {table} ({security.DDL[table]})")
        conn.executemany(f"INSERT INTO {table} VALUES ({', '.join(['?'] * len(rows[table][0]))})", rows[table])
    conn.execute(f"COPY orders TO '{folder / 'orders.csv'}' (HEADER)")
    conn.execute(f"COPY customers TO '{folder / 'customers.parquet'}' (FORMAT parquet)")
    conn.close()
    file_secret = f"GROUNDSQL_CANARY_FILE_{uuid.uuid4().hex[:8]}"
    (folder / "secret.txt").write_text(file_secret)
    other = _other_sqlite(folder)
    databases = [Database(str(folder / name), timeout_s=timeout_s, max_rows=50, limits=limits)
                 for name in ("orders.csv", "customers.parquet")]
    for db in databases:
        db.scope()

    def settings() -> Any:
        return {"session": [_session_settings("duckdb", db) for db in databases], "env": dict(os.environ)}

    def state() -> Any:
        return {"files": file_state(folder), "strays": stray_files(),
                "tables": [_raw_rows(db, f"SELECT count(*), sum(hash(t)) FROM {table} AS t")
                           for db, table in zip(databases, ("orders", "customers"))]}

    def close() -> None:
        for db in databases:
            db.close()

    return FuzzTarget("files", databases, [file_secret, env, other], state, settings, str(folder / "secret.txt"),
                      engine_functions("files", databases[0]), close)


SQLITE_PRAGMAS = ("query_only", "foreign_keys", "recursive_triggers", "journal_mode", "writable_schema",
                  "trusted_schema", "cell_size_check", "defer_foreign_keys", "ignore_check_constraints",
                  "cache_size", "temp_store", "busy_timeout", "synchronous", "automatic_index", "reverse_unordered_selects")
#: Values that change on their own between two reads.
VOLATILE = {"timestamp", "pseudo_thread_id", "rand_seed1", "rand_seed2", "last_insert_id", "insert_id",
            "warning_count", "error_count", "gtid_seq_no", "gtid_binlog_pos", "gtid_current_pos", "gtid_binlog_state",
            "last_gtid", "identity", "thread_pool_size", "uptime", "server_uid", "in_transaction",
            # groundsql sets these before every statement (Database._limits); a fresh connection has the defaults
            "max_statement_time", "max_execution_time", "sql_select_limit", "tmp_table_size", "tmp_memory_table_size", "max_heap_table_size"}


def _session_settings(engine: str, db: Database) -> Any:
    """The settings of the connection groundsql runs the next statement on, read without the guard."""
    if engine == "sqlite":
        values = {p: _raw_rows(db, f"PRAGMA {p}") for p in SQLITE_PRAGMAS}
        # the temp schema appears once a connection first needs it (a sort, a temp.* read): not a change
        values["databases"] = [r for r in _raw_rows(db, "PRAGMA database_list") if r[1] != "temp"]
        values["temp"] = _raw_rows(db, "SELECT count(*) FROM temp.sqlite_master")
        return values
    if engine in ("duckdb", "files"):
        return {"settings": _raw_rows(db, "SELECT name, value FROM duckdb_settings()"),
                "databases": _raw_rows(db, "SELECT database_name FROM duckdb_databases()"),
                "temp": _raw_rows(db, "SELECT count(*) FROM duckdb_tables() WHERE temporary")}
    if engine == "postgres":
        return [r for r in _raw_rows(db, "SELECT name, setting FROM pg_catalog.pg_settings") if r[0] not in VOLATILE]
    if engine == "mysql":
        # an explicit LIMIT: groundsql's sql_select_limit would cut SHOW VARIABLES short
        rows = _raw_rows(db, "SELECT lower(variable_name), variable_value FROM information_schema.session_variables "
                             "ORDER BY 1 LIMIT 100000")
        return [r for r in rows if r[0] not in VOLATILE]
    if engine == "spark":
        return sorted(db.session.conf.getAll.items()) if hasattr(db, "session") else None  # type: ignore[attr-defined]
    return None


def _server_settings(engine: str) -> Callable[[], Any]:
    """Server-wide settings (and ALTER SYSTEM / ALTER DATABASE ... SET), read through an admin connection."""
    import sqlalchemy as sa

    if engine == "postgres":
        admin = sa.create_engine(security.PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://"))
        query = ("SELECT name, setting FROM pg_settings WHERE context NOT IN ('user', 'superuser') "
                 "UNION ALL SELECT 'auto.conf:' || name, setting FROM pg_file_settings "
                 "WHERE sourcefile LIKE '%auto.conf' UNION ALL "
                 "SELECT 'role_setting:' || setdatabase || ':' || setrole, array_to_string(setconfig, ',') "
                 "FROM pg_db_role_setting ORDER BY 1")
    elif engine == "mysql":
        admin = sa.create_engine(security.MYSQL_ADMIN_URL.replace("mysql://", "mysql+pymysql://"))
        query = "SHOW GLOBAL VARIABLES"
    else:
        return lambda: None

    def read() -> Any:
        with admin.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(query)) if r[0] not in VOLATILE]
    return read


# -- running --------------------------------------------------------------------------------------------


def reason(message: str) -> str:
    """A refusal or error message without the statement's own names: the class of the verdict."""
    import re

    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", message)
    text = re.sub(r"function \S+\(\)", "function X()", text)
    text = re.sub(r"no such table: .*", "no such table", text)
    text = re.sub(r"\(.*", "", text)
    return text.strip()[:90]


def run_case(target: FuzzTarget, case: Case, report: Report, *, timeout_s: float, check_state_every: int,
             baseline: dict) -> None:
    """One statement through `Database.execute`, judged by every oracle."""
    engine = target.engine
    sql = case.sql[DIALECT[engine]].replace(security.CANARY_DB, target.canary_db)
    db = target.databases[case.number % len(target.databases)]
    started = time.perf_counter()
    detail = ""
    try:
        result = db.execute(sql, max_rows=50, timeout_s=timeout_s)
    except RefusedStatement as exc:
        verdict, detail = "refused", str(exc)
        if not detail.startswith("refused:"):
            report.findings.append(Finding(engine, case.number, case.kind, "error_type", sql, detail))
    except UnknownRelation as exc:
        verdict, detail = "unknown_relation", str(exc)
    except QueryTimeout as exc:
        verdict, detail = "timeout", str(exc)
    except DatabaseError as exc:
        verdict, detail = "engine_error", str(exc)
        if "session ended" in detail:  # the statement took the engine down: nothing after it can be judged
            report.findings.append(Finding(engine, case.number, case.kind, "session_ended", sql, detail[:300]))
            report.statements += 1
            report.verdicts[verdict] += 1
            report.stopped_at = case.number
            raise SessionEnded(detail) from None
    except Exception as exc:  # noqa: BLE001 - the oracle: anything undocumented is a finding
        verdict, detail = "engine_error", f"{type(exc).__name__}: {exc}"
        report.findings.append(Finding(engine, case.number, case.kind, "error_type", sql, detail[:300]))
    else:
        verdict = "ran"
        text = repr(result.columns) + repr(result.rows)
        leaked = [s for s in target.secrets if s and s in text]
        if leaked:
            report.findings.append(Finding(engine, case.number, case.kind, "canary", sql, f"read {leaked}"))
    elapsed = time.perf_counter() - started
    report.slowest_s = max(report.slowest_s, elapsed)
    if elapsed > timeout_s + LATE_MARGIN_S:
        report.findings.append(Finding(engine, case.number, case.kind, "late", sql, f"{elapsed:.1f} s ({verdict})"))
    report.statements += 1
    report.verdicts[verdict] += 1
    report.by_kind[(case.kind, verdict)] += 1
    if case.portable:
        report.guard_verdicts[case.number] = "pass" if verdict != "refused" else reason(detail)
    if verdict != "refused":  # only a statement that reached the engine could change it
        baseline["approved"] = baseline.get("approved", 0) + 1
        if baseline["approved"] % check_state_every == 0:
            check_state(target, report, baseline, case, sql)


def check_state(target: FuzzTarget, report: Report, baseline: dict, case: Case | None, sql: str) -> None:
    report.state_checks += 1
    state, settings = target.state(), target.settings()
    where = (case.number, case.kind) if case else (-1, "end")
    if state != baseline["state"]:
        report.findings.append(Finding(target.engine, *where, "write", sql, _diff(baseline["state"], state)))
        baseline["state"] = state
    if settings != baseline["settings"]:
        report.findings.append(Finding(target.engine, *where, "setting", sql,
                                       _diff(baseline["settings"], settings)))
        baseline["settings"] = settings


def _diff(before: Any, after: Any, path: str = "") -> str:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if before.get(key) != after.get(key):
                return _diff(before.get(key), after.get(key), f"{path}/{key}")
    if isinstance(before, list) and isinstance(after, list):
        gone, new = [x for x in before if x not in after], [x for x in after if x not in before]
        return f"{path}: -{gone[:3]} +{new[:3]}"[:400]
    return f"{path}: {before!r:.150} -> {after!r:.150}"


def fuzz_engine(engine: str, folder: Path, *, seed: int, count: int, start: int = 0, timeout_s: float = 2.0,
                check_state_every: int = 1, progress: Callable[[Report], None] | None = None) -> Report:
    """`count` generated statements (numbers start … start + count - 1 of `seed`) on `engine`."""
    target = make_fuzz_target(engine, folder, timeout_s=timeout_s)
    report = Report(engine, seed)
    try:
        generator = Generator(seed, (DIALECT[engine],), functions={DIALECT[engine]: target.functions},
                              secret_file=target.secret_file)
        baseline = {"state": target.state(), "settings": target.settings()}
        started = time.perf_counter()
        try:
            for case in generator.cases(count, start):
                run_case(target, case, report, timeout_s=timeout_s, check_state_every=check_state_every,
                         baseline=baseline)
                if progress and report.statements % 1000 == 0:
                    report.elapsed_s = time.perf_counter() - started
                    progress(report)
        except SessionEnded:
            pass  # recorded as a finding; the engine cannot be read back, so the run ends here
        else:
            check_state(target, report, baseline, None, "(end of run)")
        report.elapsed_s = time.perf_counter() - started
    finally:
        try:
            target.close()
        except Exception:  # noqa: BLE001 - a session a statement ended cannot be cleaned up through
            if report.stopped_at is None:
                raise
    return report


def guard_verdicts(seed: int, count: int, dialects: tuple[str, ...]) -> dict[str, dict[int, str]]:
    """Guard-only verdicts of the portable cases in every dialect (the shop's scope): for the consistency
    oracle across engines without running them."""
    from groundsql.db.guard import Scope

    scope = Scope(frozenset(("main", t) for t in security.DDL), "main", None)
    generator = Generator(seed, dialects)
    verdicts: dict[str, dict[int, str]] = {d: {} for d in dialects}
    for case in generator.cases(count):
        if not case.portable:
            continue
        for dialect in dialects:
            try:
                check_statement(case.sql[dialect], dialect, scope=scope)
                verdicts[dialect][case.number] = "pass"
            except (RefusedStatement, UnknownRelation) as exc:
                verdicts[dialect][case.number] = reason(str(exc))
    return verdicts
