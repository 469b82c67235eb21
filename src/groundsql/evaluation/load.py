"""`groundsql eval load`: copy a Spider/BIRD dataset's SQLite databases into PostgreSQL, MariaDB/MySQL, DuckDB or
Spark, so the same questions can be asked of another engine.

Each SQLite column gets the engine type its values fit (integer, double, text, binary); table and column names keep
their own case on every engine (quoted where the engine would fold them), so the schema the model reads is the same
as on SQLite. Primary keys are kept where
the engine has them and the data satisfies them (on MariaDB/MySQL as UNIQUE keys, so that rows stay in SQLite's
order); a foreign key is kept where it points at the parent's kept primary key and every child value exists.
Everything that changed is reported, per database. Each column's comment records its type as the original
declares it, and each table's comment the original's declared keys (`catalog.sqlite_types`; on Spark, in each
Parquet file's footer): introspection reads them back, so that with `model_dialect=sqlite` the copy's prompt is
the original's.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from groundsql.catalog.sqlite_types import keys_comment, source_type_comment
from groundsql.db.spark_urls import PARQUET_COMMENT_KEY, SPARK_SCHEMA_KEY, is_spark_url, spark_mode
from groundsql.errors import ConfigError, DatabaseError
from groundsql.evaluation.datasets import Dataset, database_path, load_dataset

log = logging.getLogger("groundsql")

INTEGER, DOUBLE, TEXT, BINARY = "integer", "double", "text", "binary"
INSERT_CHUNK = 2000
#: MySQL's limit on a table comment (a longer record of keys is left out; the engine's own keys are read then).
MAX_TABLE_COMMENT = 2048


def engine_url(template: str, db_id: str) -> str:
    """The URL of `db_id`'s copy: `{db_id}` in the template is replaced (it must be there for several databases)."""
    return template.replace("{db_id}", db_id)


def url_dialect(url: str) -> str:
    """The sqlglot dialect of a database URL, read from its scheme alone (the database need not exist yet)."""
    from groundsql.db.urls import SQLGLOT_DIALECTS

    if is_spark_url(url):
        return "spark"
    scheme = url.split("://", 1)[0].split("+", 1)[0].lower() if "://" in url else ""
    if scheme == "postgres":
        scheme = "postgresql"
    if scheme not in SQLGLOT_DIALECTS:
        raise ConfigError(f"unsupported engine URL {url!r}: use postgresql, mysql, mariadb, duckdb or spark+local")
    return SQLGLOT_DIALECTS[scheme]


@dataclass
class ColumnPlan:
    name: str  # as SQLite stores it
    declared: str
    kind: str  # INTEGER, DOUBLE, TEXT or BINARY
    max_length: int = 0
    shown: str = ""  # the type as groundsql reads it on the original (recorded on the copy for prompts)


@dataclass
class TablePlan:
    name: str  # as SQLite stores it
    columns: list[ColumnPlan]
    rows: list[tuple]
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[tuple[list[str], str, list[str]]] = field(default_factory=list)
    comment: str | None = None  # the original's declared keys, recorded on the copy for prompts


@dataclass
class DatabaseLoad:
    """What one database's copy holds and what differs from the SQLite original."""

    db_id: str
    target: str
    tables: int = 0
    rows: int = 0
    primary_keys: int = 0
    foreign_keys: int = 0
    changes: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class LoadReport:
    databases: list[DatabaseLoad] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"databases": [asdict(d) for d in self.databases]}

    def markdown(self) -> str:
        lines = ["| database | target | tables | rows | PKs | FKs | changes |", "|---|---|---|---|---|---|---|"]
        for d in self.databases:
            status = f"FAILED: {d.error}" if d.error else str(len(d.changes))
            lines.append(f"| {d.db_id} | {d.target} | {d.tables} | {d.rows} | {d.primary_keys} | {d.foreign_keys} "
                         f"| {status} |")
        for d in self.databases:
            if d.changes:
                lines += ["", f"## {d.db_id}", *[f"- {c}" for c in d.changes]]
        return "\n".join(lines) + "\n"


