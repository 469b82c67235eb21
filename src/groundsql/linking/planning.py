"""APEX-SQL §3.2.1 logical planning: N schema-agnostic plans sampled, then merged into one master plan."""

from __future__ import annotations

import logging

from pydantic import Field

from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.options import Options
from groundsql.prompts import evidence_block, render

log = logging.getLogger("groundsql")

DEFAULT_PLANS = 2
PLAN_TEMPERATURE = 0.8
MERGE_TEMPERATURE = 0.2


class PlanOptions(Options):
    plan_samples: int = Field(DEFAULT_PLANS, ge=1, description="logical plans sampled, then merged into one")


def master_plan(ctx: Context, *, n: int | None = None) -> str:
    """The master logical plan for the question, computed once per context (generation may reuse it).

    Options: `plan_samples` (N, default 2). Draft plans are sampled at temperature 0.8 from the question (and
    evidence) only; the merge runs at 0.2. With one usable draft the merge is skipped.
    """
    if ctx.cache.master_plan is not None:
        return ctx.cache.master_plan
    n = max(1, int(n or ctx.settings(PlanOptions).plan_samples))
    evidence = evidence_block(ctx.evidence)
    messages = [{"role": "user", "content": render("link_plan", question=ctx.question, evidence_block=evidence)}]
    drafts: list[str] = []
    try:
        completion = ctx.chat("link.plan", messages, role="planner", n=n, temperature=PLAN_TEMPERATURE,
                              max_tokens=200)
        drafts = [text.strip() for text in completion.texts if text.strip()]
    except ModelError as exc:
        log.warning("logical planning failed: %s", exc)
    if len(drafts) <= 1:
        plan = drafts[0] if drafts else f"1. Answer: {ctx.question}"
    else:
        plans = "\n\n".join(f"Draft {i}:\n{d}" for i, d in enumerate(drafts, 1))
        merge = [{"role": "user", "content": render("link_plan_merge", question=ctx.question,
                                                    evidence_block=evidence, plans=plans)}]
        try:
            plan = ctx.chat("link.plan_merge", merge, role="planner", temperature=MERGE_TEMPERATURE,
                            max_tokens=250).text.strip() or drafts[0]
        except ModelError as exc:
            log.warning("plan merge failed: %s", exc)
            plan = drafts[0]
    ctx.cache.master_plan = plan
    ctx.trace.note("plan", plan=plan, drafts=drafts)
    return plan
