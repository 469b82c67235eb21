"""Business rules and dialect notes for the agents' prompts: the one place they are fetched.

The knowledge folder's rules, glossary, examples and the shipped dialect notes reach every prompt with the schema
text, through the one renderer (`groundsql.knowledge.render_context`, used by `schema_prompt_text` and
`render_subset`). What is left here is the question's own evidence, which the renderer uses for retrieval but
does not print; `dialect` stays empty so that no note is shown twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundsql.context import Context


@dataclass(frozen=True)
class DomainNotes:
    rules: str  # business rules given with the question (the evidence)
    dialect: str  # extra dialect notes beyond the renderer's (none today)


def domain_notes(ctx: Context) -> DomainNotes:
    """The rules and dialect notes this question adds to what the renderer shows."""
    rules = ctx.evidence.strip() if ctx.evidence and ctx.evidence.strip() else ""
    return DomainNotes(rules=rules, dialect="")
