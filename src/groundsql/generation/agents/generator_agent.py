"""The SQL generator agent (AgentNLQ §3.3.6, System 2): the slow loop's author of the next query.

It sees everything the fast loop leaves out: the full schema context, business rules and dialect notes, the
fact sheet as a scratchpad to reason through, and the failed attempts with their feedback. It reasons in a
short scratchpad and returns one query, which goes back to the orchestrator for validation.
"""

from __future__ import annotations

from groundsql.context import Context
from groundsql.generation.agents.domain_notes import DomainNotes
from groundsql.generation.agents.schema_context import SchemaContext
from groundsql.models import Message
from groundsql.prompts import dialect_name, render
from groundsql.sql.extract import extract_sql

MAX_GENERATOR_TOKENS = 700


def generator_messages(ctx: Context, schema: SchemaContext, notes: DomainNotes, fact_sheet: str,
                       history: list[Message]) -> list[Message]:
    """The generator's prompt: full metadata, notes, the fact sheet, the history (one structured message or
    raw turns, folded into the prompt), the question last."""
    dialect = dialect_name(ctx.db.dialect)
    history_text = "\n\n".join(m["content"] for m in history)
    return [
        {"role": "system", "content": render("agentnlq_system", dialect=dialect)},
        {"role": "user", "content": render(
            "agentnlq_generator", dialect=dialect, schema=schema.text, notes_block=notes_block(notes),
            fact_sheet=fact_sheet or "(none)", history_block=f"{history_text}\n" if history_text else "",
            question=ctx.question)},
    ]


def write_sql(ctx: Context, messages: list[Message], *, step: str, role: str = "generator") -> str:
    """Call the generator; the SQL of its final code block ('' when it wrote none)."""
    completion = ctx.chat(step, messages, role=role, max_tokens=MAX_GENERATOR_TOKENS, temperature=0.0)
    return last_sql(completion.text, ctx.db.dialect)


def last_sql(text: str, dialect: str) -> str:
    """The query of the last ```sql block (the scratchpad may quote fragments before it), else any query."""
    marker = text.rfind("```sql")
    if marker >= 0:
        found = extract_sql(text[marker:], dialect)
        if found:
            return found
    return extract_sql(text, dialect)


def notes_block(notes: DomainNotes) -> str:
    parts = []
    if notes.rules:
        parts.append(f"Business rules:\n{notes.rules}")
    if notes.dialect:
        parts.append(f"Dialect notes: {notes.dialect}")
    return "\n".join(parts) + "\n" if parts else ""
