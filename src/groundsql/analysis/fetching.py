"""Iterative data fetching (ProSPy §3.3, A.3): a plan, then rounds of view definitions that are compiled, run
through the guarded `Database.execute` and materialized as CSV files in a private temporary folder.

Each round shows the model the views fetched so far (columns, row counts, a compressed preview), so it can build
on them. Budgets bound the rounds, the views and the rows kept per view. Malformed or failing definitions are
repaired leniently, then sent back once or twice with the compiler's error (which names the nearest real names);
they never end the run.
"""

from __future__ import annotations

import csv
import json
import logging
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from groundsql.analysis.compile import CompiledView, ViewCompiler
from groundsql.analysis.dsl import View
from groundsql.analysis.functions import allowed_names
from groundsql.analysis.repair import promote_known_source, rename_if_table, repair_view, salvage
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.db import Result
from groundsql.db.result import json_safe
from groundsql.errors import DatabaseError, ModelError, ViewError
from groundsql.models.base import parse_json
from groundsql.prompts import dialect_name, render

log = logging.getLogger("groundsql")


class FetchOptions(BaseModel):
    """Budgets of the fetching loop."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(3, ge=1, description="fetching rounds (model calls that define new views)")
    max_views: int = Field(6, ge=1, description="views fetched in all")
    max_rows: int = Field(10_000, ge=1, description="rows kept per view; longer results are cut and flagged")
    preview_rows: int = Field(5, ge=1, description="rows of each view shown to the model")
    fix_attempts: int = Field(2, ge=0, description="re-asks per round for views that fail to validate, compile or run")
    plan: bool = Field(True, description="write a plan before the first round")
    constrained: bool = Field(True, description="ask the model for schema-constrained JSON")
    max_tokens: int = Field(900, ge=64, description="completion tokens per fetching call")
    lineage: bool = Field(True, description="describe each fetched view's columns by their source columns")


@dataclass
class FetchedView:
    """One materialized view: its definition, the SQL that ran, and where its rows are."""

    view: View
    sql: str
    columns: list[str]
    row_count: int
    truncated: bool
    path: Path
    result: Result
    lineage: str = ""  # where each column comes from (`lineage.describe_view`), empty when not described

    def describe(self, preview_rows: int) -> str:
        more = " (cut at the row limit)" if self.truncated else ""
        head = f"view {self.view.name}: {self.row_count} rows{more}; columns: {', '.join(self.columns)}"
        lineage = f"\n{_indent(self.lineage)}" if self.lineage else ""
        return head + lineage + "\n" + _indent(self.result.summary(threshold=preview_rows, head=preview_rows))


@dataclass
class Fetch:
    """What the fetching loop produced."""

    plan: str = ""
    views: list[FetchedView] = field(default_factory=list)
    rounds: int = 0
    problems: list[str] = field(default_factory=list)
    answer_view: str | None = None
    joins: list[str] = field(default_factory=list)  # key pairs the files' rows match on (`table_inputs`)

    def view(self, name: str | None) -> FetchedView | None:
        if not name:
            return None
        lowered = name.strip().lower()
        return next((v for v in self.views if v.view.name.lower() == lowered), None)


class ViewStore:
    """A private temporary folder holding one CSV file per view; removed on `close` (or leaving a `with`)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="groundsql-views-"))

    def write(self, name: str, result: Result) -> Path:
        path = self.folder / f"{name}.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(result.columns)
            for row in result.rows:
                writer.writerow(["" if v is None else json_safe(v) for v in row])
        return path

    def files(self) -> dict[str, Path]:
        return {p.name: p for p in sorted(self.folder.glob("*.csv"))}

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ViewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def plan_fetch(ctx: Context, schema_text: str) -> str:
    """The planning step: which data, which joins, which intermediate views, what the last step computes."""
    messages = [{"role": "user", "content": render(
        "prospy_plan", dialect=dialect_name(ctx.db.dialect), question=ctx.question,
        evidence_block=_evidence(ctx), schema=schema_text)}]
    try:
        text = ctx.chat("prospy.plan", messages, role="planner", max_tokens=300).text.strip()
    except ModelError as exc:
        log.warning("planning failed (%s); fetching without a plan", exc)
        return ""
    ctx.trace.note("prospy.plan", plan=text)
    return text