def load_into(dataset: Dataset | str | Path, into: str, *, db_ids: list[str] | None = None, replace: bool = False,
              progress: Callable[[str, int, int], None] | None = None) -> LoadReport:
    """Copy the dataset's SQLite databases into the engine at `into` (a URL template with `{db_id}`).

    Args:
        dataset: a Spider/BIRD dataset directory or a loaded `Dataset`.
        into: e.g. `postgresql://postgres@127.0.0.1/spider_{db_id}`, `mysql://root@127.0.0.1/spider_{db_id}`,
            `duckdb:///copies/{db_id}.duckdb` or `spark+local:///copies/{db_id}` (a folder of Parquet tables).
        db_ids: only these databases (default: every database the questions use).
        replace: drop an existing copy first (otherwise an existing target is an error).
        progress: called as progress(db_id, done, total).

    Returns:
        The `LoadReport`; a database that failed to load carries its error, and the others still load.
    """
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    wanted = list(dict.fromkeys(db_ids or [q.db_id for q in data.questions]))
    if len(wanted) > 1 and "{db_id}" not in into:
        raise ConfigError("the target URL needs {db_id} to hold several databases, e.g. "
                          "postgresql://postgres@127.0.0.1/spider_{db_id}")
    report = LoadReport()
    for done, db_id in enumerate(wanted, start=1):
        path = database_path(data.root, db_id)
        url = engine_url(into, db_id)
        entry = DatabaseLoad(db_id=db_id, target=_display(url))
        report.databases.append(entry)
        try:
            if path is None:
                raise ConfigError(f"no SQLite file for {db_id} under {data.root}")
            tables = read_sqlite(path, entry.changes)
            _writer(url)(url, tables, entry, replace)
            entry.tables = len(tables)
            entry.rows = sum(len(t.rows) for t in tables)
        except (ConfigError, DatabaseError) as exc:
            entry.error = str(exc)
        except Exception as exc:  # one broken database must not stop the others; it is reported
            log.exception("loading %s failed", db_id)
            entry.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if progress is not None:
            progress(db_id, done, len(wanted))
    return report


# -- reading SQLite ---------------------------------------------------------------------------------------


def read_sqlite(path: Path, changes: list[str]) -> list[TablePlan]:
    """Every table of the SQLite file with its rows, the type each column's values fit, and its keys."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        tables = [_read_table(conn, name, changes) for name in names]
    finally:
        conn.close()
    _stored_key_names(tables)
    _check_keys(tables, changes)
    _shown_types(path, tables)
    return tables


def _shown_types(path: Path, tables: list[TablePlan]) -> None:
    """Each column's type and each table's declared keys as groundsql's introspection reads them on the original
    (`int` → INTEGER; a key the rows break kept), which the copy records (`catalog.sqlite_types`) so that its
    prompts show what the original's show."""
    from groundsql.catalog.introspect import introspect
    from groundsql.db import Database

    with Database(str(path)) as db:
        schema = introspect(db)
    for plan in tables:
        table = schema.table(plan.name)
        recorded = keys_comment(table) if table is not None else None
        plan.comment = recorded if recorded is not None and len(recorded) <= MAX_TABLE_COMMENT else None
        for column in plan.columns:
            found = table.column(column.name) if table is not None else None
            column.shown = found.type if found is not None else column.declared


def _read_table(conn: sqlite3.Connection, name: str, changes: list[str]) -> TablePlan:
    quoted = '"' + name.replace('"', '""') + '"'
    info = conn.execute(f"PRAGMA table_info({quoted})").fetchall()
    rows = [tuple(r) for r in conn.execute(f"SELECT * FROM {quoted}")]
    columns: list[ColumnPlan] = []
    for index, (_, column, declared, _, _, _) in enumerate(info):
        values = [row[index] for row in rows if row[index] is not None]
        kind, note = _column_kind(declared or "", values)
        if note:
            changes.append(f"{name}.{column}: {note}")
        length = max((len(str(v)) for v in values), default=0) if kind == TEXT else 0
        columns.append(ColumnPlan(column, declared or "", kind, length))
    converted = [tuple(_convert(row[i], columns[i].kind) for i in range(len(columns))) for row in rows]
    pk = [column for _, column, _, _, _, position in sorted(info, key=lambda r: r[5]) if position]
    fks: dict[int, tuple[list[str], str, list[str]]] = {}
    for fk_id, _, parent, child, ref, *_ in conn.execute(f"PRAGMA foreign_key_list({quoted})").fetchall():
        cols, _, refs = fks.setdefault(fk_id, ([], parent, []))
        cols.append(child)
        refs.append(ref or "")
    # PRAGMA lists the keys last declared first; keep the declared order (the catalog reads them so on SQLite)
    return TablePlan(name, columns, converted, pk, [fks[i] for i in sorted(fks, reverse=True)])


