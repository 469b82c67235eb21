"""Spark connection targets: a cluster master, a Spark Connect server, or a local session over files."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from groundsql.errors import ConfigError

#: URL schemes that mean Spark.
SPARK_SCHEMES = ("spark", "sc", "spark+local")
#: Files a local session exposes as views (a folder of Parquet part files counts as one table).
SPARK_FILE_SUFFIXES = (".parquet", ".csv", ".json", ".jsonl", ".orc")
#: The Parquet footer entry in which Spark keeps the schema of a file it wrote (column comments included).
SPARK_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.metadata"
#: The Parquet footer entry that gives a file's table its comment (a view over files has none in the catalog).
PARQUET_COMMENT_KEY = "groundsql.table_comment"


def is_spark_url(spec: str) -> bool:
    """True for `spark://…`, `sc://…` and `spark+local://…`."""
    text = str(spec or "").strip()
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    return scheme in SPARK_SCHEMES


def spark_mode(url: str) -> str:
    """"local", "cluster" (a `spark://` master, the driver runs here) or "connect" (`sc://`)."""
    scheme = url.split("://", 1)[0].lower()
    return {"spark+local": "local", "spark": "cluster", "sc": "connect"}[scheme]


def spark_database(url: str) -> str | None:
    """The `?database=NAME` a URL asks for (the catalog database queries run in), if any."""
    query = urlsplit(url).query
    values = parse_qs(query).get("database")
    return values[0] if values else None


def spark_connection_url(url: str) -> str:
    """The URL handed to Spark: groundsql's own `?database=` removed, `spark+local` turned into a master."""
    mode = spark_mode(url)
    parts = urlsplit(url)
    if mode == "local":
        threads = parse_qs(parts.query).get("threads", ["*"])[0]
        return f"local[{threads}]"
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    kept = "&".join(p for p in parts.query.split("&") if p and not p.startswith("database="))
    return base + (f"?{kept}" if kept else "")


def spark_local_path(url: str) -> Path | None:
    """The file or folder a `spark+local:///path` URL exposes; None for the session's own catalog."""
    if spark_mode(url) != "local":
        return None
    raw = urlsplit(url).path
    if not raw or raw == "/":
        return None
    path = Path(raw).expanduser()
    if not path.exists():
        raise ConfigError(f"Spark data not found: {path}")
    return path.resolve()


def spark_display(url: str) -> str:
    """The URL with Spark Connect's `;token=…` and any password masked, safe for logs and traces."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}:***@{host}"
    path = ";".join(
        f"{p.split('=', 1)[0]}=***" if p.lower().startswith(("token=", "password=")) else p
        for p in parts.path.split(";")
    )
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme}://{netloc}{path}{query}"


def spark_tables(path: Path) -> dict[str, Path]:
    """View name → data path for a file, or for each data file and Parquet folder inside a folder."""
    if path.is_file():
        if path.suffix.lower() not in SPARK_FILE_SUFFIXES:
            raise ConfigError(f"Spark cannot read {path.name}: use {', '.join(SPARK_FILE_SUFFIXES)} files")
        return {path.stem: path}
    found: dict[str, Path] = {}
    for entry in sorted(path.iterdir()):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_file() and entry.suffix.lower() in SPARK_FILE_SUFFIXES:
            found[entry.stem] = entry
        elif entry.is_dir() and any(entry.glob("*.parquet")):
            found[entry.name.removesuffix(".parquet")] = entry
    if not found:
        raise ConfigError(f"no Parquet, CSV, JSON or ORC data in {path}")
    return found


def parquet_comment(data: Path) -> str | None:
    """The table comment a Parquet file (or the first part file of a Parquet folder) records in its footer
    (`PARQUET_COMMENT_KEY`, written by `groundsql eval load`); None without one, or without pyarrow."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None
    first = data if data.is_file() else next(iter(sorted(data.glob("*.parquet"))), None)
    if first is None or first.suffix.lower() != ".parquet":
        return None
    try:
        footer = pq.read_metadata(first).metadata or {}
    except (OSError, ValueError):  # not a Parquet file after all: Spark reports it when it reads the file
        return None
    comment = footer.get(PARQUET_COMMENT_KEY.encode())
    return comment.decode("utf-8") if comment is not None else None