#: The alias of the counting example's metric; an answer column of that name that the question did not ask for
#: was copied from the example (`pipelines.prospy` removes it exactly).
EXAMPLE_METRIC = "row_count"


def example_view(schema: Schema, names: list[str] | None = None, *, counting: bool = True) -> str:
    """One-table views of the DSL's form over a real table of `schema` (the first of `names`): one listing rows
    and, with `counting`, one counting per group, each on its own labelled line. Small models copy examples, so
    they name real things, join nothing and limit nothing: a single example with a join, a count and a limit was
    copied into answers that needed none of them (the 1.5B model counted singers through `singer_in_concert`,
    and listed singers with a `row_count` column and LIMIT 10; with the counting example alone it still added
    `COUNT(*) AS row_count` to seven of 13 answers). How to join is shown apart, by `example_join`."""
    tables = _example_tables(schema, names)
    if not tables:
        return "{}"
    table = tables[0]
    keys = {c.lower() for c in table.primary_key}
    labels = [c.name for c in table.columns if c.name.lower() not in keys] or [c.name for c in table.columns]
    if not labels:
        return "{}"
    name = table.name.lower()
    listing = {"name": f"{name}_rows", "source": table.name,
               "dimensions": [{"expr": f"{table.name}.{c}", "alias": c.lower()} for c in labels[:2]]}
    group = labels[1] if len(labels) > 1 else labels[0]
    if not counting:
        return f"To list rows: {json.dumps(listing)}"
    counting_view = {"name": f"{name}_per_{group.lower()}", "source": table.name,
                     "dimensions": [{"expr": f"{table.name}.{group}", "alias": group.lower()}],
                     "metrics": [{"agg": "count", "expr": "*", "alias": EXAMPLE_METRIC}]}
    return f"To list rows: {json.dumps(listing)}\nTo count (or sum, average) per group: {json.dumps(counting_view)}"


def example_join(schema: Schema, names: list[str] | None = None) -> str:
    """The `joins` entry of a view, over a real foreign key among `names` where there is one."""
    tables = _example_tables(schema, names)
    kept = {t.name.lower(): t for t in tables}
    for table in tables:
        for fk in table.foreign_keys:
            other = kept.get(fk.ref_table.lower())
            if other is not None:
                pairs = [[f"{table.name}.{a}", f"{other.name}.{b}"] for a, b in zip(fk.columns, fk.ref_columns)]
                return json.dumps({"joins": [{"table": other.name, "type": "inner", "on": pairs}]})[1:-1]
    return '"joins": [{"table": "other_table", "type": "inner", "on": [["source_table.key", "other_table.key"]]}]'


def _example_tables(schema: Schema, names: list[str] | None) -> list:
    wanted = {n.lower() for n in names or []}
    return [t for t in schema.tables if not wanted or t.name.lower() in wanted] or list(schema.tables)


