"""`apex` (APEX-SQL §3.2): plan → dual-pathway pruning → semantic roles → per-table profiling → global synthesis.

Every stage is a switch, so the paper's ablations (Table 5) are options: `planning` (w/o logical planning),
`pruning` (dual, delete-only, select-only), `semantic_linking`, `profiling` (also off with `verify_queries=0`) and
`global_synthesis`. A stage that is off makes no model call and runs no query; the trace note `link.apex` lists the
stages that ran.
"""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field

from groundsql.budgets import budget_value
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.linking.common import candidate_schema, parallel_map
from groundsql.linking.planning import PlanOptions, master_plan
from groundsql.linking.pruning import dual_pathway
from groundsql.linking.registry import linker
from groundsql.linking.semantic import RoleMap, semantic_roles
from groundsql.linking.subset import SchemaSubset
from groundsql.linking.synthesis import SynthesisOptions, synthesize, union_of_verdicts
from groundsql.linking.verification import Verdict, VerifyOptions, verify_table

log = logging.getLogger("groundsql")

LARGE_SCHEMA_TABLES = 100
ROLE_ORDER = {"target": 0, "filter": 1, "bridge": 2, "candidate": 3, "unused": 4}
STAGES = ("planning", "pruning", "semantic_linking", "profiling", "global_synthesis")


class ApexLinkOptions(PlanOptions, VerifyOptions, SynthesisOptions):
    verify_tables: int | None = Field(None, ge=0, description="tables profiled by verification agents, the rest "
                                                              "kept unprofiled (none: the budget profile's, small "
                                                              "12, paper every pruned table)")
    planning: bool = Field(True, description="logical planning (false: the 'w/o Planning' ablation; pruning and "
                                             "verification see no plan)")
    pruning: Literal["dual", "delete", "select"] = Field("dual", description="dual-pathway pruning, or one pass "
                                                                             "only (the 'Only Deletion' / 'Only "
                                                                             "Selection' ablations)")
    prune_view: Literal["ddl", "names", "auto"] = Field("ddl", description="how pruning shows each table: ddl (the "
                                                                           "paper), names (one line of column "
                                                                           "names, about half the tokens), "
                                                                           "auto (names above 100 tables)")
    semantic_linking: bool = Field(True, description="hypothesise each table's and column's role before "
                                                     "profiling (false: 'w/o Semantic Linking')")
    profiling: bool = Field(True, description="parallel data profiling: one agent per table probes the data and "
                                              "decides (false, or verify_queries=0: 'w/o Data Profiling', no probe "
                                              "runs and every pruned table goes to synthesis unprofiled)")
    global_synthesis: bool = Field(True, description="global synthesis decides the final columns (false: 'w/o "
                                                     "Global Synthesis', the union of the profiling verdicts)")
    exact_verify: bool = Field(True, description="keep a pruned table without its two profiling calls when the "
                                                 "question names it or a value stored in it, or it joins two "
                                                 "such tables (false: the paper's agent for every table)")


@linker("apex", "APEX-SQL: logical plan, dual-pathway pruning, semantic roles, table verification, synthesis",
        options=ApexLinkOptions)
