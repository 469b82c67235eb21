"""Validator (after a query runs): its result against the question and the expected output format — columns
not asked for, missing filters, an empty result, the wrong shape. A pass ends the loop; a fail (an invalid
verdict, an empty result, or columns not needed) re-enters it with the verdict as feedback. An unreadable
verdict passes: the validator may ask for more work, never block.

Before asking the model, the deterministic checks run: with `shape` (the `shape_checks` option) every
question-shape check of `selection.shape` (a list for 'how many', an unasked LIMIT, an idle join, a column the
question did not ask for, …), else the join check alone (`selection.checks.JOIN_CHECKS`). A finding fails the
result with the check's hint as the fix, since a small model reviewing a few rows does not see it. A check's
rewrite (the query without the problem) goes back to the loop, which runs it and lets this validator judge it
(a 1.5B action agent, told to drop a join, kept repeating its query)."""

from __future__ import annotations

from pydantic import AliasChoices, Field

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.generation.recap.planner import Plan
from groundsql.generation.recap.replies import Reply, ask_json, short_list, short_text
from groundsql.generation.validator import Verdict
from groundsql.prompts import evidence_block, render
from groundsql.selection.checks import JOIN_CHECKS, findings_hint, sanity_check
from groundsql.selection.shape import shape_findings


class ValidatorReply(Reply):
    valid_result: bool = Field(validation_alias=AliasChoices("valid_result", "valid"))
    columns_not_needed: list[str] = Field(default_factory=list, json_schema_extra=short_list(10, 100))
    result_empty: bool = False
    suggest_fix: str = Field("", json_schema_extra=short_text())


def validate_result(ctx: Context, candidate: Candidate, plan: Plan, *, role: str = "judge",
                    shape: bool = True) -> Verdict:
    """The verdict on `candidate`'s result; an error, an empty result or an exact finding fails without a model
    call (`shape`: the question-shape checks run, else the join check only)."""
    if not candidate.ok:
        return Verdict(valid=False, suggest_fix=candidate.error or "the query did not run")
    if candidate.result.row_count == 0:
        return Verdict(valid=False, result_empty=True)
    findings = shape_findings(ctx, candidate) if shape else sanity_check(ctx, candidate, checks=JOIN_CHECKS)
    if findings:
        return Verdict(valid=False, suggest_fix=findings_hint(findings),
                       rewrite=next((f.rewrite for f in findings if f.rewrite), ""))
    expected = plan.format_text()
    shape = f"{len(candidate.result.columns)} column(s)"
    if expected:
        shape += f"; the plan expected {len(plan.expected_columns)}: {expected}"
    prompt = render("recap_validate", question=ctx.question, evidence_block=evidence_block(ctx.evidence), sql=candidate.sql,
                    summary=candidate.result.digest(), shape=shape)
    reply = ask_json(ctx, "recap:validate", prompt, ValidatorReply, role=role, max_tokens=200)
    if reply is None:
        return Verdict(valid=True)
    columns = list(candidate.result.columns)
    unneeded = [c for c in dict.fromkeys(reply.columns_not_needed) if c in columns]
    if len(unneeded) >= len(columns):
        unneeded = []  # every column "not needed" says nothing
    # As in the paper, columns the question does not need fail the result even when the verdict says valid.
    return Verdict(valid=reply.valid_result and not unneeded, columns_not_needed=unneeded,
                   suggest_fix=reply.suggest_fix.strip()[:300])