def fetch_views(ctx: Context, schema_text: str, tables: dict[str, list[str]], store: ViewStore,
                options: FetchOptions | None = None, *, example: str | None = "", join_example: str = "") -> Fetch:
    """Run the fetching loop.

    Args:
        ctx: the question's context (model calls and queries go through it).
        schema_text: the pruned schema as the model should see it.
        tables: every real table name → its columns (the compiler checks names against these).
        store: where views are materialized.
        options: budgets.
        example: the example views shown in the prompt ("": generated from the schema; None: no example).
        join_example: the example `joins` entry ("": generated from the schema).

    Returns:
        The plan, the fetched views in order, and the problems met on the way.
    """
    options = options or FetchOptions()
    fetch = Fetch(plan=plan_fetch(ctx, schema_text) if options.plan else "")
    compiler = ViewCompiler(tables, ctx.db.dialect)
    for round_index in range(options.rounds):
        if len(fetch.views) >= options.max_views:
            break
        fetch.rounds = round_index + 1
        prompt = _round_prompt(ctx, schema_text, fetch, options, example, join_example)
        messages = [{"role": "user", "content": prompt}]
        done, added = False, 0
        for attempt in range(options.fix_attempts + 1):
            reply = _ask(ctx, messages, options, step=f"prospy.views:{round_index + 1}", require_view=not fetch.views)
            if reply is _FAILED:
                fetch.problems.append(f"round {round_index + 1}: the model call failed")
                done = True
                break
            if reply is None:
                fetch.problems.append(f"round {round_index + 1}: the reply was not a JSON object")
                messages = messages + [
                    {"role": "assistant", "content": "(no usable JSON)"},
                    {"role": "user", "content": "Reply with only the JSON object described above."}]
                continue
            text, data = reply
            done = bool(data.get("done"))
            if isinstance(data.get("answer_view"), str):
                fetch.answer_view = data["answer_view"]
            problems, count = _take_views(ctx, data.get("views"), compiler, store, fetch, options,
                                          salvage_last=attempt == options.fix_attempts)
            if not fetch.views and not problems:
                problems = ["no view was defined; define at least one view that fetches the data the question needs"]
            added += count
            fetch.problems += problems
            if not problems or attempt == options.fix_attempts or len(fetch.views) >= options.max_views:
                break
            fix = render("prospy_views_fix", problems="\n".join(f"- {p}" for p in problems))
            messages = messages + [{"role": "assistant", "content": text}, {"role": "user", "content": fix}]
        if done or added == 0:
            break
    ctx.trace.note("prospy.fetch", rounds=fetch.rounds, views=[v.view.name for v in fetch.views],
                   problems=fetch.problems, answer_view=fetch.answer_view)
    return fetch


_FAILED: Any = object()  # the model call itself failed (after its retries): stop asking


def _ask(ctx: Context, messages: list[dict[str, str]], options: FetchOptions, *, step: str,
         require_view: bool) -> Any:
    """One fetching call: (text, JSON object), None when the reply holds no JSON object, or `_FAILED`."""
    from groundsql.analysis.dsl import batch_json_schema

    schema = batch_json_schema(require_view=require_view) if options.constrained else None
    try:
        completion = ctx.chat(step, messages, role="generator", max_tokens=options.max_tokens, json_schema=schema)
    except ModelError as exc:
        log.warning("%s failed: %s", step, exc)
        return _FAILED
    text = completion.text
    data = completion.data[0] if completion.data and isinstance(completion.data[0], dict) else None
    if data is None:
        value, _ = parse_json(text)
        data = value if isinstance(value, dict) else None
    if data is not None and "views" not in data and ("source" in data or "name" in data):
        data = {"views": [data], "done": False}  # a lone view instead of a batch
    return (text, data) if data is not None else None


