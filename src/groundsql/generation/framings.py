"""Candidate framings: different ways of asking the generator for the same query, so that candidates disagree
when the model is unsure (resamples of one prompt mostly repeat one mistake).

Every framing keeps the schema prompt's prefix (system message, schema text, knowledge), so the embedded model's
prefix cache serves all but the last lines of each extra prompt.

- ``direct``: the baseline prompt (schema, question, 'write one query').
- ``shaped``: the same schema and question, then what the answer should look like, read exactly from the
  question's words (`selection.question`): one number or a list, one row per group, the top rows, distinct
  values; and an instruction to read only the tables the answer needs.
- ``focused``: the same schema and question, then the tables and columns earlier drafts read and the keys that
  join them (SSEV's PostSQL linking, told as a hint under the shared prefix instead of a pruned schema that shares
  none), and an instruction to write the simplest query over them.
"""

from __future__ import annotations

from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.generation.direct import MAX_SQL_TOKENS, generate_sql, to_engine
from groundsql.knowledge.grounding import written_dialect
from groundsql.linking.subset import SchemaSubset
from groundsql.prompts import dialect_name, evidence_block, render
from groundsql.selection.question import QuestionShape, read_question
from groundsql.sql.extract import extract_sql

FRAMINGS = ("direct", "shaped", "focused")


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


def focus_text(schema: Schema, subset: SchemaSubset) -> str:
    """The linked tables with their linked columns, then the declared keys that join them, in one line:
    `singer (name, age); concert (year); joined on concert.stadium_id = stadium.stadium_id.`"""
    tables = [t for t in (schema.table(linked.name) for linked in subset.tables.values()) if t is not None]
    parts = []
    for table in tables:
        columns = [c.name for c in table.columns if subset.has(table.name, c.name)]
        parts.append(f"{table.name} ({', '.join(columns)})" if columns else table.name)
    kept = {t.name.lower() for t in tables}
    joins = [f"{table.name}.{c} = {fk.ref_table}.{r}"
             for table in tables for fk in table.foreign_keys
             if fk.ref_table.lower() in kept and len(fk.columns) == len(fk.ref_columns)
             for c, r in zip(fk.columns, fk.ref_columns)]
    text = "; ".join(parts)
    if joins:
        text += "; joined on " + ", ".join(joins)
    return text + "."


def generate_framed(ctx: Context, schema_text: str, framing: str, *, step: str | None = None,
                    temperature: float = 0.0, focus: SchemaSubset | None = None) -> str:
    """One query from the generator under `framing` ('' when its reply holds none); `focused` needs `focus`."""
    if framing == "direct":
        return generate_sql(ctx, schema_text, step=step or "generate", temperature=temperature)[0]
    if framing not in FRAMINGS:
        raise ValueError(f"unknown framing {framing!r}; choose one of {', '.join(FRAMINGS)}")
    written = written_dialect(ctx)
    dialect = dialect_name(written)
    common = {"dialect": dialect, "schema": schema_text, "evidence_block": evidence_block(ctx.evidence),
              "hints_block": "", "question": ctx.question}
    if framing == "shaped":
        user = render("generate_sql_shaped", **common, shape_facts=shape_facts(read_question(ctx.question)))
    else:
        if focus is None or not focus.tables:
            raise ValueError("the focused framing needs the linked tables (focus)")
        user = render("generate_sql_focused", **common, focus=focus_text(ctx.schema, focus))
    messages = [{"role": "system", "content": render("sql_system", dialect=dialect)},
                {"role": "user", "content": user}]
    completion = ctx.chat(step or f"generate:{framing}", messages, temperature=temperature,
                          max_tokens=MAX_SQL_TOKENS)
    return to_engine(ctx, extract_sql(completion.text, written))
