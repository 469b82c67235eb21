"""Building a catalog: introspect, profile tables in parallel, infer keys, index values, describe, cache."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from groundsql.catalog import cache
from groundsql.catalog.catalog import Catalog
from groundsql.catalog.descriptions import apply_descriptions, load_descriptions
from groundsql.catalog.introspect import introspect
from groundsql.catalog.keys import KeyOptions, build_join_graph
from groundsql.catalog.profile import ProfileOptions, TableScan, profile_table
from groundsql.catalog.schema import ForeignKey, Schema
from groundsql.catalog.values import ValueIndex
from groundsql.db import Database
from groundsql.models import Model

log = logging.getLogger("groundsql")

#: Called as progress(table, done, total) after each table is profiled.
Progress = Callable[[str, int, int], None]


def build_catalog(
    db: Database,
    *,
    refresh: bool = False,
    use_cache: bool = True,
    cache_dir: Path | None = None,
    descriptions: str | Path | None = None,
    enrich: bool = False,
    model: Model | None = None,
    workers: int = 2,
    profile_options: ProfileOptions | None = None,
    key_options: KeyOptions | None = None,
    progress: Progress | None = None,
    documents: str | None = None,
) -> Catalog:
    """The catalog of `db`: from the cache when the structure is unchanged, else profiled now and cached.

    Args:
        db: the database (every profiling query goes through `db.execute`).
        refresh: rebuild even when a cached catalog matches.
        use_cache: read and write the on-disk cache (see `cache.default_cache_dir`).
        cache_dir: where cached catalogs live.
        descriptions: a BIRD `database_description` folder or a YAML file of table/column descriptions.
        enrich: have `model` write a one-line description of every table and column that has none.
        model: the model for `enrich` (default: the session's default model).
        workers: tables profiled at the same time.
        profile_options, key_options: thresholds of profiling and key inference.
        progress: called after each table.
        documents: the user's documents and rules as text, shown to the model when `enrich` describes tables.

    Returns:
        The `Catalog`.
    """
    started = time.perf_counter()
    schema = introspect(db)
    key = cache.fingerprint(schema, db.display)
    catalog = cache.load(key, cache_dir) if use_cache and not refresh else None
    changed = False
    if catalog is None:
        catalog = _profile(db, schema, key, workers, profile_options, key_options, progress)
        changed = True
    elif progress is not None:
        for index, name in enumerate(catalog.table_names, 1):
            progress(name, index, len(catalog.table_names))
    if descriptions is not None:
        apply_descriptions(catalog.tables, catalog.schema, load_descriptions(descriptions))
        changed = True
    if enrich and not catalog.enriched:
        from groundsql.catalog.enrich import enrich_catalog
        from groundsql.models import load_model

        enrich_catalog(catalog, model or load_model(), documents=documents)
        changed = True
    if not catalog.from_cache:
        catalog.build_seconds = time.perf_counter() - started
    if use_cache and changed:
        cache.save(catalog, cache_dir)
    return catalog


def cached_catalog(db: Database, *, cache_dir: Path | None = None) -> Catalog | None:
    """The catalog `build_catalog` cached for `db` when the structure still matches, else None; never profiles."""
    return cache.load(cache.fingerprint(introspect(db), db.display), cache_dir)


def _profile(db: Database, schema: Schema, key: str, workers: int, profile_options: ProfileOptions | None,
             key_options: KeyOptions | None, progress: Progress | None) -> Catalog:
    options = profile_options or ProfileOptions()
    total = len(schema.tables)
    done = 0

    def one(table) -> TableScan:
        return profile_table(db, table, options)

    scans: list[TableScan] = []
    # In-memory DuckDB (CSV/Parquet) has a single connection: queries serialise anyway.
    pool_size = 1 if db.target.data_files else max(1, min(workers, total or 1))
    with ThreadPoolExecutor(max_workers=pool_size) as pool:
        for scan in pool.map(one, schema.tables):
            scans.append(scan)
            done += 1
            log.info("profiled %s (%d/%d) in %.2fs", scan.profile.name, done, total, scan.profile.profile_seconds)
            if progress is not None:
                progress(scan.profile.name, done, total)
    tables = [s.profile for s in scans]
    graph = build_join_graph(db, tables, key_options)
    index = ValueIndex()
    for scan in scans:
        for column, values in scan.index_values.items():
            index.add(scan.profile.name, column, values)
    _sync_schema(schema, tables)
    return Catalog(schema=schema, tables=tables, join_graph=graph, value_index=index, fingerprint=key,
                   database=db.display, built_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))


def _sync_schema(schema: Schema, tables: list) -> None:
    """Copy what profiling learnt back onto the plain schema: row counts, inferred keys, comments."""
    for profile in tables:
        table = schema.table(profile.name)
        if table is None:
            continue
        table.row_count = profile.row_count
        if profile.primary_key_inferred and not table.primary_key:
            table.primary_key = list(profile.primary_key)
        declared = {tuple(c.lower() for c in fk.columns) for fk in table.foreign_keys}
        for fk in profile.foreign_keys:
            if fk.inferred and tuple(c.lower() for c in fk.columns) not in declared:
                table.foreign_keys.append(ForeignKey(list(fk.columns), fk.ref_table, list(fk.ref_columns), True))


def profile_database(
    db: Database | str,
    *,
    refresh: bool = False,
    enrich: bool = False,
    model: Model | str | None = None,
    descriptions: str | Path | None = None,
    use_cache: bool = True,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> Catalog:
    """Profile a database once, or reuse its cached catalog (the library verb `groundsql.profile`).

    Args:
        db: an open `Database` or a URL/path to open.
        refresh: rebuild even when a cached catalog matches the current structure.
        enrich: have a model write one-line descriptions of tables and columns (marked as generated).
        model: the model for `enrich`: a `Model`, a spec string, or None for the default model.
        descriptions: a BIRD `database_description` folder or a YAML file of user descriptions.
        use_cache: read and write the on-disk cache.
        cache_dir: where cached catalogs live (default: `~/.cache/groundsql/catalogs`).
        progress: called as progress(table, done, total).

    Returns:
        The `Catalog`: schema, table and column profiles, join graph, value index.
    """
    from groundsql.models import load_model

    database = db if isinstance(db, Database) else Database(db)
    chosen = model if isinstance(model, Model) or model is None else load_model(model)
    if enrich and chosen is None:
        chosen = load_model()
    return build_catalog(database, refresh=refresh, enrich=enrich, model=chosen, descriptions=descriptions,
                         use_cache=use_cache, cache_dir=cache_dir, progress=progress)
