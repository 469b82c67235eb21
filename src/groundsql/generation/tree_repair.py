"""Tree repair: fix a failing query's exact slips from its syntax tree, the engine error and the catalog, with no
model call; every rewrite is re-run through the guarded `Database.execute` and recorded on the trace.

Used first by every repair path (`refinement.refine`); what the rules would not guess at comes back as hints for
the model repair that follows.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from pydantic import Field

from groundsql.answer import Candidate
from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.options import Options
from groundsql.sql.repairs import RepairFacts, TreeFix, plan_repairs

log = logging.getLogger("groundsql")


class TreeRepairOptions(Options):
    """Mixed into the options of every preset whose repair path runs `refinement.refine`."""

    tree_repair: bool = Field(True, description="fix exact slips from the syntax tree before any model repair")
    tree_repair_rounds: int = Field(3, ge=1, le=10, description="most repair-and-rerun passes on one query")


@dataclass
class TreeRepair:
    """The candidate after tree repair (the input when nothing better was found), and hints for a model."""

    candidate: Candidate
    fixes: list[TreeFix] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    @property
    def repaired(self) -> bool:
        return bool(self.fixes)

    def hint_text(self) -> str:
        return ("\nChecked against the schema:\n" + "\n".join(f"- {h}" for h in self.hints)) if self.hints else ""


def needs_repair(candidate: Candidate) -> bool:
    """A query that failed or returned no rows; one that ran with rows is never touched."""
    return bool(candidate.sql) and (candidate.error is not None or candidate.result is None
                                    or candidate.result.row_count == 0)


def tree_repair(ctx: Context, candidate: Candidate, *, options: TreeRepairOptions | None = None) -> TreeRepair:
    """Repair `candidate` by the rules of `groundsql.sql.repairs`, re-running each repaired query.

    Returns the best candidate seen (rows beat an empty result, which beats an error; the input wins ties) with
    the fixes that produced it, and the hints of the rules that saw a problem they would not guess at.
    """
    options = options or ctx.settings(TreeRepairOptions)
    if not options.tree_repair or not needs_repair(candidate):
        return TreeRepair(candidate)
    facts_base = repair_facts(ctx)
    best, current = candidate, candidate
    applied: list[TreeFix] = []
    hints: list[str] = []
    seen = {candidate.sql}
    for _ in range(options.tree_repair_rounds):
        facts = replace(facts_base, error=current.error, empty=current.error is None)
        plan = plan_repairs(current.sql, facts)
        hints.extend(h for h in plan.hints if h not in hints)
        if not plan.fixes or plan.sql in seen:
            break
        seen.add(plan.sql)
        result, error = ctx.try_query(plan.sql, step="tree_repair:execute")
        for fix in plan.fixes:
            ctx.trace.note("tree_repair", rule=fix.rule, before=fix.before, after=fix.after, detail=fix.detail,
                           ran=error is None, rows=result.row_count if result is not None else 0)
            log.info("tree repair (%s): %s\n  before: %s\n  after:  %s", fix.rule, fix.detail, fix.before, fix.after)
        applied.extend(plan.fixes)
        current = replace(candidate, sql=plan.sql, result=result, error=error,
                          repairs=[*candidate.repairs, *(f.to_dict() for f in applied)])
        if _score(current) > _score(best):
            best = current
        if _score(current) == 2:
            break
    if best is candidate:
        return TreeRepair(candidate, hints=hints)
    return TreeRepair(best, fixes=[TreeFix(**f) for f in best.repairs[len(candidate.repairs):]], hints=hints)


def repair_facts(ctx: Context) -> RepairFacts:
    """The schema, join graph and value index the rules use: the catalog's when there is one, else the declared
    keys of `ctx.schema` and no value index."""
    if ctx.catalog is not None:
        return RepairFacts(schema=ctx.catalog.schema, joins=ctx.catalog.join_graph, dialect=ctx.db.dialect,
                           values=ctx.catalog.value_index)
    return RepairFacts(schema=ctx.schema, joins=declared_join_graph(ctx.schema), dialect=ctx.db.dialect)


def declared_join_graph(schema: Schema) -> JoinGraph:
    """A join graph of the declared foreign keys (a key that names no column refers to the primary key)."""
    relationships = []
    for table in schema.tables:
        for key in table.foreign_keys:
            target = schema.table(key.ref_table)
            if target is None:
                continue
            ref_columns = [c for c in key.ref_columns if c] or list(target.primary_key)
            if len(ref_columns) != len(key.columns):
                continue
            relationships.append(Relationship(table.name, list(key.columns), target.name, ref_columns,
                                              inferred=key.inferred))
    return JoinGraph(relationships=relationships)


def repair_note(candidate: Candidate) -> str | None:
    """The line an answer carries when its SQL was repaired without a model call."""
    if not candidate.repairs:
        return None
    rules = ", ".join(dict.fromkeys(r["rule"] for r in candidate.repairs))
    return f"the SQL was repaired without a model call ({rules}): " + "; ".join(r["detail"] for r in candidate.repairs)


def _score(candidate: Candidate) -> int:
    if not candidate.ok:
        return 0
    return 2 if candidate.result.row_count > 0 else 1
