"""Business rules and dialect notes for the agents' prompts: the one place they are fetched.

When the knowledge package lands (`groundsql.knowledge`, the shared renderer of rules, examples and dialect
notes), `domain_notes` switches to it in one line; until then the rules are the question's evidence and the
dialect notes a few short lines per engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundsql.context import Context

_DIALECT_NOTES = {
    "sqlite": "SQLite: text comparison with = is case-sensitive; use strftime for date parts; integer division "
              "truncates, so multiply by 1.0 for ratios.",
    "duckdb": "DuckDB: use date_part or extract for date parts; ILIKE for case-insensitive matching.",
    "postgres": "PostgreSQL: double-quote identifiers with capitals; integer division truncates, cast to numeric "
                "for ratios; every selected column must be grouped or aggregated.",
    "mysql": "MySQL: quote identifiers with backticks; use DATE_FORMAT or YEAR() for date parts.",
}


@dataclass(frozen=True)
class DomainNotes:
    rules: str  # business rules that may apply (the evidence, the knowledge folder's rules)
    dialect: str  # the engine's SQL habits worth a reminder


def domain_notes(ctx: Context) -> DomainNotes:
    """The business rules and dialect notes for this question (switch point for the knowledge renderer)."""
    rules = ctx.evidence.strip() if ctx.evidence and ctx.evidence.strip() else ""
    return DomainNotes(rules=rules, dialect=_DIALECT_NOTES.get(ctx.db.dialect, ""))
