"""Candidate framings: different ways of asking the generator for the same query, so that candidates disagree
when the model is unsure (resamples of one prompt mostly repeat one mistake).

Every framing keeps the schema prompt's prefix (system message, schema text, knowledge), so the embedded model's
prefix cache serves all but the last lines of each extra prompt.

- ``direct``: the baseline prompt (schema, question, 'write one query').
- ``shaped``: the same schema and question, then what the answer should look like, read exactly from the
  question's words (`selection.question`): one number or a list, one row per group, the top rows, distinct
  values; and an instruction to read only the tables the answer needs.
"""

from __future__ import annotations

from groundsql.context import Context
from groundsql.generation.direct import MAX_SQL_TOKENS, generate_sql, to_engine
from groundsql.knowledge.grounding import written_dialect
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.selection.question import QuestionShape, read_question
from groundsql.sql.extract import extract_sql

FRAMINGS = ("direct", "shaped")


def shape_facts(shape: QuestionShape) -> str:
    """What the question's words say about the answer's shape, as one or two plain sentences."""
    facts = []
    if shape.one_number and shape.counts:
        facts.append("one row holding the count (how many), not the rows themselves")
    elif shape.one_number:
        facts.append("one row of aggregated values")
    elif shape.grouped:
        facts.append("one row per group the question names, with the asked value for each")
    if shape.row_count is not None:
        facts.append(f"only the first {shape.row_count} rows in the asked order")
    elif shape.superlative and not shape.one_number:
        facts.append("only the item(s) at the top (or bottom) of the asked measure; keep ties")
    elif not shape.one_number and not shape.grouped:
        facts.append("every matching row (no LIMIT)")
    if shape.distinct:
        facts.append("distinct values only")
    if shape.ordered:
        facts.append("sorted as the question says")
    if shape.entity:
        facts.append(f"the rows are {shape.entity} items")
    return "; ".join(facts) + "."


def generate_framed(ctx: Context, schema_text: str, framing: str, *, step: str | None = None,
                    temperature: float = 0.0) -> str:
    """One query from the generator under `framing` ('' when its reply holds none)."""
    if framing == "direct":
        return generate_sql(ctx, schema_text, step=step or "generate", temperature=temperature)[0]
    if framing != "shaped":
        raise ValueError(f"unknown framing {framing!r}; choose one of {', '.join(FRAMINGS)}")
    written = written_dialect(ctx)
    dialect = dialect_name(written)
    messages = [
        {"role": "system", "content": render("sql_system", dialect=dialect)},
        {"role": "user", "content": render(
            "generate_sql_shaped", dialect=dialect, schema=schema_text, evidence_block=evidence_block(ctx.evidence),
            hints_block="", question=ctx.question, shape_facts=shape_facts(read_question(ctx.question)))},
    ]
    completion = ctx.chat(step or "generate:shaped", messages, temperature=temperature, max_tokens=MAX_SQL_TOKENS)
    return to_engine(ctx, extract_sql(completion.text, written))
