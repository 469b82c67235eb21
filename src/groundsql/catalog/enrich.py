"""Enrichment (AgentNLQ metadata generation): a model writes one-line descriptions of tables and columns.

Descriptions are written from names, profiles and user documents, stored in the catalog, and marked
`description_source="generated"`. Descriptions a user supplied are kept as they are.
"""

from __future__ import annotations

import logging
from typing import Any

from groundsql import prompts
from groundsql.catalog.catalog import Catalog
from groundsql.catalog.profiles import ColumnProfile, TableProfile
from groundsql.errors import ModelError
from groundsql.models import Model

log = logging.getLogger("groundsql")

#: Columns described per model call; wide tables take several calls.
COLUMNS_PER_CALL = 20

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "columns": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["table", "columns"],
}


def enrich_catalog(catalog: Catalog, model: Model, *, documents: str | None = None,
                   max_tokens: int = 600) -> int:
    """Describe every table and column that has no user description; returns how many were written.

    A table whose model reply is unusable keeps its descriptions empty (logged, not raised).
    """
    written = 0
    for table in catalog.tables:
        missing = [c for c in table.columns if c.description_source != "user"]
        chunks = [missing[i:i + COLUMNS_PER_CALL] for i in range(0, len(missing), COLUMNS_PER_CALL)] or [[]]
        for position, chunk in enumerate(chunks):
            if position > 0 and not chunk:
                continue
            reply = _describe(catalog.dialect, table, chunk, model, documents, max_tokens)
            if reply is None:
                continue
            if position == 0 and table.description_source != "user":
                text = _one_line(reply.get("table"), table.name)
                if text:
                    table.description, table.description_source = text, "generated"
                    written += 1
            notes = {k.lower(): v for k, v in (reply.get("columns") or {}).items()}
            for column in chunk:
                text = _one_line(notes.get(column.name.lower()), column.name, column.declared_type,
                                 column.physical_type)
                if text:
                    column.description, column.description_source = text, "generated"
                    written += 1
                    schema_table = catalog.schema.table(table.name)
                    plain = schema_table.column(column.name) if schema_table else None
                    if plain is not None:
                        plain.description = text
    catalog.enriched = True
    return written


def _describe(dialect: str, table: TableProfile, columns: list[ColumnProfile], model: Model,
              documents: str | None, max_tokens: int) -> dict[str, Any] | None:
    prompt = prompts.render(
        "describe_table",
        dialect=prompts.dialect_name(dialect),
        table=table.name,
        rows=table.row_count if table.row_count is not None else "?",
        table_note=f"Known description: {table.description}\n" if table.description else "",
        columns="\n".join(_column_line(table, c) for c in columns) or "(none left to describe)",
        documents=f"\nUser documents:\n{documents.strip()}\n" if documents else "",
    )
    try:
        completion = model.complete([{"role": "user", "content": prompt}], max_tokens=max_tokens,
                                    json_schema=SCHEMA)
    except ModelError as exc:
        log.warning("enrichment of %s failed: %s", table.name, exc)
        return None
    data = completion.data[0] if completion.data else None
    if data is None:
        log.warning("enrichment of %s: the model's reply was not usable JSON", table.name)
    return data


def _column_line(table: TableProfile, column: ColumnProfile) -> str:
    parts = [f"- {column.name} ({column.declared_type or column.physical_type}, {column.semantic_type})"]
    if column.name in table.primary_key:
        parts.append("primary key")
    for fk in table.foreign_keys:
        if column.name in fk.columns:
            parts.append(f"refers to {fk.ref_table}.{', '.join(fk.ref_columns)}")
    if column.top_values:
        parts.append("values: " + ", ".join(repr(v.value) for v in column.top_values[:5]))
    elif column.sample_values:
        parts.append("e.g. " + ", ".join(repr(v) for v in column.sample_values[:3]))
    if column.semantic_type == "metric" and column.min is not None:
        parts.append(f"range {column.min}..{column.max}")
    if column.earliest:
        parts.append(f"from {column.earliest} to {column.latest}")
    if column.description:
        parts.append(f"note: {column.description}")
    return "; ".join(parts)


def _one_line(value: Any, *echoes: str) -> str | None:
    """The reply squeezed to one line; None when empty or a mere echo of the name or type."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or text.strip(".").lower() in {e.lower() for e in echoes if e}:
        return None
    return text[:200]