def apex(ctx: Context, previous: SchemaSubset | None) -> SchemaSubset:
    """Plan, prune, assign roles, profile the tables, synthesize (each stage switchable, see `ApexLinkOptions`)."""
    options = ctx.settings(ApexLinkOptions)
    schema = candidate_schema(ctx, previous)
    if previous is None and len(schema.tables) > LARGE_SCHEMA_TABLES:
        log.info("apex over %d tables prunes every batch with the model; 'vector,apex' narrows the schema "
                 "cheaply first", len(schema.tables))
    profiling = options.profiling and budget_value(options, "verify_queries") > 0
    ran = {"planning": options.planning, "pruning": options.pruning, "semantic_linking": options.semantic_linking,
           "profiling": profiling, "global_synthesis": options.global_synthesis}
    plan = master_plan(ctx) if options.planning else ""
    view = options.prune_view
    if view == "auto":
        view = "names" if len(schema.tables) > LARGE_SCHEMA_TABLES else "ddl"
    pruned_subset = dual_pathway(ctx, plan, schema, mode=options.pruning,
                                 batch_tokens=_batch_tokens(ctx, options), style=view)
    pruned = pruned_subset.restrict(schema)
    ctx.trace.note("link.pruned", tables=pruned_subset.as_mapping(), mode=options.pruning, view=view)
    ctx.trace.note("link.apex", stages=ran, budget=options.budget)
    if not pruned.tables:  # both passes dropped everything: nothing to verify, fall back to the input
        subset = SchemaSubset.from_schema(schema, reason="pruning kept nothing")
        subset.notes.append("pruning kept nothing; returned the candidate schema")
        return subset
    roles = semantic_roles(ctx, plan, pruned) if options.semantic_linking else RoleMap()
    ordered = sorted(pruned.tables, key=lambda t: ROLE_ORDER.get(roles.role(t.name), 3))
    limit = budget_value(options, "verify_tables")
    exact = exact_verdicts(ctx, pruned, roles) if profiling and options.exact_verify else []
    decided = {v.table for v in exact}
    asked = [t for t in ordered if t.name not in decided]
    explored, unexplored = (asked, []) if limit is None else (asked[:limit], asked[limit:])
    if not profiling:
        explored, unexplored = [], ordered
    if exact:
        ctx.trace.note("link.exact_verdicts", verdicts={v.table: v.summary for v in exact})
    verdicts = exact + parallel_map(ctx, lambda t: verify_table(ctx, t, roles.role(t.name), roles.reason(t.name),
                                                        columns=roles.column_roles(t.name)), explored)
    ctx.trace.note("link.verdicts", verdicts={v.table: {"relevant": v.relevant, "columns": list(v.columns),
                                                         "summary": v.summary} for v in verdicts},
                   unexplored=[t.name for t in unexplored])
    reason = "not profiled (profiling off)" if not profiling else "not profiled (table limit)"
    verdicts += [Verdict(t.name, roles.role(t.name), relevant=True, summary=reason, verified=False)
                 for t in unexplored]
    final = _ordered(pruned, ordered)
    if not options.global_synthesis:
        return union_of_verdicts(final, roles, verdicts)
    return synthesize(ctx, final, roles, verdicts)


def exact_verdicts(ctx: Context, pruned: Schema, roles: RoleMap) -> list[Verdict]:
    """Verdicts that need no profiling agent: a pruned table the question names (its name's words all among the
    question's), one holding a value the question names (value index), and one on the join path between two
    such tables. Only keeps are decided here; every other table still goes to its agent."""
    from groundsql.linking.connectivity import adjacency, connecting_edges, join_graph
    from groundsql.linking.grounding import plausible_literal, question_matches
    from groundsql.linking.lexical import words
    from groundsql.linking.options import LinkOptions

    names = {t.name.lower(): t.name for t in pruned.tables}
    asked = set(words(ctx.question + (f" {ctx.evidence}" if ctx.evidence else "")))
    found: dict[str, Verdict] = {}
    for table in pruned.tables:
        name_words = words(table.name)
        if name_words and set(name_words) <= asked:
            found[table.name] = Verdict(table.name, roles.role(table.name), relevant=True,
                                        summary="named by the question", verified=False)
    for match in question_matches(ctx):
        table = names.get(match.table.lower())
        if table is None or not plausible_literal(match):
            continue
        verdict = found.setdefault(table, Verdict(table, roles.role(table), relevant=True,
                                                  summary="stores a value the question names", verified=False))
        verdict.columns[match.column] = ("stores a value of the question", f"{match.value!r}")
    if len(found) > 1:
        hops = ctx.settings(LinkOptions).link_max_hops
        for edge in connecting_edges(adjacency(join_graph(ctx)), list(found), hops):
            for end in (edge.table, edge.ref_table):
                table = names.get(end.lower())
                if table is not None and table not in found:
                    found[table] = Verdict(table, roles.role(table), relevant=True,
                                           summary="joins two tables the question names", verified=False)
    for verdict in found.values():  # no agent chose its columns: all stay (synthesis may still drop some)
        for column in pruned.table(verdict.table).columns:
            verdict.columns.setdefault(column.name, ("kept by the exact check", ""))
    return list(found.values())


def _batch_tokens(ctx: Context, options: ApexLinkOptions) -> int:
    """`link_batch_tokens` when it was given, else the budget profile's batch size."""
    from groundsql.linking.options import LinkOptions

    shared = ctx.settings(LinkOptions)
    if "link_batch_tokens" in shared.model_fields_set:
        return shared.link_batch_tokens
    return int(budget_value(options, "link_batch_tokens"))


def _ordered(schema: Schema, tables: list) -> Schema:
    return Schema(dialect=schema.dialect, tables=list(tables))
