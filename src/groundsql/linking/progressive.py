"""`progressive` (ProSPy §3.2, A.2): batches of tables pruned repeatedly until compact, then their columns.

Two passes: a coarse pass over token-budgeted batches of (merged) tables, then a fine pass over the survivors
of all batches together; each pass repeats the pruning call until the kept set stops shrinking or is compact.
The same procedure then runs over the columns of the kept tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pydantic import Field

from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context
from groundsql.linking.batching import Entry, batches, merge_identical
from groundsql.linking.budget import estimate_tokens
from groundsql.linking.common import ask_json, candidate_schema
from groundsql.linking.options import LinkOptions
from groundsql.linking.registry import linker
from groundsql.linking.subset import SchemaSubset
from groundsql.options import Options
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

KEEP_SCHEMA = {"type": "object", "properties": {"keep": {"type": "array", "items": {"type": "string"}}},
               "required": ["keep"]}
MAX_ROUNDS = 3
COMPACT_TABLES = 6
COMPACT_COLUMNS = 8  # per table
COARSE_HINT = "This is a first, coarse pass: remove only tables that are clearly unrelated."
FINE_HINT = "This is a final, finer pass: keep only what the answer really needs, plus the tables needed to join them."


class ProgressiveOptions(Options):
    progressive_tables: int = Field(COMPACT_TABLES, ge=1, description="tables kept once pruning is compact")
    progressive_columns: int = Field(COMPACT_COLUMNS, ge=1, description="columns kept per table once compact")
    progressive_rounds: int = Field(MAX_ROUNDS, ge=1, description="pruning calls per batch and pass at most")


@linker("progressive", "ProSPy: tables pruned batch by batch until compact (coarse, then fine), then columns",
        options=ProgressiveOptions)
def progressive(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    """Prune tables batch by batch (coarse, then fine), then columns (see `ProgressiveOptions`)."""
    schema = candidate_schema(ctx, previous)
    compact = ctx.settings(ProgressiveOptions).progressive_tables
    kept: list[Table] = []
    for batch in batches(ctx, schema):
        tables = [t for entry in batch for t in entry.tables]
        kept += prune_repeatedly(ctx, tables, _table_items, "tables", COARSE_HINT, compact)
    if kept:
        fine = Schema(dialect=schema.dialect, tables=kept)
        kept = prune_repeatedly(ctx, fine.tables, _table_items, "tables", FINE_HINT, compact)
    if not kept:
        kept = list(schema.tables)
    subset = SchemaSubset()
    per_table = ctx.settings(ProgressiveOptions).progressive_columns
    for table in kept:
        subset.add(table.name, role="target", reason="kept by progressive pruning")
    for group in _column_groups(ctx, kept):
        columns = [(t, c.name) for t in group for c in t.columns]
        chosen = prune_repeatedly(ctx, columns, _column_items, "columns", FINE_HINT, per_table * len(group))
        for table, column in chosen or columns:
            subset.add(table.name, column, reason="kept by progressive pruning")
    return subset


def prune_repeatedly(ctx: Context, items: list, render_items: Callable[[list], tuple[str, dict]], kind: str,
                     hint: str, compact: int) -> list:
    """Call the pruning operator P until the kept items stop shrinking, reach `compact`, or rounds run out.

    An empty or unusable reply ends the loop with the items kept so far (pruning never loses everything).
    """
    rounds = ctx.settings(ProgressiveOptions).progressive_rounds
    current = list(items)
    for _ in range(rounds):
        if len(current) <= compact:
            break
        text, by_name = render_items(current)
        messages = [{"role": "user", "content": render(
            "link_progressive", kind=kind, pass_hint=hint, question=ctx.question,
            evidence_block=evidence_block(ctx.evidence), items=text)}]
        reply = ask_json(ctx, f"link.progressive:{kind}", messages, role="generator", max_tokens=250,
                         schema=KEEP_SCHEMA)[0]
        names = reply.get("keep") if isinstance(reply, dict) else None
        chosen = {id(x) for name in names or [] if isinstance(name, str)
                  for x in by_name.get(_key(name), [])}
        survivors = [x for x in current if id(x) in chosen]
        if not survivors or len(survivors) == len(current):
            current = survivors or current
            break
        current = survivors
    return current


def _table_items(tables: list[Table]) -> tuple[str, dict]:
    lines, by_name = [], {}
    schema = Schema(dialect="", tables=tables)
    for entry in merge_identical(schema):
        lines.append(_entry_line(entry))
        for table in entry.tables:
            by_name.setdefault(_key(table.name), []).append(table)
    return "Tables (name: columns):\n" + "\n".join(lines), by_name


def _entry_line(entry: Entry) -> str:
    columns = ", ".join(c.name for c in entry.representative.columns)
    names = ", ".join(entry.names)
    same = " (these tables share the same columns)" if len(entry.tables) > 1 else ""
    comment = f" -- {entry.representative.comment}" if entry.representative.comment else ""
    return f"- {names}{same}: {columns}{comment}"


def _column_items(columns: list[tuple[Table, str]]) -> tuple[str, dict]:
    lines, by_name = [], {}
    for item in columns:
        table, name = item
        column = table.column(name)
        note = f" -- {column.description or column.comment}" if column and (column.description or column.comment) else ""
        lines.append(f"- {table.name}.{name} {column.type if column else ''}{note}".rstrip())
        by_name.setdefault(_key(f"{table.name}.{name}"), []).append(item)
    return "Columns (write them as table.column):\n" + "\n".join(lines), by_name


def _column_groups(ctx: Context, tables: list[Table]) -> list[list[Table]]:
    """Kept tables packed so that each column-pruning prompt stays within the batch budget."""
    budget = ctx.settings(LinkOptions).link_batch_tokens
    groups: list[list[Table]] = []
    used = 0
    for table in tables:
        cost = estimate_tokens(" ".join(f"{table.name}.{c.name} {c.type}" for c in table.columns)) + 8
        if groups and used + cost <= budget:
            groups[-1].append(table)
            used += cost
        else:
            groups.append([table])
            used = cost
    return groups


def _key(name: str) -> str:
    return name.strip().strip('`"[]').lower()
