"""SQL critique (after each answer query runs): dialect compliance and consistency with the plan. The reply has
two parts, the reasoning and a revised query when a flaw was found; a reply without a new query keeps the old.

`exact_critique` comes first (the `shape_checks` option): the question-shape checks of `selection.shape` compare
the query with what the question asks (a count for 'how many', a LIMIT only for a number or a superlative, no
idle join, …); their findings are the critique and their exact rewrite the revision, with no model call."""

from __future__ import annotations

from dataclasses import dataclass

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.generation.direct import MAX_SQL_TOKENS
from groundsql.generation.recap.action import normalized
from groundsql.generation.recap.planner import Plan
from groundsql.prompts import dialect_name, render
from groundsql.selection.checks import findings_hint
from groundsql.selection.shape import shape_findings
from groundsql.sql.extract import extract_sql

_SQL_TAG = "[SQL]"


@dataclass
class SqlCritique:
    reasoning: str
    revised_sql: str = ""  # empty: the critic found nothing to change
    exact: bool = False  # from the question-shape checks, not from the model


def exact_critique(ctx: Context, candidate: Candidate) -> SqlCritique | None:
    """The shape checks' findings on a query that ran as a critique (their first rewrite as the revision); None
    when they find nothing, and the model critic is asked instead."""
    if not candidate.ok:
        return None
    findings = shape_findings(ctx, candidate)
    if not findings:
        return None
    rewrite = next((f.rewrite for f in findings if f.rewrite and f.rewrite.strip() != candidate.sql.strip()), "")
    return SqlCritique(reasoning=findings_hint(findings), revised_sql=rewrite, exact=True)


def critique_sql(ctx: Context, candidate: Candidate, plan: Plan, *, role: str = "judge") -> SqlCritique:
    """The critic's reasoning about `candidate` and, when it found a flaw, a revised query (never the same one)."""
    dialect = dialect_name(ctx.db.dialect)
    outcome = candidate.result.digest() if candidate.ok else f"error: {candidate.error}"
    prompt = render("recap_sql_critique", dialect=dialect, question=ctx.question, plan=plan.text(),
                    output_format=plan.format_text() or "(not given)", sql=candidate.sql, outcome=outcome)
    try:
        completion = ctx.chat("recap:sql-critique", [{"role": "user", "content": prompt}], role=role,
                              temperature=0.0, max_tokens=MAX_SQL_TOKENS)
    except ModelError as exc:
        return SqlCritique(reasoning=f"(no critique: {exc})")
    return parse_critique(completion.text, candidate.sql, ctx.db.dialect)


def parse_critique(text: str, original: str, dialect: str) -> SqlCritique:
    """Split a reply into reasoning and revised query; a missing, unchanged or 'no change' query revises nothing."""
    head, tag, tail = text.partition(_SQL_TAG)
    reasoning = head.replace("[Reasoning]", "").strip() if tag else text.strip()
    revised = extract_sql(tail, dialect) if tag else ""
    if revised and normalized(revised, dialect) == normalized(original, dialect):
        revised = ""
    return SqlCritique(reasoning=" ".join(reasoning.split())[:600], revised_sql=revised)
