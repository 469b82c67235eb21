"""`apex` (APEX-SQL §3.2): plan → dual-pathway pruning → semantic roles → per-table verification → synthesis."""

from __future__ import annotations

import logging

from pydantic import Field

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import candidate_schema, parallel_map
from groundsql.linking.planning import PlanOptions, master_plan
from groundsql.linking.pruning import dual_pathway
from groundsql.linking.registry import linker
from groundsql.linking.semantic import semantic_roles
from groundsql.linking.subset import SchemaSubset
from groundsql.linking.synthesis import SynthesisOptions, synthesize
from groundsql.linking.verification import Verdict, VerifyOptions, verify_table

log = logging.getLogger("groundsql")

DEFAULT_VERIFY_TABLES = 12
LARGE_SCHEMA_TABLES = 100
ROLE_ORDER = {"target": 0, "filter": 1, "bridge": 2, "candidate": 3, "unused": 4}


class ApexLinkOptions(PlanOptions, VerifyOptions, SynthesisOptions):
    verify_tables: int = Field(DEFAULT_VERIFY_TABLES, ge=0, description="tables explored by verification (the "
                                                                        "rest are kept unverified)")


@linker("apex", "APEX-SQL: logical plan, dual-pathway pruning, semantic roles, table verification, synthesis",
        options=ApexLinkOptions)
def apex(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    """Plan, prune, assign roles, verify up to `verify_tables` tables, synthesize (see `ApexLinkOptions`)."""
    schema = candidate_schema(ctx, previous)
    if previous is None and len(schema.tables) > LARGE_SCHEMA_TABLES:
        log.warning("apex over %d tables prunes every batch with the model; 'vector,apex' narrows the schema "
                    "cheaply first", len(schema.tables))
    plan = master_plan(ctx)
    pruned_subset = dual_pathway(ctx, plan, schema)
    pruned = pruned_subset.restrict(schema)
    ctx.trace.note("link.pruned", tables=pruned_subset.as_mapping())
    if not pruned.tables:  # both passes dropped everything: nothing to verify, fall back to the input
        subset = SchemaSubset.from_schema(schema, reason="pruning kept nothing")
        subset.notes.append("pruning kept nothing; returned the candidate schema")
        return subset
    roles = semantic_roles(ctx, plan, pruned)
    limit = ctx.settings(ApexLinkOptions).verify_tables
    ordered = sorted(pruned.tables, key=lambda t: ROLE_ORDER.get(roles.role(t.name), 3))
    explored, unexplored = ordered[:limit], ordered[limit:]
    verdicts = parallel_map(ctx, lambda t: verify_table(ctx, t, roles.role(t.name), roles.reason(t.name)), explored)
    ctx.trace.note("link.verdicts", verdicts={v.table: {"relevant": v.relevant, "columns": list(v.columns),
                                                         "summary": v.summary} for v in verdicts},
                   unexplored=[t.name for t in unexplored])
    verdicts += [Verdict(t.name, roles.role(t.name), relevant=True, summary="not explored (table limit)",
                         verified=False) for t in unexplored]
    return synthesize(ctx, _ordered(pruned, ordered), roles, verdicts)


def _ordered(schema: Schema, tables: list) -> Schema:
    return Schema(dialect=schema.dialect, tables=list(tables))
