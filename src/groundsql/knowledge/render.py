"""THE renderer of what a model sees about a schema (or a linked subset of it) for one question.

Two parts, in prompt order:

* the **schema block** — per table DDL with descriptions as inline comments, semantic types, top values of
  dimensions in their stored spelling, ranges of time and metric columns, declared and inferred keys, and a few
  example rows (`catalog.prompt_text` does the drawing). It depends only on the database and the tables shown,
  so every call about one database starts with the same text and the local model's KV cache is reused. Only when
  it exceeds its budget is it reordered by relevance to the question and cut (detail first, then tables);
* the **knowledge block** — what belongs to this question: stored values matching its words, retrieved rules,
  glossary terms, verified examples and document chunks, and the dialect notes it needs, under their own budget.

With every switch of `KnowledgeOptions` off, the text is exactly the plain DDL with example rows that
groundsql showed before (the "no knowledge" ablation). Each render is recorded on the trace: what was shown,
with scores and sources, and what was cut.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from sqlglot import exp

from groundsql.catalog import (
    Catalog,
    estimate_tokens,
    profile_table,
    quote_name,
    render_schema_ddl,
    render_table_ddl,
)
from groundsql.catalog import render as render_catalog
from groundsql.catalog import types as semantic
from groundsql.catalog.cache import fingerprint
from groundsql.catalog.render import render_sample
from groundsql.catalog.sqlite_types import sqlite_catalog, sqlite_row, sqlite_schema
from groundsql.db import Database, Result
from groundsql.errors import ConfigError, DatabaseError
from groundsql.knowledge.dialect_notes import choose_notes
from groundsql.knowledge.grounding import options_of, prepare, written_dialect
from groundsql.knowledge.items import Item
from groundsql.knowledge.options import KnowledgeOptions
from groundsql.knowledge.retrieval import KnowledgeRetriever, Retrieved, rank_tables, retriever_for
from groundsql.prompts import dialect_name

log = logging.getLogger("groundsql")

VALUES_HEADER = "-- Stored values that match words of the question:"
#: Value-index matches shown for one question, and the least score that counts (0-100).
MAX_VALUE_LINES = 6
MIN_VALUE_SCORE = 90.0

Linked = Mapping[str, Iterable[str]]
TableLike = TypeVar("TableLike")

_SCHEMA_BLOCKS: dict[tuple, str] = {}
_BLOCKS_LOCK = threading.Lock()
_MAX_BLOCKS = 512


@dataclass(frozen=True)
class PromptContext:
    """The rendered schema block (stable per database) and knowledge block (this question's)."""

    schema: str
    knowledge: str = ""

    def text(self) -> str:
        """Both blocks as one prompt section, schema first."""
        return f"{self.schema}\n\n{self.knowledge}" if self.knowledge else self.schema


def render_context(ctx: Any, *, tables: list[str] | None = None, linked: Linked | None = None,
                   value_lines: list[str] | None = None, sample_limit: int | None = None,
                   draft: str | None = None, style: Literal["ddl", "compact"] = "ddl") -> PromptContext:
    """What the model should see about the database for `ctx.question`.

    Args:
        ctx: the run's `Context`.
        tables: only these tables (default: all).
        linked: a linked subset, {table: [columns]} (columns empty: all); its tables are shown with the linked
            columns plus the keys that join them.
        value_lines: the linker's evidence on stored values, one comment line each (default: looked up in the
            catalog's value index).
        sample_limit: example rows per table (default: the `sample_rows` option).
        draft: a draft query; the dialect notes its constructs need are added.
        style: ``ddl`` (CREATE TABLE with inline comments and example rows) or ``compact`` (ReCAPAgent-SQL's
            ``table(col:TYPE[v1,v2], …)`` line per table, descriptions as comment lines under it): whole `tables`,
            the `linked` tables and columns first rather than pruned to them, since a compact line costs little.

    Returns:
        The `PromptContext`; cached per run for the same arguments.
    """
    prepare(ctx)
    options = options_of(ctx)
    limit = options.sample_rows if sample_limit is None else sample_limit
    mapping = {t: list(c or []) for t, c in linked.items()} if linked else None
    key = ("knowledge.render", tuple(tables) if tables is not None else None,
           tuple(sorted((t, tuple(c)) for t, c in mapping.items())) if mapping else None,
           tuple(value_lines or ()), limit, draft or "", style)
    cache = ctx.cache.prompt_contexts
    if key not in cache:
        cache[key] = _render(ctx, options, tables, mapping, value_lines, limit, draft, style)
    return cache[key]


def render_text(ctx: Any, **kwargs: Any) -> str:
    """`render_context(ctx, **kwargs).text()`: the schema and knowledge blocks as one prompt section."""
    return render_context(ctx, **kwargs).text()


def pruned_table(table: TableLike, keep: Iterable[str] | None, kept_tables: set[str]) -> TableLike:
    """A copy of a `Table` or `TableProfile` with the `keep` columns (all when None or empty) plus its primary
    and foreign keys; foreign keys to tables outside `kept_tables` (lower-case names) are dropped."""
    wanted = {c.lower() for c in keep or []}
    foreign = [fk for fk in table.foreign_keys if fk.ref_table.lower() in kept_tables]  # type: ignore[attr-defined]
    if wanted:
        wanted |= {c.lower() for c in table.primary_key}  # type: ignore[attr-defined]
        wanted |= {c.lower() for fk in foreign for c in fk.columns}
    columns = [c for c in table.columns if not wanted or c.name.lower() in wanted]  # type: ignore[attr-defined]
    return replace(table, columns=columns, foreign_keys=foreign,  # type: ignore[type-var]
                   primary_key=list(table.primary_key))  # type: ignore[attr-defined]


# -- the two blocks ---------------------------------------------------------------------------------


def _render(ctx: Any, options: KnowledgeOptions, tables: list[str] | None, linked: dict[str, list[str]] | None,
            value_lines: list[str] | None, limit: int, draft: str | None, style: str = "ddl") -> PromptContext:
    catalog: Catalog | None = _as_written(ctx, ctx.catalog) if options.catalog_context else None
    note: dict[str, Any] = {"catalog": catalog is not None}
    if style == "compact":
        note["style"] = style
        schema, shown = _compact_schema(ctx, catalog, options, tables, linked, note)
    elif style != "ddl":
        raise ConfigError(f"unknown schema style {style!r}; use ddl or compact")
    elif catalog is None:
        schema, shown = _plain_schema(ctx, tables, linked, limit), _shown_plain(ctx, tables, linked)
    else:
        schema, shown = _catalog_schema(ctx, catalog, options, tables, linked, limit, note)
    knowledge, details = _question_block(ctx, options, catalog, shown, value_lines, draft)
    note.update(schema_tokens=estimate_tokens(schema), **details)
    ctx.trace.note("knowledge.render", **note)
    return PromptContext(schema=schema, knowledge=knowledge)


def knowledge_text(ctx: Any, *, tables: list[str] | None = None, draft: str | None = None) -> str:
    """Only the question's knowledge block (value matches, retrieved items, dialect notes) for `tables` (default:
    all), for a stage that draws the schema its own way; recorded on the trace like a full render."""
    prepare(ctx)
    options = options_of(ctx)
    catalog: Catalog | None = _as_written(ctx, ctx.catalog) if options.catalog_context else None
    names = [t.name for t in (catalog.schema if catalog is not None else ctx.schema).tables]
    shown = [n for n in names if tables is None or n.lower() in {t.lower() for t in tables}]
    knowledge, details = _question_block(ctx, options, catalog, shown, None, draft)
    ctx.trace.note("knowledge.render", catalog=catalog is not None, schema="drawn by the stage", **details)
    return knowledge


def _question_block(ctx: Any, options: KnowledgeOptions, catalog: Catalog | None, shown: list[str],
                    value_lines: list[str] | None, draft: str | None) -> tuple[str, dict[str, Any]]:
    """The knowledge block for the shown tables, and what to record about it on the trace."""
    question = ctx.question + (f" {ctx.evidence}" if getattr(ctx, "evidence", None) else "")
    if value_lines is None and catalog is not None:
        value_lines = _value_lines(catalog, question, {t.lower() for t in shown})
    candidates: list[tuple[Item, float]] = []
    details: dict[str, Any] = {}
    if options.knowledge and getattr(ctx, "knowledge", None) is not None:
        details["retriever"] = _retriever(ctx).backend
        found = _retriever(ctx).search(question + (f" {draft}" if draft else ""), limit=options.max_items,
                                       tables=shown)
        candidates += [(r.item, r.score) for r in found]
    if options.dialect_notes:
        notes = choose_notes(written_dialect(ctx), question, draft=draft, limit=options.max_dialect_notes,
                             text_dates=_has_text_dates(catalog, shown),
                             quoted_names=_needs_quotes(ctx, catalog, shown))
        candidates += [(n.item(), s) for n, s in notes]
    knowledge, kept, cut = _knowledge_block(ctx, value_lines or [], candidates, options.knowledge_budget_tokens)
    return knowledge, {"knowledge_tokens": estimate_tokens(knowledge), "tables": len(shown),
                       "value_matches": len(value_lines or []), **details, "items": kept, "cut_items": cut}


def _plain_schema(ctx: Any, tables: list[str] | None, linked: dict[str, list[str]] | None, limit: int) -> str:
    """Plain DDL with example rows: exactly what groundsql showed before the catalog reached prompts (as SQLite
    shows it, values included, when the model writes SQLite SQL for another engine)."""
    sqlite_view = _sqlite_view(ctx)
    schema = sqlite_schema(ctx.schema) if sqlite_view else ctx.schema

    def draw(chosen: list) -> str:
        parts = []
        for table in chosen:
            types = [c.type for c in table.columns] if sqlite_view else None
            sample = _sample(ctx.db, table.name, [c.name for c in table.columns], limit, types) if limit > 0 \
                else None
            parts.append(render_table_ddl(table, schema.dialect, sample))
        return "\n\n".join(parts)

    if linked:
        return draw(_pruned(schema.tables, linked))
    key = ("plain", sqlite_view, ctx.db.display, fingerprint(ctx.schema, ctx.db.display),
           tuple(tables) if tables is not None else None, limit)
    if sqlite_view:
        return _shared(key, lambda: draw([t for t in schema.tables if tables is None or t.name in tables]))
    return _shared(key, lambda: render_schema_ddl(ctx.schema, ctx.db, sample_limit=limit, tables=tables))


def _shown_plain(ctx: Any, tables: list[str] | None, linked: dict[str, list[str]] | None) -> list[str]:
    if linked:
        return [t.name for t in _pruned(ctx.schema.tables, linked)]
    return [t.name for t in ctx.schema.tables if tables is None or t.name in tables]


def _catalog_schema(ctx: Any, catalog: Catalog, options: KnowledgeOptions, tables: list[str] | None,
                    linked: dict[str, list[str]] | None, limit: int, note: dict[str, Any]) -> tuple[str, list[str]]:
    view = _view(catalog, tables, linked)
    names = [t.name for t in view.tables]
    budget = options.schema_budget_tokens
    key = ("catalog", ctx.db.display, catalog.fingerprint, id(catalog), tuple(names),
           tuple(len(t.columns) for t in view.tables), limit, budget)

    def draw() -> str:
        appendix = {t.name: _appendix(ctx.db, t.name, [c.name for c in t.columns], limit,
                                      [c.declared_type for c in t.columns] if _sqlite_view(ctx) else None)
                    for t in view.tables} if limit > 0 else None
        return render_catalog(view, appendix=appendix)

    full = _shared(key, draw)
    if estimate_tokens(full) <= budget:
        return full, names
    # Over budget: the least relevant tables go last, so the cuts fall on them (the prefix is then per question).
    question = ctx.question + (f" {ctx.evidence}" if getattr(ctx, "evidence", None) else "")
    hits = {m.table for m in catalog.value_index.lookup_question(question, limit=MAX_VALUE_LINES,
                                                                 min_score=MIN_VALUE_SCORE)} if len(
        catalog.value_index) else set()
    described = [(t.name, " ".join([c.name for c in t.columns] + [t.description or ""]
                                   + [c.description or "" for c in t.columns])) for t in view.tables]
    order = [n for n in (linked or {})] + rank_tables(described, question, boost=hits)
    order = list(dict.fromkeys(n for n in order if view.table(n) is not None))
    text = render_catalog(view, tables=order, budget_tokens=budget, linked=linked)
    shown = [n for n in order if f"TABLE {quote_name(n, view.dialect)} (" in text
             or f"VIEW {quote_name(n, view.dialect)} (" in text]
    note.update(schema_over_budget=True, full_schema_tokens=estimate_tokens(full),
                tables_cut=[n for n in order if n not in shown])
    return text, shown


def _compact_schema(ctx: Any, catalog: Catalog | None, options: KnowledgeOptions, tables: list[str] | None,
                    linked: dict[str, list[str]] | None, note: dict[str, Any]) -> tuple[str, list[str]]:
    """The compact lines of `tables` (default: all) under the schema budget; without a catalog only these tables
    are profiled now (a few cheap queries each), which gives their types and values but no descriptions."""
    schema = catalog.schema if catalog is not None else ctx.schema
    wanted = {t.lower() for t in tables} if tables is not None else None
    names = [t.name for t in schema.tables if wanted is None or t.name.lower() in wanted]
    if catalog is None:
        catalog = _as_written(ctx, _profiled(ctx, names))
        note["profiled"] = [t.name for t in catalog.tables]
    order = [n for n in (tables or names) if catalog.table(n) is not None]
    text = render_catalog(catalog, tables=order, style="compact", linked=linked, group=False,
                          budget_tokens=options.schema_budget_tokens)
    starts = {line.split("(", 1)[0].lower() for line in text.splitlines() if not line.startswith(" ")}
    return text, [n for n in order if n.lower() in starts]


def _profiled(ctx: Any, names: list[str]) -> Catalog:
    profiles = []
    for name in names:
        try:
            profiles.append(profile_table(ctx.db, ctx.schema.table(name)).profile)
        except DatabaseError as exc:
            log.debug("cannot profile %s: %s", name, exc)
    return Catalog(schema=ctx.schema, tables=profiles)


def _view(catalog: Catalog, tables: list[str] | None, linked: dict[str, list[str]] | None) -> Catalog:
    """The catalog restricted to `tables`, or to the linked tables pruned to their linked columns and keys."""
    if linked:
        return replace(catalog, tables=_pruned(catalog.tables, linked))
    if tables is not None:
        wanted = {t.lower() for t in tables}
        return replace(catalog, tables=[t for t in catalog.tables if t.name.lower() in wanted])
    return catalog


def _pruned(tables: list[TableLike], linked: dict[str, list[str]]) -> list[TableLike]:
    mapping = {name.lower(): columns for name, columns in linked.items()}
    kept = {t.name.lower() for t in tables if t.name.lower() in mapping}  # type: ignore[attr-defined]
    return [pruned_table(t, mapping[t.name.lower()], kept) for t in tables  # type: ignore[attr-defined]
            if t.name.lower() in kept]  # type: ignore[attr-defined]


def _knowledge_block(ctx: Any, value_lines: list[str], candidates: list[tuple[Item, float]],
                     budget: int) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The question's block under `budget` tokens: value matches, then items by score; the rest is cut."""
    used = 0
    kept_values: list[str] = []
    for line in value_lines[:MAX_VALUE_LINES]:
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            break
        kept_values.append(line)
        used += cost
    kept: list[tuple[Item, float]] = []
    cut: list[dict[str, Any]] = []
    for item, score in sorted(candidates, key=lambda p: (p[0].kind == "dialect", -p[1])):
        cost = estimate_tokens(item.text) + 2
        if used + cost > budget:
            cut.append({"kind": item.kind, "source": item.source, "score": score, "tokens": cost})
            continue
        kept.append((item, score))
        used += cost
    sections = []
    if kept_values:
        sections.append(VALUES_HEADER + "\n" + "\n".join(kept_values))
    facts = [f"- {i.text}" for i, _ in kept if i.kind in ("rule", "term", "doc")]
    if facts:
        sections.append("Rules and definitions for this database (follow them where they apply):\n"
                        + "\n".join(facts))
    examples = [i.text for i, _ in kept if i.kind == "example"]
    if examples:
        sections.append("Verified examples on this database:\n" + "\n\n".join(examples))
    notes = [f"- {i.text}" for i, _ in kept if i.kind == "dialect"]
    if notes:
        sections.append(f"{dialect_name(written_dialect(ctx))} syntax notes:\n" + "\n".join(notes))
    record = [{"kind": i.kind, "source": i.source, "score": s, "tokens": estimate_tokens(i.text)} for i, s in kept]
    return "\n\n".join(sections), record, cut


def _retriever(ctx: Any) -> KnowledgeRetriever:
    if ctx.cache.knowledge_retriever is None:
        options = options_of(ctx)
        ctx.cache.knowledge_retriever = retriever_for(ctx.knowledge, options.knowledge_retriever,
                                                      options.embedding_model)
    return ctx.cache.knowledge_retriever


def retrieve(ctx: Any, query: str | None = None, *, limit: int | None = None) -> list[Retrieved]:
    """The knowledge items for `query` (default: the question and evidence), for stages that place them
    themselves; recorded on the trace."""
    prepare(ctx)
    if getattr(ctx, "knowledge", None) is None:
        return []
    text = query or ctx.question + (f" {ctx.evidence}" if getattr(ctx, "evidence", None) else "")
    found = _retriever(ctx).search(text, limit=limit if limit is not None else options_of(ctx).max_items)
    ctx.trace.note("knowledge.retrieve", query=text, retriever=_retriever(ctx).backend,
                   items=[{"kind": r.item.kind, "source": r.item.source, "score": r.score} for r in found])
    return found


# -- helpers -----------------------------------------------------------------------------------------


def _value_lines(catalog: Catalog, question: str, shown: set[str]) -> list[str]:
    if not len(catalog.value_index):
        return []
    lines = []
    for match in catalog.value_index.lookup_question(question, limit=20, min_score=MIN_VALUE_SCORE):
        value = str(match.value)
        if match.table.lower() not in shown:
            continue
        if len(value.strip()) <= 3 and match.text.strip() != value.strip():
            continue  # a short code that only equals an everyday word when case is ignored
        line = f"-- {match.table}.{match.column}: {value!r}"
        if line not in lines:
            lines.append(line)
    return lines[:MAX_VALUE_LINES]


def _has_text_dates(catalog: Catalog | None, shown: list[str]) -> bool:
    if catalog is None:
        return False
    for name in shown:
        table = catalog.table(name)
        for column in table.columns if table else []:
            if column.semantic_type == semantic.TIME and column.physical_type == semantic.STRING:
                return True
    return False


def _needs_quotes(ctx: Any, catalog: Catalog | None, shown: list[str]) -> bool:
    schema = catalog.schema if catalog is not None else ctx.schema
    dialect = written_dialect(ctx)
    for name in shown:
        table = schema.table(name)
        names = [name] + ([c.name for c in table.columns] if table else [])
        if any(quote_name(n, dialect) != n for n in names):
            return True
    return False


def _appendix(db: Database, table: str, columns: list[str], limit: int, types: list[str] | None = None) -> str:
    sample = _sample(db, table, columns, limit, types)
    return render_sample(table, sample) if sample is not None else ""


def _sample(db: Database, table: str, columns: list[str], limit: int,
            types: list[str] | None = None) -> Result | None:
    """A few rows of `table`; with `types` (SQLite declared types, one per column), as SQLite would return them."""
    selected = [exp.column(exp.to_identifier(c, quoted=True)) for c in columns]
    sql = exp.select(*selected).from_(exp.table_(exp.to_identifier(table, quoted=True))).limit(limit).sql(
        dialect=db.dialect)
    try:
        result = db.execute(sql, max_rows=limit)
    except DatabaseError:
        return None
    if types is not None:
        result = replace(result, rows=[sqlite_row(row, types) for row in result.rows])
    return result


def _sqlite_view(ctx: Any) -> bool:
    """Whether the model reads the schema as SQLite's on another engine (`model_dialect=sqlite`)."""
    return written_dialect(ctx) == "sqlite" and ctx.db.dialect != "sqlite"


_SQLITE_VIEWS: dict[int, tuple[Catalog, Catalog]] = {}
#: Catalogs kept with their SQLite view (as many as `grounding` shares).
_MAX_SQLITE_VIEWS = 16


def _as_written(ctx: Any, catalog: Catalog | None) -> Catalog | None:
    """`catalog` as the prompt shows it: as SQLite would (`catalog.sqlite_types`) when the model writes SQLite SQL
    for another engine, else as it is. Converted once per catalog object."""
    if catalog is None or not _sqlite_view(ctx):
        return catalog
    with _BLOCKS_LOCK:
        found = _SQLITE_VIEWS.get(id(catalog))
        if found is not None and found[0] is catalog:
            return found[1]
    view = sqlite_catalog(catalog)
    with _BLOCKS_LOCK:
        while len(_SQLITE_VIEWS) >= _MAX_SQLITE_VIEWS:
            del _SQLITE_VIEWS[next(iter(_SQLITE_VIEWS))]
        _SQLITE_VIEWS[id(catalog)] = (catalog, view)
    return view


def _shared(key: tuple, draw: Any) -> str:
    """Schema blocks shared across runs in this process (the same database renders the same prefix)."""
    with _BLOCKS_LOCK:
        if key in _SCHEMA_BLOCKS:
            return _SCHEMA_BLOCKS[key]
    text = draw()
    with _BLOCKS_LOCK:
        if len(_SCHEMA_BLOCKS) >= _MAX_BLOCKS:
            _SCHEMA_BLOCKS.clear()
        _SCHEMA_BLOCKS[key] = text
    return text


def draft_notes(ctx: Any, sql: str, *, shown: str = "", limit: int = 2) -> str:
    """The dialect notes a draft query's constructs need (a repair prompt's addition), leaving out notes already
    in `shown` (the prompt's schema section); '' when there are none or dialect notes are off."""
    options = options_of(ctx)
    if not options.dialect_notes or not sql:
        return ""
    chosen = [n for n, _ in choose_notes(ctx.db.dialect, "", draft=sql, limit=limit + 3) if n.text not in shown]
    if not chosen:
        return ""
    ctx.trace.note("knowledge.draft_notes", topics=[n.topic for n in chosen[:limit]])
    return f"{dialect_name(ctx.db.dialect)} syntax notes:\n" + "\n".join(f"- {n.text}" for n in chosen[:limit])
