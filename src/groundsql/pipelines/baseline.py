"""`baseline` and `refine`: the reference presets every benchmark compares against."""

from __future__ import annotations

from groundsql.answer import Answer, Candidate
from groundsql.context import Context
from groundsql.generation.direct import generate_sql, schema_prompt_text
from groundsql.generation.refinement import execute_candidate, refine
from groundsql.generation.tree_repair import TreeRepairOptions, tree_repair
from groundsql.pipelines.registry import preset


@preset("baseline", "full schema as DDL with 3 example rows per table → one greedy SQL → execute")
def baseline(ctx: Context) -> Answer:
    schema_text = schema_prompt_text(ctx)
    sql = generate_sql(ctx, schema_text)[0]
    candidate = execute_candidate(ctx, sql, source="generate")
    options = TreeRepairOptions.from_context(ctx)
    if options.baseline_tree_repair:  # exact repairs only, no model call (an ablation for benchmarks)
        candidate = tree_repair(ctx, candidate, options=options).candidate
    return _answer(ctx, candidate)


@preset("refine", "baseline plus up to 2 execution-guided repair rounds on an error or an empty result")
def refine_preset(ctx: Context) -> Answer:
    schema_text = schema_prompt_text(ctx)
    sql = generate_sql(ctx, schema_text)[0]
    candidate = execute_candidate(ctx, sql, source="generate")
    rounds = int(ctx.options.get("refine_rounds", 2))
    return _answer(ctx, refine(ctx, candidate, schema_text, rounds=rounds))


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
