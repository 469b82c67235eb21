"""Two-round prompting (PET-SQL, SSEV §3.1.1): PreSQL on the full schema, link from it, PostSQL on the rest.

PreSQL sees the whole schema with sample rows, an instruction to keep the query cheap, and similar examples.
The tables and columns its queries touch (`linking.presql.subset_from_drafts`) become the linked schema;
PostSQL is the same prompt over that pruned schema.
"""

from __future__ import annotations

from groundsql.context import Context
from groundsql.generation.direct import MAX_SQL_TOKENS, to_engine
from groundsql.generation.fewshot import FewShotOptions, example_pool, render_examples
from groundsql.knowledge.grounding import written_dialect
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.sql.extract import extract_sql

FULL_INTRO = "Here is the schema of a $dialect database, with a few example rows for each table:"
PRUNED_INTRO = "Here are the tables and columns of a $dialect database that matter for the question, with example rows:"


def fewshot_block(ctx: Context, options: FewShotOptions | None = None) -> str:
    """Similar examples from the configured pool (never from the database `ctx.db_id`), as prompt text."""
    options = options or ctx.settings(FewShotOptions)
    if not ctx.cache.example_pool_ready:
        ctx.cache.example_pool, ctx.cache.example_pool_ready = example_pool(options), True
    pool = ctx.cache.example_pool
    k = options.fewshot
    if pool is None or k <= 0:
        return ""
    examples = pool.similar(ctx.question, k, exclude_db=ctx.db_id)
    ctx.trace.note("fewshot", questions=[e.question for e in examples])
    return render_examples(examples)


def two_round_sql(ctx: Context, schema_text: str, *, step: str, pruned: bool, role: str = "generator",
                  n: int = 1, temperature: float = 0.0, fewshot: FewShotOptions | None = None) -> list[str]:
    """One PreSQL (`pruned=False`) or PostSQL (`pruned=True`) call returning `n` extracted queries
    (`fewshot`: the example settings; default: the run's)."""
    written = written_dialect(ctx)
    dialect = dialect_name(written)
    intro = (PRUNED_INTRO if pruned else FULL_INTRO).replace("$dialect", dialect)
    messages = [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render(
            "two_round_sql", examples_block=fewshot_block(ctx, fewshot), schema_intro=intro, schema=schema_text,
            evidence_block=evidence_block(ctx.evidence), question=ctx.question, dialect=dialect)},
    ]
    completion = ctx.chat(step, messages, role=role, n=n, temperature=temperature, max_tokens=MAX_SQL_TOKENS)
    return [to_engine(ctx, extract_sql(text, written)) for text in completion.texts]
