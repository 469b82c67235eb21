"""The result validator (ReCAPAgent-SQL §3.3.7): judge a result summary before accepting a candidate.

The model sees the question, the SQL and a compact summary of the result (columns, nulls per column, row
count, first rows) and answers in JSON. An unreadable verdict counts as valid: the validator may only ask
for more work, never block an answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "valid": {"type": "boolean"},
        "columns_not_needed": {"type": "array", "items": {"type": "string"}},
        "result_empty": {"type": "boolean"},
        "suggest_fix": {"type": "string"},
    },
    "required": ["valid"],
}


@dataclass
class Verdict:
    valid: bool
    columns_not_needed: list[str] = field(default_factory=list)
    result_empty: bool = False
    suggest_fix: str = ""
    rewrite: str = ""  # a deterministic check's proposed query, when it has one

    def feedback(self) -> str:
        """The verdict as a repair hint."""
        parts = []
        if self.columns_not_needed:
            parts.append(f"Drop the columns the question does not ask for: {', '.join(self.columns_not_needed)}.")
        if self.result_empty:
            parts.append("The result is empty; check the filter values and joins.")
        if self.suggest_fix:
            parts.append(self.suggest_fix)
        return " ".join(parts) or "A reviewer judged that the result does not answer the question."


def validate(ctx: Context, candidate: Candidate, *, role: str = "judge") -> Verdict:
    """Ask the judge whether `candidate`'s result answers the question; failures read as valid."""
    if not candidate.ok:
        return Verdict(valid=False, suggest_fix=candidate.error or "")
    prompt = render("validate_result", question=ctx.question, evidence_block=evidence_block(ctx.evidence), sql=candidate.sql,
                    summary_note="columns, row count, first rows", summary=candidate.result.digest())
    try:
        completion = ctx.chat("validate", [{"role": "user", "content": prompt}], role=role, temperature=0.0,
                              max_tokens=160, json_schema=VERDICT_SCHEMA)
    except ModelError as exc:
        log.warning("validation skipped: %s", exc)
        return Verdict(valid=True)
    data = completion.data[0] if completion.data else None
    if not isinstance(data, dict):
        return Verdict(valid=True)
    verdict = Verdict(valid=bool(data.get("valid", True)),
                      columns_not_needed=[str(c) for c in data.get("columns_not_needed") or []
                                          if str(c) in candidate.result.columns],
                      result_empty=bool(data.get("result_empty")) and candidate.result.row_count == 0,
                      suggest_fix=str(data.get("suggest_fix") or "")[:300])
    ctx.trace.note("validate", sql=candidate.sql, valid=verdict.valid, fix=verdict.suggest_fix,
                   columns_not_needed=verdict.columns_not_needed)
    return verdict