def _stored_key_names(tables: list[TablePlan]) -> None:
    """Key declarations in the stored spelling of the names they mean: SQLite matches them whatever their case
    (Spider's often differ, `REFERENCES Singer(singer_id)` for `singer.Singer_ID`), the engines do not."""
    by_name = {t.name.lower(): t for t in tables}

    def stored(table: TablePlan | None, name: str) -> str:
        found = next((c.name for c in table.columns if c.name.lower() == name.lower()), None) if table else None
        return found or name

    for table in tables:
        table.primary_key = [stored(table, c) for c in table.primary_key]
        keys = []
        for cols, parent, refs in table.foreign_keys:
            target = by_name.get(parent.lower())
            keys.append(([stored(table, c) for c in cols], target.name if target else parent,
                         [stored(target, r) if r else r for r in refs]))
        table.foreign_keys = keys


def _column_kind(declared: str, values: list[Any]) -> tuple[str, str | None]:
    """The engine type for a column (SQLite affinity first, then what the values really are) and a note when
    the copy's type differs from the declared one."""
    upper = declared.upper()
    if "INT" in upper:
        wanted = INTEGER
    elif any(k in upper for k in ("CHAR", "CLOB", "TEXT")):
        wanted = TEXT
    elif "BLOB" in upper or not upper:
        wanted = None  # decided by the values
    elif any(k in upper for k in ("REAL", "FLOA", "DOUB")):
        wanted = DOUBLE
    else:
        wanted = INTEGER if all(isinstance(v, int) for v in values) and values and "DEC" not in upper else DOUBLE
    kinds = {BINARY if isinstance(v, bytes) else TEXT if isinstance(v, str) else
             INTEGER if isinstance(v, int) else DOUBLE for v in values}
    if wanted is None:
        wanted = (BINARY if kinds == {BINARY} else INTEGER if kinds <= {INTEGER} and kinds else
                  DOUBLE if kinds <= {INTEGER, DOUBLE} and kinds else TEXT)
        return wanted, None
    if wanted == TEXT or kinds <= ({INTEGER} if wanted == INTEGER else {INTEGER, DOUBLE}):
        return wanted, None
    if wanted == INTEGER and kinds <= {INTEGER, DOUBLE}:
        return DOUBLE, f"declared {declared} but holds fractional numbers; stored as DOUBLE"
    return TEXT, f"declared {declared} but holds {', '.join(sorted(kinds - {wanted}))} values; stored as TEXT"


