"""Table inputs for the Python stage: an exact step in place of the model's view rounds (no model call).

The tables a query written for the question reads (a plain draft's: PreSQL linking), else those the caller's
linker finds, are joined into one connected set along the join graph
(declared and inferred keys), and each is fetched whole, as one CSV file, through the guarded
`Database.execute`. The key pairs their rows match on are stated beside the files, so the code merges along
real edges instead of guessing. With the 1.5B model the view rounds fetched views of one or two columns of one
table, and the code then had nothing to compute from (`benchmarks/results/analytics/`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.analysis.dsl import View
from groundsql.analysis.fetching import Fetch, ViewStore, stored_view
from groundsql.catalog.joins import JoinGraph
from groundsql.context import Context
from groundsql.errors import DatabaseError


def input_tables(ctx: Context, graph: JoinGraph, max_tables: int, sql: str | None = None,
                 linked: Callable[[], list[str]] | None = None) -> list[str]:
    """The question's tables, then the tables `graph` needs to connect them, at most `max_tables` in all: the
    real tables `sql` reads when it parses and names any, else those `linked` returns (the caller's linker:
    `prospy` runs the model-free `vector` one), else the schema's."""
    names = {t.lower(): t for t in ctx.schema.table_names}
    found = [names[t.lower()] for t in tables_read(sql, ctx.db.dialect) if t.lower() in names] if sql else []
    if not found:
        found = [names[t.lower()] for t in (linked() if linked else []) if t.lower() in names] \
            or list(ctx.schema.table_names)
    wanted = {t.lower() for t in found}
    connectors = [t for t in graph.connect(found) if t.lower() not in wanted]
    return (found + connectors)[:max_tables]


def tables_read(sql: str, dialect: str) -> list[str]:
    """The names of the tables `sql` reads, in order of appearance (CTE names left out); [] when it does not
    parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return []
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    seen: list[str] = []
    ordered = sorted(tree.find_all(exp.Table), key=lambda t: (t.this.meta.get("start", 0)
                                                              if isinstance(t.this, exp.Expression) else 0))
    for table in ordered:
        if table.name and table.name.lower() not in ctes and table.name not in seen:
            seen.append(table.name)
    return seen


def join_pairs(graph: JoinGraph, tables: list[str], files: dict[str, str]) -> list[str]:
    """Each edge of `graph` between two of `tables`, as `a.csv: col = b.csv: col` (file names from `files`)."""
    wanted = {t.lower() for t in tables}
    lines: list[str] = []
    for table in tables:
        for rel in graph.edges(table):
            if rel.table.lower() != table.lower() or rel.ref_table.lower() not in wanted:
                continue
            if rel.table.lower() == rel.ref_table.lower():
                continue
            pairs = " and ".join(f"{files[rel.table.lower()]} {a} = {files[rel.ref_table.lower()]} {b}"
                                 for a, b in zip(rel.columns, rel.ref_columns))
            if pairs not in lines:
                lines.append(pairs)
    return lines


def shared_columns(fetch: Fetch) -> list[str]:
    """A warning for each column name that several files hold and no key pair uses: after a merge, pandas
    renames such columns with _x and _y suffixes (the 1.5B model then asks for the bare name, a KeyError)."""
    keyed = {word for pair in fetch.joins for word in pair.split()}
    holders: dict[str, list[str]] = {}
    for view in fetch.views:
        for column in view.columns:
            holders.setdefault(column, []).append(view.path.name)
    return [f"(not a key) {column} is in {' and '.join(files)}: pick the file the question means, or after a "
            f"merge it is {column}_x and {column}_y" for column, files in holders.items()
            if len(files) > 1 and column not in keyed]


def fetch_tables(ctx: Context, graph: JoinGraph, store: ViewStore, *, max_tables: int = 6,
                 max_rows: int = 10_000, sql: str | None = None,
                 linked: Callable[[], list[str]] | None = None) -> Fetch:
    """Fetch the question's tables (`input_tables`, from `sql` when given) whole into `store`; the key pairs go
    to `Fetch.joins`. A table that fails to read is left out, with the error in `Fetch.problems`."""
    fetch = Fetch(rounds=0)
    tables = input_tables(ctx, graph, max_tables, sql, linked)
    files: dict[str, str] = {}
    for table in tables:
        schema_table = ctx.schema.table(table)
        if schema_table is None or not schema_table.columns:
            continue
        name = _file_stem(table, set(files.values()))
        query = exp.select(*[exp.column(c.name, quoted=True) for c in schema_table.columns]).from_(
            exp.table_(table, quoted=True))
        sql = query.sql(dialect=ctx.db.dialect)
        try:
            result = ctx.query(sql, step="prospy.table-input", max_rows=max_rows)
        except DatabaseError as exc:
            fetch.problems.append(f"{table}: {exc}")
            continue
        fetch.views.append(stored_view(ctx, View(name=name, source=table), sql, result, store, lineage=False))
        files[table.lower()] = f"{name}.csv"
    fetch.joins = join_pairs(graph, [t for t in tables if t.lower() in files], files)
    fetch.joins += shared_columns(fetch)
    ctx.trace.note("prospy.fetch", mode="tables", views=[v.view.name for v in fetch.views], joins=fetch.joins,
                   problems=fetch.problems)
    return fetch


def _file_stem(table: str, taken: set[str]) -> str:
    """A view name for `table` made of letters, digits and _ (the DSL's rule), distinct from `taken` stems."""
    stem = re.sub(r"\W+", "_", table).strip("_") or "table"
    if not re.match(r"[A-Za-z_]", stem):
        stem = f"t_{stem}"
    stem = stem[:60]
    candidate, n = stem, 2
    while f"{candidate}.csv" in taken:
        candidate, n = f"{stem}_{n}", n + 1
    return candidate
