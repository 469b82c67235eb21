"""`prospy` (ProSPy): profiling → progressive pruning → planning → view fetching rounds → Python analysis."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field

from groundsql.analysis.compile import tables_of
from groundsql.analysis.fetching import (
    Fetch,
    FetchedView,
    FetchOptions,
    ViewStore,
    example_join,
    example_view,
    fetch_views,
)
from groundsql.analysis.python_stage import Analysis, PythonOptions, analyse
from groundsql.analysis.sandbox import SandboxLimits
from groundsql.answer import Answer
from groundsql.context import Context
from groundsql.errors import GroundsqlError
from groundsql.linking.options import LinkerChoice, LinkOptions
from groundsql.linking.subset import SchemaSubset
from groundsql.pipelines.registry import preset

log = logging.getLogger("groundsql")


class ProspyOptions(LinkOptions, LinkerChoice):
    """Options of the `prospy` preset (`--option KEY=VALUE`)."""

    python: Literal["auto", "always", "never"] = Field(
        "auto", description="run the Python stage: auto skips it when the model names a view that already answers")
    profile: bool = Field(True, description="profile the database first when no cached catalog is given")
    schema_tokens: int = Field(2500, ge=200, description="token budget of the schema text in prompts")
    schema_style: Literal["ddl", "compact"] = Field("ddl", description="how the profiled schema is shown")
    fetch_rounds: int = Field(3, ge=1, description="view fetching rounds")
    max_views: int = Field(6, ge=1, description="views fetched in all")
    view_rows: int = Field(10_000, ge=1, description="rows kept per view")
    view_fixes: int = Field(2, ge=0, description="re-asks per round for views that fail")
    python_revisions: int = Field(2, ge=0, description="revision rounds of the Python code")
    python_timeout_s: float = Field(30.0, gt=0, description="wall-clock limit of one sandboxed run")
    plan: bool = Field(True, description="write a plan before fetching")
    constrained: bool = Field(True, description="schema-constrained JSON for view definitions")


@preset("prospy", "ProSPy: profiling, progressive pruning, a plan, views fetched in rounds through a dialect-"
                  "agnostic view DSL, then sandboxed Python analysis of the views (python=auto|always|never)",
        options=ProspyOptions, linker="progressive")
def prospy(ctx: Context, options: ProspyOptions) -> Answer:
    """Profile, prune (the `progressive` linker; the whole schema when it fits `link_full_budget`), plan, fetch
    views in rounds, then analyse them in Python (see `ProspyOptions`)."""
    _profile(ctx, options)
    subset = _link(ctx, options)
    schema_text = _schema_text(ctx, subset, options)
    tables = tables_of(_base_schema(ctx))
    fetch_options = FetchOptions(rounds=options.fetch_rounds, max_views=options.max_views, max_rows=options.view_rows,
                                 fix_attempts=options.view_fixes, plan=options.plan, constrained=options.constrained)
    python_options = PythonOptions(revisions=options.python_revisions,
                                   limits=SandboxLimits(timeout_s=options.python_timeout_s))
    with ViewStore() as store:
        names = subset.table_names() or None
        fetch = fetch_views(ctx, schema_text, tables, store, fetch_options,
                            example=example_view(_base_schema(ctx), names),
                            join_example=example_join(_base_schema(ctx), names))
        analysis = analyse(ctx, fetch, python_options) if _wants_python(fetch, options) else None
    return _answer(ctx, fetch, analysis, subset)


def _profile(ctx: Context, options: ProspyOptions) -> None:
    """ProSPy §3.1: the profiled catalog (from the on-disk cache when the structure is unchanged)."""
    if ctx.catalog is not None or not options.profile:
        return
    from groundsql.catalog import build_catalog

    try:
        ctx.catalog = build_catalog(ctx.db, workers=1)
        ctx.trace.note("catalog", fingerprint=ctx.catalog.fingerprint, tables=len(ctx.catalog.table_names),
                       from_cache=ctx.catalog.from_cache)
    except GroundsqlError as exc:
        log.warning("profiling failed (%s); using the introspected schema", exc)


def _link(ctx: Context, options: ProspyOptions) -> SchemaSubset:
    """Progressive pruning (ProSPy §3.2); a failure falls back to the whole schema."""
    from groundsql.linking.registry import link_or_whole

    return link_or_whole(ctx, options, "progressive")


def _schema_text(ctx: Context, subset: SchemaSubset, options: ProspyOptions) -> str:
    """The pruned schema with its profiles (catalog renderer) when a catalog exists, else DDL with sample rows."""
    if ctx.catalog is not None:
        from groundsql.catalog import render
        from groundsql.knowledge import knowledge_text

        tables = subset.table_names() or None
        text = render(ctx.catalog, tables, budget_tokens=options.schema_tokens, style=options.schema_style,
                      linked=subset.as_mapping() if subset.tables else None)
        extra = knowledge_text(ctx, tables=tables)  # rules, glossary, examples, value matches, dialect notes
        return f"{text}\n\n{extra}" if extra else text
    from groundsql.generation.schema_text import render_subset

    return render_subset(ctx, subset)


def _base_schema(ctx: Context):
    schema = getattr(ctx.catalog, "schema", None)
    return schema if schema is not None else ctx.schema


def _wants_python(fetch: Fetch, options: ProspyOptions) -> bool:
    if not fetch.views or options.python == "never":
        return False
    return options.python == "always" or fetch.view(fetch.answer_view) is None


def _answer(ctx: Context, fetch: Fetch, analysis: Analysis | None, subset: SchemaSubset) -> Answer:
    answer = Answer(question=ctx.question, sql="", result=None, preset="", model=ctx.model().spec, trace=ctx.trace,
                    linked_schema=subset.as_mapping() if subset.tables else None)
    answer.views = [_view_record(v) for v in fetch.views]
    if not fetch.views:
        answer.error = "no view could be fetched" + (f": {fetch.problems[-1]}" if fetch.problems else "")
        return answer
    chosen = fetch.view(fetch.answer_view) or fetch.views[-1]
    answer.stages = {"view": chosen.sql}
    if analysis is not None:
        answer.python_code = analysis.code
        if analysis.ok:
            answer.sql = _script(fetch.views)
            answer.result = analysis.result
            answer.result_source = "python"
            return answer
        answer.notes.append(f"the Python stage failed ({analysis.error}); the answer is view {chosen.view.name}")
    answer.sql = chosen.sql
    answer.result = chosen.result
    return answer


def _view_record(view: FetchedView) -> dict:
    return {"name": view.view.name, "sql": view.sql, "columns": list(view.columns), "row_count": view.row_count,
            "truncated": view.truncated, "definition": view.view.model_dump(exclude_defaults=True)}


def _script(views: list[FetchedView]) -> str:
    """The views' SQL, one statement per view, each headed by its name."""
    return "\n\n".join(f"-- view {v.view.name}\n{v.sql};" for v in views)
