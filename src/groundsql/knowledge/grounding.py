"""What a run knows about its database: the catalog (built or reused) and the knowledge folder, resolved once.

`prepare(ctx)` runs before every preset (`pipelines.run`): it loads the knowledge folder (given, or found next to
the database) and, when catalog context is on, gives the context the profiled catalog — from memory, from the
on-disk cache (keyed by the schema fingerprint), or profiled now (no model calls). The folder's descriptions,
known values and relationships are laid over a copy of the catalog; the cached catalog is never changed.
"""

from __future__ import annotations

import copy
import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from groundsql.catalog import Catalog, apply_descriptions, build_catalog, introspect
from groundsql.catalog import cache as catalog_cache
from groundsql.catalog.build import Progress
from groundsql.catalog.descriptions import ColumnNote, Descriptions
from groundsql.catalog.joins import Relationship
from groundsql.catalog.schema import ForeignKey
from groundsql.db import Database
from groundsql.errors import GroundsqlError
from groundsql.knowledge.items import Knowledge
from groundsql.knowledge.loader import cached_knowledge, discover_folder
from groundsql.knowledge.options import KnowledgeOptions

log = logging.getLogger("groundsql")

_CATALOGS: dict[tuple[str, str], Catalog] = {}
_DESCRIBED: dict[tuple[str, int], Catalog] = {}
_LOCKS: dict[str, threading.Lock] = {}
_LOCK = threading.Lock()


def options_of(ctx: Any) -> KnowledgeOptions:
    """The run's `KnowledgeOptions` (its defaults, overridden by what the run was given)."""
    return ctx.settings(KnowledgeOptions)


def written_dialect(ctx: Any) -> str:
    """The dialect the model writes its first queries in: the engine's, or SQLite's with `model_dialect=sqlite`
    (`sql.sqlite_flavour.from_sqlite` carries them to the engine)."""
    return "sqlite" if options_of(ctx).model_dialect == "sqlite" else ctx.db.dialect


def prepare(ctx: Any) -> None:
    """Give the context its knowledge and (when catalog context is on) its catalog; never fails the question."""
    if ctx.cache.grounded:
        return
    ctx.cache.grounded = True
    options = options_of(ctx)
    if getattr(ctx, "knowledge", None) is None and options.knowledge:
        folder = discover_folder(ctx.db)
        if folder is not None:
            ctx.knowledge = cached_knowledge(folder, ctx.db)
        elif getattr(ctx, "column_descriptions", None):
            ctx.knowledge = _from_column_descriptions(ctx.column_descriptions)
    # a preset whose own `profile` option is off (prospy's ablation) gets no catalog built for it
    if options.catalog_context and ctx.catalog is None and getattr(ctx.options, "profile", True) is not False:
        try:
            ctx.catalog = shared_catalog(ctx.db, ctx.schema)
        except GroundsqlError as exc:
            log.warning("no catalog for %s (%s); the prompt shows the plain schema", ctx.db.display, exc)
    knowledge = getattr(ctx, "knowledge", None)
    if ctx.catalog is not None and knowledge is not None and (knowledge.has_descriptions or knowledge.relationships):
        ctx.catalog = described_catalog(ctx.catalog, knowledge)
    if ctx.catalog is not None:
        ctx.trace.note("catalog", fingerprint=ctx.catalog.fingerprint, tables=len(ctx.catalog.table_names),
                       enriched=ctx.catalog.enriched)
    if knowledge is not None:
        ctx.trace.note("knowledge.loaded", folder=knowledge.folder, **knowledge.counts())


def shared_catalog(db: Database, schema: Any | None = None, *, progress: Progress | None = None) -> Catalog:
    """The catalog of `db`, shared by every run in this process; profiled once when no cached one matches
    (`progress(table, done, total)` is called as tables are profiled)."""
    key = (db.display, catalog_cache.fingerprint(schema if schema is not None else introspect(db), db.display))
    if key in _CATALOGS:
        return _CATALOGS[key]
    with _LOCK:
        lock = _LOCKS.setdefault(db.display, threading.Lock())
    with lock:  # one profiling per database even when questions on it run in parallel
        if key in _CATALOGS:
            return _CATALOGS[key]
        catalog = build_catalog(db, progress=progress)
        _CATALOGS[(db.display, catalog.fingerprint)] = catalog
        return catalog


def load_for(db: Database, folder: str | Path | None) -> Knowledge | None:
    """The knowledge of `db`: from `folder` when given, else the folder found next to the database, else None."""
    chosen = Path(folder).expanduser() if folder is not None else discover_folder(db)
    return cached_knowledge(chosen, db) if chosen is not None else None


def described_catalog(catalog: Catalog, knowledge: Knowledge) -> Catalog:
    """A copy of `catalog` with the folder's descriptions, known values and relationships laid over it."""
    key = (catalog.fingerprint + (knowledge.folder or ""), id(knowledge))
    with _LOCK:
        if key in _DESCRIBED:
            return _DESCRIBED[key]
    described = replace(catalog, schema=copy.deepcopy(catalog.schema), tables=copy.deepcopy(catalog.tables),
                        join_graph=copy.deepcopy(catalog.join_graph))
    apply_descriptions(described.tables, described.schema, knowledge.descriptions)
    for profile in described.tables:  # linkers read table descriptions from the plain schema
        table = described.schema.table(profile.name)
        if table is not None and profile.description and not table.comment:
            table.comment = profile.description
    for (table, column), values in knowledge.known_values.items():
        profile = described.column(table, column)
        if profile is not None and not profile.value_description:
            profile.value_description = "one of " + ", ".join(repr(v) for v in values[:12])
    for table, column, ref_table, ref_column in knowledge.relationships:
        _add_relationship(described, table, column, ref_table, ref_column)
    with _LOCK:
        _DESCRIBED[key] = described
    return described


def _from_column_descriptions(columns: dict[str, dict[str, str]]) -> Knowledge:
    """Knowledge holding only descriptions given as {table: {column: text}} (`Context.column_descriptions`)."""
    notes = {table: {column: ColumnNote(description=text) for column, text in cols.items() if text}
             for table, cols in columns.items()}
    return Knowledge(descriptions=Descriptions(columns=notes))


def _add_relationship(catalog: Catalog, table: str, column: str, ref_table: str, ref_column: str) -> None:
    profile, target = catalog.table(table), catalog.table(ref_table)
    if profile is None or target is None or profile.column(column) is None:
        log.info("relationship %s.%s → %s.%s names an unknown table or column", table, column, ref_table, ref_column)
        return
    if any([c.lower() for c in fk.columns] == [column.lower()] for fk in profile.foreign_keys):
        return
    fk = ForeignKey([profile.column(column).name], target.name, [ref_column], False)
    profile.foreign_keys.append(fk)
    schema_table = catalog.schema.table(profile.name)
    if schema_table is not None:
        schema_table.foreign_keys.append(ForeignKey(list(fk.columns), fk.ref_table, list(fk.ref_columns), False))
    catalog.join_graph.relationships.append(
        Relationship(profile.name, [fk.columns[0]], target.name, [ref_column], inferred=False))
