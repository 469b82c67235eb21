"""Turn what a user typed (a URL or a bare path) into a normalised connection target."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from groundsql.db.spark_urls import is_spark_url, spark_display, spark_local_path
from groundsql.errors import ConfigError

SQLITE_SUFFIXES = {".sqlite", ".sqlite3", ".db"}
DUCKDB_SUFFIXES = {".duckdb", ".ddb"}
FILE_SUFFIXES = {".csv", ".parquet", ".json", ".jsonl"}

#: SQLAlchemy backend name → sqlglot dialect name.
SQLGLOT_DIALECTS = {
    "sqlite": "sqlite",
    "duckdb": "duckdb",
    "postgresql": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "spark": "spark",
}


@dataclass(frozen=True)
class Target:
    """Where a database lives: the backend, and a file path or a server URL."""

    backend: str  # sqlite | duckdb | postgresql | mysql | spark
    url: str  # SQLAlchemy URL (credentials included; never log it raw)
    path: Path | None = None  # for file databases
    data_files: tuple[Path, ...] = ()  # CSV/Parquet files exposed as tables

    @property
    def dialect(self) -> str:
        return SQLGLOT_DIALECTS[self.backend]

    @property
    def display(self) -> str:
        """The target with any password masked, safe for logs and traces."""
        if self.backend == "spark":
            return spark_display(self.url)
        if self.path is not None:
            return str(self.path)
        return make_url(self.url).render_as_string(hide_password=True)


def parse_target(spec: str) -> Target:
    """Parse a database URL or a bare file path.

    Args:
        spec: `sqlite:///file.sqlite`, `duckdb:///file.duckdb`, `postgresql://user@host/db`,
            `mysql://root@127.0.0.1/db`, `spark://master:7077`, `sc://host:15002` (Spark Connect),
            `spark+local://` or `spark+local:///folder/of/parquet`, or a bare path ending in .sqlite/.db/.duckdb/.csv/.parquet.

    Returns:
        The normalised `Target`.
    """
    spec = (spec or "").strip()
    if not spec:
        raise ConfigError("no database given: pass --db with a URL or a file path")
    if is_spark_url(spec):
        return Target("spark", spec, path=spark_local_path(spec))
    if "://" not in spec:
        return _target_from_path(Path(spec).expanduser())
    try:
        url = make_url(spec)
    except (ArgumentError, ValueError) as exc:
        raise ConfigError(f"cannot parse database URL {_masked(spec)!r}: {_url_problem(spec, exc)}") from None
    backend = url.get_backend_name()
    if backend in ("sqlite", "duckdb"):
        if not url.database or url.database == ":memory:":
            raise ConfigError(f"{backend} URL needs a file path, e.g. {backend}:///path/to/file")
        return _target_from_path(Path(url.database).expanduser(), backend)
    if backend == "postgresql":
        return Target("postgresql", str(url.set(drivername="postgresql+psycopg")))
    if backend in ("mysql", "mariadb"):
        return Target("mysql", str(url.set(drivername="mysql+pymysql")))
    raise ConfigError(
        f"unsupported database type {backend!r}: use sqlite, duckdb, postgresql, mysql (mariadb), "
        "spark, sc (Spark Connect) or spark+local"
    )


def _masked(spec: str) -> str:
    """`spec` with any password replaced by ***, for messages about a URL that did not parse."""
    scheme, sep, rest = spec.partition("://")
    netloc, slash, path = rest.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:***@{host}"
    return f"{scheme}{sep}{netloc}{slash}{path}"


def _url_problem(spec: str, exc: Exception) -> str:
    host = spec.partition("://")[2].partition("/")[0].rpartition("@")[2]
    port = host.rpartition("]")[2].partition(":")[2]
    if port and not port.isdigit():
        return f"the port {port!r} is not a number"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _target_from_path(path: Path, backend: str | None = None) -> Target:
    if not path.exists():
        raise ConfigError(f"database file not found: {path}")
    if path.is_dir():
        raise ConfigError(f"{path} is a folder; give a database file")
    suffix = path.suffix.lower()
    if suffix in FILE_SUFFIXES:
        return Target("duckdb", "duckdb:///:memory:", path=None, data_files=(path.resolve(),))
    backend = backend or ("duckdb" if suffix in DUCKDB_SUFFIXES else "sqlite" if suffix in SQLITE_SUFFIXES else None)
    if backend is None:
        backend = "sqlite" if _looks_like_sqlite(path) else None
    if backend is None:
        raise ConfigError(
            f"cannot tell the database type of {path}: use a .sqlite/.db, .duckdb, .csv or .parquet file, "
            "or a URL such as sqlite:///path"
        )
    resolved = path.resolve()
    return Target(backend, f"{backend}:///{resolved}", path=resolved)


def _looks_like_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(16) == b"SQLite format 3\x00"
