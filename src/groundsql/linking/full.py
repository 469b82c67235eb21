"""`full`: every table and column (of the previous stage's subset, when there is one)."""

from __future__ import annotations

from groundsql.context import Context
from groundsql.linking.registry import linker
from groundsql.linking.subset import SchemaSubset


@linker("full", "the whole schema, unchanged (chosen automatically when it fits the token budget)")
def full(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    if previous is not None:
        return previous.copy()
    return SchemaSubset.from_schema(ctx.schema, reason="full schema")