def _take_views(ctx: Context, raw_views: Any, compiler: ViewCompiler, store: ViewStore, fetch: Fetch,
                options: FetchOptions, *, salvage_last: bool = False) -> tuple[list[str], int]:
    """Validate, compile, run and store each proposed view; returns problems (one line each) and how many were
    added. With `salvage_last` (the round's last attempt), a view whose error lies in an optional part (a
    dimension, metric, condition, join, order) is kept without that part rather than lost."""
    if raw_views is None:
        return [], 0
    if isinstance(raw_views, dict):
        raw_views = [raw_views]
    if not isinstance(raw_views, list):
        return ["'views' must be a list of view objects"], 0
    problems, added = [], 0
    for index, raw in enumerate(raw_views):
        if len(fetch.views) >= options.max_views:
            problems.append(f"view budget reached ({options.max_views}); later views were skipped")
            break
        repaired, notes = repair_view(raw, len(fetch.views) + index)
        if isinstance(repaired, dict):
            repaired = promote_known_source(repaired, lambda name: compiler.relation(name) is not None)
            repaired, renamed = rename_if_table(repaired, lambda name: name.lower() in compiler.tables,
                                                lambda name: compiler.relation(name) is not None)
            notes += renamed
        label = repaired.get("name") if isinstance(repaired, dict) else f"#{index + 1}"
        try:
            view = View.model_validate(repaired)
        except ValidationError as exc:
            problems.append(f"view {label!r}: " + _validation_text(exc))
            continue
        try:
            compiled = compiler.compile(view)
        except ViewError as exc:
            problems.append(str(exc))
            rescued = _salvaged(compiler, repaired, exc) if salvage_last else None
            if rescued is None:
                continue
            view, compiled, dropped = rescued
            notes += dropped
        fetched = _run(ctx, compiled, store, options)
        if isinstance(fetched, str):
            problems.append(f"view {view.name!r} failed to run: {fetched}")
            continue
        compiler.add(view)
        fetch.views = [v for v in fetch.views if v.view.name.lower() != view.name.lower()] + [fetched]
        ctx.trace.note("prospy.view", name=view.name, sql=fetched.sql, rows=fetched.row_count,
                       truncated=fetched.truncated, definition=view.model_dump(exclude_defaults=True), notes=notes)
        added += 1
    return problems, added


def _salvaged(compiler: ViewCompiler, raw: dict, error: ViewError, tries: int = 4
              ) -> tuple[View, CompiledView, list[str]] | None:
    """Drop the parts errors point at, one at a time, until the view compiles (or give up)."""
    dropped = []
    for _ in range(tries):
        smaller = salvage(raw, error.where)
        if smaller is None:
            return None
        dropped.append(f"dropped {error.where.split('.')[0]} ({error.problem})")
        raw = smaller
        try:
            view = View.model_validate(raw)
            return view, compiler.compile(view), dropped
        except ViewError as exc:
            error = exc
        except ValidationError:
            return None
    return None


def _run(ctx: Context, compiled: CompiledView, store: ViewStore, options: FetchOptions) -> FetchedView | str:
    sql = compiled.sql(ctx.db.dialect)
    try:
        result = ctx.query(sql, step="prospy.fetch", max_rows=options.max_rows)
    except DatabaseError as exc:
        return str(exc)
    return stored_view(ctx, compiled.view, sql, result, store, lineage=options.lineage)


def stored_view(ctx: Context, view: View, sql: str, result: Result, store: ViewStore, *,
                lineage: bool = True) -> FetchedView:
    """A result materialized as the view's CSV file, described by its lineage when asked."""
    from groundsql.analysis.lineage import describe_view

    path = store.write(view.name, result)
    described = describe_view(ctx, sql, list(result.columns)) if lineage else ""
    return FetchedView(view=view, sql=sql, columns=list(result.columns), row_count=result.row_count,
                       truncated=result.truncated, path=path, result=result, lineage=described)


def _round_prompt(ctx: Context, schema_text: str, fetch: Fetch, options: FetchOptions, example: str | None,
                  join_example: str) -> str:
    views = "\n\n".join(v.describe(options.preview_rows) for v in fetch.views) or "(none yet)"
    left = options.max_views - len(fetch.views)
    budget = f"- You may define at most {left} more view(s)."
    return render("prospy_views", dialect=dialect_name(ctx.db.dialect), question=ctx.question,
                  evidence_block=_evidence(ctx), schema=schema_text, plan=fetch.plan or "(no plan)", views=views,
                  functions=", ".join(allowed_names(ctx.db.dialect)), budget=budget,
                  example_block=_example_block(example if example is None else example or example_view(ctx.schema)),
                  join_example=join_example or example_join(ctx.schema))


def _example_block(example: str | None) -> str:
    if example is None:
        return ""
    return ("Views look like these (examples of the form on this database; they do not answer the question):\n"
            f"{example}\n")


def _validation_text(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error.get("loc", ())) or "view"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


def _evidence(ctx: Context) -> str:
    return f"Additional knowledge: {ctx.evidence.strip()}\n" if ctx.evidence and ctx.evidence.strip() else ""


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
