"""Plan critique: does the plan have every step the question needs, and does it hang together?"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from groundsql.context import Context
from groundsql.generation.recap.planner import Plan
from groundsql.generation.recap.replies import Reply, ask_json, short_list
from groundsql.prompts import render


class PlanVerdict(Reply):
    # The reasons come first and are required in the schema given to the model (a grammar for the embedded one),
    # so that a model writing left to right decides after giving them.
    model_config = ConfigDict(extra="ignore", json_schema_extra={"required": ["reasons", "update_plan"]})

    reasons: list[str] = Field(default_factory=list, json_schema_extra=short_list(5))
    update_plan: bool


def critique_plan(ctx: Context, plan: Plan, schema_text: str, *, role: str = "judge") -> PlanVerdict | None:
    """The critic's verdict on `plan`; None when it gave no valid verdict (read as: keep the plan)."""
    prompt = render("recap_plan_critique", schema=schema_text, question=ctx.question, plan=plan.text(),
                    output_format=plan.format_text() or "(not given)")
    verdict = ask_json(ctx, "recap:plan-critique", prompt, PlanVerdict, role=role, max_tokens=200)
    if verdict is not None and verdict.update_plan and not any(r.strip() for r in verdict.reasons):
        verdict = PlanVerdict(update_plan=False, reasons=[])  # a change asked for without a reason changes nothing
    return verdict
