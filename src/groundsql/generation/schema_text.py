"""Prompt text for a linked schema subset: only the linked columns plus the keys that join them."""

from __future__ import annotations

from groundsql.catalog.schema import Schema, Table
from groundsql.context import Context
from groundsql.knowledge import pruned_table, render_text
from groundsql.linking.subset import SchemaSubset

__all__ = ["pruned_table", "render_subset", "subset_tables", "value_evidence"]


def subset_tables(schema: Schema, subset: SchemaSubset) -> list[Table]:
    """The subset's tables, pruned to their linked columns, in schema order; unknown names are skipped."""
    mapping = {name.lower(): columns for name, columns in subset.as_mapping().items()}
    kept = {t.name.lower() for t in schema.tables if t.name.lower() in mapping}
    return [pruned_table(t, mapping[t.name.lower()], kept) for t in schema.tables if t.name.lower() in kept]


def render_subset(ctx: Context, subset: SchemaSubset | None, *, sample_limit: int | None = None) -> str:
    """What the model sees about the linked tables and columns (plus the keys that join them) for this question,
    from the one renderer (`knowledge.render_context`); the whole schema when `subset` is empty."""
    if subset is None or not subset.tables:
        return render_text(ctx, sample_limit=sample_limit)
    matched = value_evidence(subset)
    return render_text(ctx, linked=subset.as_mapping(), value_lines=matched.splitlines() if matched else None,
                       sample_limit=sample_limit)


def value_evidence(subset: SchemaSubset, limit: int = 6) -> str:
    """The linker's evidence on columns (stored spellings of the question's literals), one comment line each."""
    lines = []
    for table in subset.tables.values():
        for column in table.columns.values():
            for item in column.evidence[:2]:
                lines.append(f"-- {table.name}.{column.name}: {item}")
    return "\n".join(lines[:limit])

