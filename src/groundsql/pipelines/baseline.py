"""`baseline` and `refine`: the reference presets every benchmark compares against."""

from __future__ import annotations

from pydantic import Field

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import generate_sql, schema_prompt_text
from groundsql.generation.refinement import execute_candidate, refine
from groundsql.generation.tree_repair import TreeRepairOptions, tree_repair
from groundsql.options import Options
from groundsql.pipelines.registry import preset


class BaselineOptions(Options):
    baseline_tree_repair: bool = Field(False, description="tree-repair the one query (exact fixes, no model call); "
                                                          "an ablation for benchmarks")


class RefineOptions(TreeRepairOptions):
    refine_rounds: int = Field(2, ge=0, description="execution-guided repair rounds on an error or an empty result")


@preset("baseline", "full schema as DDL with 3 example rows per table → one greedy SQL → execute",
        options=BaselineOptions)
def baseline(ctx: Context, options: BaselineOptions) -> Answer:
    schema_text = schema_prompt_text(ctx)
    sql = generate_sql(ctx, schema_text)[0]
    candidate = execute_candidate(ctx, sql, source="generate")
    if options.baseline_tree_repair:
        candidate = tree_repair(ctx, candidate, options=TreeRepairOptions()).candidate
    return _answer(ctx, candidate)


@preset("refine", "baseline plus up to 2 execution-guided repair rounds on an error or an empty result",
        options=RefineOptions)
def refine_preset(ctx: Context, options: RefineOptions) -> Answer:
    schema_text = schema_prompt_text(ctx)
    sql = generate_sql(ctx, schema_text)[0]
    candidate = execute_candidate(ctx, sql, source="generate")
    return _answer(ctx, refine(ctx, candidate, schema_text, rounds=options.refine_rounds))


def _answer(ctx: Context, chosen: Candidate) -> Answer:
    return Answer(
        question=ctx.question,
        sql=chosen.sql,
        result=chosen.result,
        error=chosen.error,
        preset="",
        model=ctx.model().spec,
        trace=ctx.trace,
        candidates=[chosen],
    )
