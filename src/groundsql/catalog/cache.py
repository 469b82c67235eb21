"""On-disk catalog cache, keyed by a fingerprint of the database's structure."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from groundsql.catalog.catalog import CATALOG_VERSION, Catalog
from groundsql.catalog.schema import Schema
from groundsql.db.result import json_safe

log = logging.getLogger("groundsql")


def default_cache_dir() -> Path:
    """`$GROUNDSQL_CACHE_DIR`, else `$XDG_CACHE_HOME/groundsql/catalogs`, else `~/.cache/groundsql/catalogs`."""
    explicit = os.environ.get("GROUNDSQL_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "groundsql" / "catalogs"


def fingerprint(schema: Schema, database: str, extra: str = "") -> str:
    """Hash of where the database is and of its structure: tables, columns, declared types, keys.

    Any change to the structure (a new column, a changed type, a dropped key) gives a new fingerprint, so the
    cached catalog is rebuilt. `extra` folds in options that change what the catalog contains.
    """
    shape = {
        "version": CATALOG_VERSION,
        "database": database,
        "dialect": schema.dialect,
        "extra": extra,
        "tables": [
            {
                "name": t.name,
                "view": t.is_view,
                "columns": [[c.name, c.type, c.nullable, *([c.source_type] if c.source_type else [])]
                            for c in t.columns],
                "pk": t.primary_key,
                "fks": [[fk.columns, fk.ref_table, fk.ref_columns] for fk in t.foreign_keys if not fk.inferred],
            }
            for t in schema.tables
        ],
    }
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:24]


def cache_path(key: str, cache_dir: Path | None = None) -> Path:
    return (cache_dir or default_cache_dir()) / f"{key}.json"


def load(key: str, cache_dir: Path | None = None) -> Catalog | None:
    """The cached catalog for `key`, or None when absent, unreadable or from an older format."""
    path = cache_path(key, cache_dir)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        catalog = Catalog.from_dict(data)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("ignoring unreadable catalog cache %s: %s", path, exc)
        return None
    if catalog.version != CATALOG_VERSION or catalog.fingerprint != key:
        return None
    catalog.from_cache = True
    return catalog


def save(catalog: Catalog, cache_dir: Path | None = None) -> Path | None:
    """Write the catalog atomically; a cache that cannot be written is logged, not fatal."""
    path = cache_path(catalog.fingerprint, cache_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(catalog.to_dict(), ensure_ascii=False, default=json_safe)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False,
                                         suffix=".tmp") as handle:
            handle.write(text)
        os.replace(handle.name, path)
    except OSError as exc:
        log.warning("cannot write the catalog cache %s: %s", path, exc)
        return None
    return path