def _convert(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == TEXT:
        return value if isinstance(value, str) else value.decode("utf-8", "replace") if isinstance(value, bytes) \
            else str(value)
    if kind == DOUBLE:
        return float(value)
    return value


def _check_keys(tables: list[TablePlan], changes: list[str]) -> None:
    """Keep a primary key only when its values are present and unique, a foreign key only when it points at the
    parent's kept primary key with matching types and every child value exists."""
    by_name = {t.name: t for t in tables}
    for table in tables:
        if table.primary_key:
            positions = [i for i, c in enumerate(table.columns) if c.name in table.primary_key]
            keys = [tuple(row[i] for i in positions) for row in table.rows]
            if any(v is None for key in keys for v in key) or len(set(keys)) != len(keys):
                changes.append(f"{table.name}: primary key ({', '.join(table.primary_key)}) dropped "
                               "(NULL or duplicate values)")
                table.primary_key = []
    for table in tables:
        kept = []
        for cols, parent_name, refs in table.foreign_keys:
            parent = by_name.get(parent_name)
            refs = [r for r in refs if r] or (list(parent.primary_key) if parent else [])
            if parent is not None:
                _align_key_types(table, cols, parent, refs, changes)
            reason = _fk_problem(table, cols, parent, refs)
            label = f"{table.name}({', '.join(cols)}) -> {parent_name}({', '.join(refs)})"
            if reason:
                changes.append(f"foreign key {label} dropped ({reason})")
            else:
                kept.append((cols, parent_name, refs))
        table.foreign_keys = kept


def _align_key_types(table: TablePlan, cols: list[str], parent: TablePlan, refs: list[str],
                     changes: list[str]) -> None:
    """A key declared TEXT on one side and INTEGER on the other joins in SQLite (type affinity) but not on a
    server: when the text side holds only integers, store it as INTEGER."""
    for child_name, ref_name in zip(cols, refs):
        child = next((c for c in table.columns if c.name == child_name), None)
        ref = next((c for c in parent.columns if c.name == ref_name), None)
        if child is None or ref is None or {child.kind, ref.kind} != {TEXT, INTEGER}:
            continue
        owner, column = (table, child) if child.kind == TEXT else (parent, ref)
        at = owner.columns.index(column)
        values = [row[at] for row in owner.rows if row[at] is not None]
        if all(v.strip().lstrip("-").isdigit() and str(int(v)) == v.strip() for v in values):
            owner.rows = [row[:at] + ((None if row[at] is None else int(row[at])),) + row[at + 1:]
                          for row in owner.rows]
            column.kind = INTEGER
            changes.append(f"{owner.name}.{column.name}: declared {column.declared or 'untyped'} but holds "
                           "integers and joins an INTEGER key; stored as INTEGER")


def _fk_problem(table: TablePlan, cols: list[str], parent: TablePlan | None, refs: list[str]) -> str | None:
    if parent is None:
        return "the parent table does not exist"
    if not parent.primary_key or sorted(refs) != sorted(parent.primary_key) or len(refs) != len(cols):
        return "it does not point at the parent's primary key"
    child_at = {c.name: i for i, c in enumerate(table.columns)}
    parent_at = {c.name: i for i, c in enumerate(parent.columns)}
    if any(c not in child_at for c in cols) or any(r not in parent_at for r in refs):
        return "a column does not exist"
    if any(table.columns[child_at[c]].kind != parent.columns[parent_at[r]].kind for c, r in zip(cols, refs)):
        return "the column types differ"
    present = {tuple(row[parent_at[r]] for r in refs) for row in parent.rows}
    for row in table.rows:
        key = tuple(row[child_at[c]] for c in cols)
        if all(v is not None for v in key) and key not in present:
            return f"value {key if len(key) > 1 else key[0]!r} has no parent row"
    return None


# -- writing ----------------------------------------------------------------------------------------------


def _writer(url: str) -> Callable[[str, list[TablePlan], DatabaseLoad, bool], None]:
    if is_spark_url(url):
        return _write_spark
    if url.startswith(("postgresql", "postgres://", "mysql", "mariadb", "duckdb")):
        return _write_sql
    raise ConfigError(f"cannot load into {url.split('://', 1)[0]}: use postgresql, mysql/mariadb, duckdb or "
                      "spark+local URLs")


def _display(url: str) -> str:
    from groundsql.db.urls import parse_target

    if is_spark_url(url) or url.startswith("duckdb"):
        return url
    try:
        return parse_target(url).display
    except ConfigError:
        return url


def _write_sql(url: str, tables: list[TablePlan], entry: DatabaseLoad, replace: bool) -> None:
    import sqlalchemy as sa

    engine_url = _prepare_sql_target(url, replace)
    backend = engine_url.get_backend_name()
    engine = sa.create_engine(engine_url)
    metadata = sa.MetaData()
    order = _parents_first(tables) if backend == "duckdb" else tables
    clustered = backend == "mysql"  # InnoDB clusters rows by the primary key
    made: dict[str, sa.Table] = {}
    try:
        for plan in order:
            # each column's comment records the original's declared type, so the copy reads as SQLite's
            columns = [sa.Column(c.name, _sa_type(c, backend, c.name in plan.primary_key or _in_fk(plan, c.name)),
                                 primary_key=c.name in plan.primary_key and not clustered, autoincrement=False,
                                 comment=source_type_comment(c.shown))
                       for c in plan.columns]
            constraints: list[Any] = []
            if clustered and plan.primary_key and (len(plan.primary_key) < len(plan.columns)
                                                   or any(p == plan.name for t in tables for _, p, _ in t.foreign_keys)):
                # InnoDB stores a table in its primary key's order, and a query without ORDER BY (the prompt's
                # example rows among them) returns that order; a UNIQUE key on nullable columns keeps SQLite's
                # order, the order of insertion, and still serves the foreign keys that point at it. A key of
                # every column is left out unless a foreign key needs it: MariaDB would scan it instead.
                constraints.append(sa.UniqueConstraint(*plan.primary_key, name=f"pk_{plan.name}"[:60]))
            if backend == "duckdb":  # DuckDB cannot add a foreign key to an existing table: declare it now
                constraints += [sa.ForeignKeyConstraint(cols, [f"{parent}.{r}" for r in refs])
                               for cols, parent, refs in plan.foreign_keys if parent in made]
                for cols, parent, _ in plan.foreign_keys:
                    if parent not in made:
                        entry.changes.append(f"foreign key {plan.name}({', '.join(cols)}) -> {parent} dropped "
                                             "(tables refer to each other; DuckDB needs the parent first)")
                entry.foreign_keys += len(constraints)
            table = sa.Table(plan.name, metadata, *columns, *constraints, comment=plan.comment)
            table.create(engine)
            made[plan.name] = table
            entry.primary_keys += 1 if plan.primary_key else 0
            names = [c.name for c in plan.columns]
            with engine.begin() as conn:
                for start in range(0, len(plan.rows), INSERT_CHUNK):
                    chunk = plan.rows[start:start + INSERT_CHUNK]
                    conn.execute(table.insert(), [dict(zip(names, row)) for row in chunk])
        if backend != "duckdb":
            _add_foreign_keys(engine, tables, made, entry)
    finally:
        engine.dispose()


def _add_foreign_keys(engine: Any, tables: list[TablePlan], made: dict[str, Any], entry: DatabaseLoad) -> None:
    import sqlalchemy as sa

    for plan in tables:
        for number, (cols, parent, refs) in enumerate(plan.foreign_keys):
            # numbered so that PostgreSQL, which lists a table's keys by name, lists them in the declared order
            constraint = sa.ForeignKeyConstraint(cols, [made[parent].c[r] for r in refs],
                                                 name=f"fk{number:02d}_{plan.name}_{'_'.join(cols)}"[:60])
            made[plan.name].append_constraint(constraint)
            try:
                with engine.begin() as conn:
                    conn.execute(sa.schema.AddConstraint(constraint))
                entry.foreign_keys += 1
            except sa.exc.SQLAlchemyError as exc:
                message = str(getattr(exc, "orig", exc)).splitlines()[0]
                entry.changes.append(f"foreign key {plan.name}({', '.join(cols)}) -> {parent} dropped ({message})")


def _in_fk(plan: TablePlan, column: str) -> bool:
    return any(column in cols for cols, _, _ in plan.foreign_keys)


def _sa_type(column: ColumnPlan, backend: str, keyed: bool) -> Any:
    import sqlalchemy as sa

    if column.kind == INTEGER:
        return sa.BigInteger()
    if column.kind == DOUBLE:
        return sa.Double()
    if column.kind == BINARY:
        if backend == "mysql":
            from sqlalchemy.dialects.mysql import LONGBLOB

            return LONGBLOB()
        return sa.LargeBinary()
    if backend == "mysql":
        from sqlalchemy.dialects.mysql import LONGTEXT

        # MySQL indexes only a bounded prefix: key columns become VARCHAR (utf8mb4: at most 768 characters).
        return sa.String(max(1, min(768, column.max_length))) if keyed else LONGTEXT()
    return sa.Text()


def _prepare_sql_target(url: str, replace: bool) -> Any:
    """Create the server database (or DuckDB file) the copy goes into; return its SQLAlchemy URL."""
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    from groundsql.db.urls import parse_target

    if url.startswith("duckdb"):
        path = Path(make_url(url).database or "").expanduser()
        if path.exists():
            if not replace:
                raise ConfigError(f"{path} exists; pass --replace to overwrite it")
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        return make_url(f"duckdb:///{path}")
    target = make_url(parse_target(url).url)
    name = target.database
    if not name:
        raise ConfigError(f"{_display(url)} names no database to create")
    backend = target.get_backend_name()
    server = sa.engine.URL.create(target.drivername, target.username, target.password, target.host, target.port,
                                  "postgres" if backend == "postgresql" else None, target.query)
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    quote = (lambda n: '"' + n.replace('"', '""') + '"') if backend == "postgresql" else \
        (lambda n: "`" + n.replace("`", "``") + "`")
    try:
        with admin.connect() as conn:
            if backend == "postgresql":
                exists = conn.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first()
            else:
                exists = conn.execute(sa.text("SELECT 1 FROM information_schema.schemata WHERE schema_name = :n"),
                                      {"n": name}).first()
            if exists and not replace:
                raise ConfigError(f"database {name} exists; pass --replace to drop and load it again")
            if exists:
                suffix = " WITH (FORCE)" if backend == "postgresql" else ""
                conn.execute(sa.text(f"DROP DATABASE {quote(name)}{suffix}"))
            if backend == "postgresql":
                conn.execute(sa.text(f"CREATE DATABASE {quote(name)}"))
            else:
                _create_mysql_database(conn, quote(name))
    except sa.exc.SQLAlchemyError as exc:
        raise DatabaseError(f"cannot create {name}: {str(getattr(exc, 'orig', exc)).splitlines()[0]}") from None
    finally:
        admin.dispose()
    return target


def _create_mysql_database(conn: Any, quoted: str) -> None:
    """A binary collation without padding, so text compares as in SQLite: case-sensitively, and 'a ' != 'a'
    (MariaDB: utf8mb4_nopad_bin; MySQL 8: utf8mb4_0900_bin; older servers: utf8mb4_bin, which pads)."""
    import sqlalchemy as sa

    for collation in ("utf8mb4_nopad_bin", "utf8mb4_0900_bin", "utf8mb4_bin"):
        try:
            conn.execute(sa.text(f"CREATE DATABASE {quoted} CHARACTER SET utf8mb4 COLLATE {collation}"))
            return
        except sa.exc.SQLAlchemyError as exc:
            if collation == "utf8mb4_bin":
                raise
            log.debug("collation %s not available: %s", collation, exc)


def _parents_first(tables: list[TablePlan]) -> list[TablePlan]:
    """Tables ordered so that a foreign key's parent comes before its child where the keys allow it."""
    by_name = {t.name: t for t in tables}
    ordered: list[TablePlan] = []
    visiting: set[str] = set()

    def visit(table: TablePlan) -> None:
        if table in ordered or table.name in visiting:
            return
        visiting.add(table.name)
        for _, parent, _ in table.foreign_keys:
            if parent in by_name and parent != table.name:
                visit(by_name[parent])
        ordered.append(table)

    for table in tables:
        visit(table)
    return ordered


def _write_spark(url: str, tables: list[TablePlan], entry: DatabaseLoad, replace: bool) -> None:
    """A folder of Parquet tables (one sub-folder each) that `spark+local:///folder` opens."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ConfigError("loading into Spark needs pyarrow: pip install 'groundsql[spark]'") from None
    if spark_mode(url) != "local":
        raise ConfigError("load into Spark with spark+local:///folder/{db_id}, then copy the Parquet folders to "
                          "your cluster's storage and register them in its catalog")
    raw = url.split("://", 1)[1].split("?", 1)[0]
    if not raw.strip("/"):
        raise ConfigError("give a folder: spark+local:///path/to/copies/{db_id}")
    folder = Path(raw).expanduser()
    if folder.exists():
        if not replace:
            raise ConfigError(f"{folder} exists; pass --replace to overwrite it")
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    # Written with pyarrow (a requirement of groundsql[spark]): the same Parquet Spark writes, without starting
    # a JVM and Python workers to copy a few thousand rows.
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow_types = {INTEGER: pa.int64(), DOUBLE: pa.float64(), TEXT: pa.string(), BINARY: pa.binary()}
    for plan in tables:
        schema = pa.schema([pa.field(c.name, arrow_types[c.kind]) for c in plan.columns],
                           metadata=spark_parquet_metadata(plan))
        columns = [[row[i] for row in plan.rows] for i in range(len(plan.columns))]
        table = pa.Table.from_arrays([pa.array(values, type=field.type) for values, field in zip(columns, schema)],
                                     schema=schema)
        (folder / plan.name).mkdir()
        pq.write_table(table, folder / plan.name / "part-00000.parquet")
    keys = sum(1 for t in tables if t.primary_key) + sum(len(t.foreign_keys) for t in tables)
    if keys:
        entry.changes.append(f"{keys} primary/foreign keys not kept: Spark tables have no key constraints "
                             "(the original's keys are recorded for prompts)")


#: Spark's data type of each stored kind, as its schema JSON names it.
SPARK_TYPES = {INTEGER: "long", DOUBLE: "double", TEXT: "string", BINARY: "binary"}


def spark_parquet_metadata(plan: TablePlan) -> dict[str, str]:
    """The Parquet footer entries of a Spark copy's table: the schema Spark reads from a file it wrote itself,
    with each column's comment recording the original's declared type (Spark's catalog lists it as the column's
    description), and the original's declared keys as the table's comment (`PARQUET_COMMENT_KEY`, which
    `spark+local` folders read back: a file's table has no catalog comment)."""
    fields = [{"name": c.name, "type": SPARK_TYPES[c.kind], "nullable": True,
               "metadata": {"comment": source_type_comment(c.shown)}} for c in plan.columns]
    metadata = {SPARK_SCHEMA_KEY: json.dumps({"type": "struct", "fields": fields}, separators=(",", ":"))}
    if plan.comment is not None:
        metadata[PARQUET_COMMENT_KEY] = plan.comment
    return metadata
