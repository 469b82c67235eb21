"""The on-disk cache: reused while the schema is unchanged, rebuilt when it changes or on refresh."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from groundsql.catalog import Catalog, build_catalog
from groundsql.catalog.cache import cache_path, fingerprint
from groundsql.db import Database

pytestmark = pytest.mark.integration


def test_cache_reuse_and_invalidation(crafted_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.sqlite"
    shutil.copy(crafted_db, path)
    cache_dir = tmp_path / "cache"
    first = build_catalog(Database(str(path)), cache_dir=cache_dir)
    assert not first.from_cache and cache_path(first.fingerprint, cache_dir).exists()

    again = build_catalog(Database(str(path)), cache_dir=cache_dir)
    assert again.from_cache and again.fingerprint == first.fingerprint
    assert again.to_dict() == first.to_dict()  # a faithful round trip, value index and join graph included
    assert again.value_index.lookup("Netherlands")[0].value == "Netherlands "
    assert again.join_graph.path_tables("products", "tags") == ["products", "product_tags", "tags"]

    refreshed = build_catalog(Database(str(path)), cache_dir=cache_dir, refresh=True)
    assert not refreshed.from_cache

    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE customers ADD COLUMN email TEXT")
    conn.commit()
    conn.close()
    changed = build_catalog(Database(str(path)), cache_dir=cache_dir)
    assert not changed.from_cache and changed.fingerprint != first.fingerprint
    assert changed.column("customers", "email") is not None


def test_fingerprint_ignores_inferred_keys_and_tracks_types(crafted_catalog: Catalog) -> None:
    schema = crafted_catalog.schema
    before = fingerprint(schema, "x")
    assert any(fk.inferred for t in schema.tables for fk in t.foreign_keys)
    assert fingerprint(schema, "y") != before  # another database, another entry
    schema.tables[0].columns[0].type = "TEXT" if schema.tables[0].columns[0].type != "TEXT" else "INTEGER"
    try:
        assert fingerprint(schema, "x") != before
    finally:
        schema.tables[0].columns[0].type = "INTEGER"


def test_unreadable_cache_file_is_rebuilt(crafted_db: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    first = build_catalog(Database(str(crafted_db)), cache_dir=cache_dir)
    cache_path(first.fingerprint, cache_dir).write_text("{not json", encoding="utf-8")
    second = build_catalog(Database(str(crafted_db)), cache_dir=cache_dir)
    assert not second.from_cache and second.table("events") is not None


def test_ask_builds_or_reuses_the_catalog_unless_told_not_to(crafted_db: Path, tmp_path: Path, monkeypatch) -> None:
    from groundsql.api import ask
    from groundsql.catalog import cached_catalog
    from groundsql.models import ScriptedModel

    path = tmp_path / "copy.sqlite"
    shutil.copy(crafted_db, path)
    monkeypatch.setenv("GROUNDSQL_CACHE_DIR", str(tmp_path / "cache"))
    assert cached_catalog(Database(str(path))) is None  # nothing profiled yet, and looking profiles nothing
    assert not (tmp_path / "cache").exists()
    built = build_catalog(Database(str(path)))

    def asked(**kwargs):
        return ask("How many tags?", str(path), model=ScriptedModel(["SELECT count(*) FROM tags"]), preset="refine",
                   **kwargs)

    notes = asked(catalog=True).trace.notes("catalog")
    assert [n["fingerprint"] for n in notes] == [built.fingerprint]
    assert [n["fingerprint"] for n in asked().trace.notes("catalog")] == [built.fingerprint]  # the default
    assert asked(catalog=False).trace.notes("catalog") == []
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE extra (id INTEGER)")
    conn.commit()
    conn.close()
    rebuilt = asked().trace.notes("catalog")  # a stale catalog is not used: the new structure is profiled
    assert len(rebuilt) == 1 and rebuilt[0]["fingerprint"] != built.fingerprint and rebuilt[0]["tables"] == len(built.tables) + 1
