"""APEX-SQL §3.2.2 dual-pathway pruning: per batch, kept = (batch − deleted) ∪ selected.

An element is dropped only when the deletion pass names it and the selection pass does not, so a single pass's
false negative cannot lose a needed column.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.batching import Entry, batch_schema, batch_text, batches
from groundsql.linking.common import ask_json, resolve_column, resolve_table
from groundsql.linking.subset import SchemaSubset
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

Element = tuple[str, str]  # (table, column), spelled as in the schema

_NAMED_COLUMNS = {
    "type": "array",
    "items": {"type": "object", "properties": {"table": {"type": "string"},
                                               "columns": {"type": "array", "items": {"type": "string"}}}},
}
DELETE_SCHEMA = {
    "type": "object",
    "properties": {"irrelevant_tables": {"type": "array", "items": {"type": "string"}},
                   "irrelevant_columns": _NAMED_COLUMNS},
}
SELECT_SCHEMA = {
    "type": "object",
    "properties": {"relevant_tables": {"type": "array", "items": {"type": "string"}},
                   "relevant_columns": _NAMED_COLUMNS},
}
PRUNE_MAX_TOKENS = 350


def union_rule(batch: Iterable[Element], deleted: set[Element], selected: set[Element]) -> set[Element]:
    """(batch − deleted) ∪ selected, restricted to the batch."""
    elements = set(batch)
    return (elements - deleted) | (selected & elements)


def kept_elements(mode: str, batch: Iterable[Element], deleted: set[Element], selected: set[Element]) -> set[Element]:
    """What a batch keeps: dual (the union rule), delete (batch − deleted) or select (selected only)."""
    elements = set(batch)
    if mode == "delete":
        return elements - deleted
    if mode == "select":
        return selected & elements
    return union_rule(elements, deleted, selected)


def dual_pathway(ctx: Context, plan: str, schema: Schema, *, mode: str = "dual",
                 batch_tokens: int | None = None, style: str = "ddl") -> SchemaSubset:
    """Prune `schema` batch by batch; returns the kept columns.

    `mode`: dual (a deletion and a selection pass, fused by the union rule), delete (the deletion pass only) or
    select (the selection pass only) — the paper's 'Only Deletion' and 'Only Selection' ablations. A pass that is
    not run makes no model call. `batch_tokens` bounds each batch (default: the `link_batch_tokens` option);
    `style` shows each table as DDL (the paper) or as one line of names (fewer, smaller calls on a large schema).
    """
    if mode not in ("dual", "delete", "select"):
        raise ValueError(f"unknown pruning mode {mode!r}")
    subset = SchemaSubset()
    for index, batch in enumerate(batches(ctx, schema, budget=batch_tokens, style=style)):
        part = batch_schema(schema, batch)
        elements = [(t.name, c.name) for t in part.tables for c in t.columns]
        text = batch_text(ctx, batch, style=style)
        deleted: set[Element] = set()
        selected: set[Element] = set()
        if mode in ("dual", "delete"):
            deleted = _named(part, _ask(ctx, "link_prune_delete", "link.prune_delete", plan, text, DELETE_SCHEMA),
                             "irrelevant_tables", "irrelevant_columns")
        if mode in ("dual", "select"):
            selected = _named(part, _ask(ctx, "link_prune_select", "link.prune_select", plan, text, SELECT_SCHEMA),
                              "relevant_tables", "relevant_columns")
        kept = kept_elements(mode, elements, deleted, selected)
        for table, column in elements:  # schema order
            if (table, column) in kept:
                reason = "selected" if (table, column) in selected else "not ruled out"
                subset.add(table, column, reason=reason)
        log.debug("pruning batch %d: %d of %d columns kept", index, len(kept), len(elements))
    _note_entries(ctx, schema)
    return subset


def _ask(ctx: Context, template: str, step: str, plan: str, text: str, json_schema: dict) -> Any:
    messages = [{"role": "user", "content": render(template, question=ctx.question,
                                                   evidence_block=evidence_block(ctx.evidence), plan=plan or "(no plan)",
                                                   schema=text)}]
    return ask_json(ctx, step, messages, role="generator", max_tokens=PRUNE_MAX_TOKENS, schema=json_schema)[0]


def _named(schema: Schema, reply: Any, tables_key: str, columns_key: str) -> set[Element]:
    """The (table, column) pairs a pass named; a named table stands for all its columns."""
    named: set[Element] = set()
    if not isinstance(reply, dict):
        return named
    for name in reply.get(tables_key) or []:
        table = resolve_table(schema, name)
        if table is not None:
            named.update((table.name, c.name) for c in table.columns)
    for item in reply.get(columns_key) or []:
        if not isinstance(item, dict):
            continue
        table = resolve_table(schema, item.get("table"))
        if table is None:
            continue
        for name in item.get("columns") or []:
            column = resolve_column(table, name)
            if column is not None:
                named.add((table.name, column))
    return named


def _note_entries(ctx: Context, schema: Schema) -> None:
    from groundsql.linking.batching import merge_identical

    merged: list[Entry] = [e for e in merge_identical(schema) if len(e.tables) > 1]
    if merged:
        ctx.trace.note("link.merged_tables", groups=[e.names for e in merged])
