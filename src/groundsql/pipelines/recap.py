"""`recap` (ReCAPAgent-SQL §3.3): PreSQL linking → plan → critique → act → refine → validate agents, per expert
(by default only when the PreSQL draft fails, returns nothing or an exact check flags it: `loop`);
with more than one expert their answers combine in a WMA/RWMA vote (the paper's "ReCAP + WMA"). The chosen
query then goes through the exact shape repair (`generation.shape_repair`, no model call): an unasked LIMIT
dropped, a count for 'how many', an idle join removed, each kept only when it runs and its check is satisfied."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field

from groundsql.answer import Answer
from groundsql.context import Context
from groundsql.generation.recap import RecapLoopOptions, RecapRun, solve
from groundsql.generation.shape_repair import shape_repair
from groundsql.generation.tree_repair import TreeRepairOptions
from groundsql.pipelines.registry import preset
from groundsql.selection import SelectionOptions, learn, select
from groundsql.selection.experts import resolve_experts
from groundsql.selection.outcome import build_answer

log = logging.getLogger("groundsql")

#: An answer the validator never passed keeps this share of the vote's confidence.
UNVALIDATED_FACTOR = 0.5


class RecapOptions(RecapLoopOptions, TreeRepairOptions, SelectionOptions):
    vote: Literal["majority", "wma", "rwma"] = Field("wma", description="voting method over all candidates")
    shape_repair: bool = Field(True, description="run the exact rewrites the question-shape checks propose")


@preset("recap", "ReCAPAgent-SQL: a PreSQL draft that stands when the exact checks pass it; otherwise schema "
                 "linking from it, plan with critique, act (run / inspect / terminate) with exact shape checks "
                 "then SQL critique, self-refinement, re-linking and validation; experts combine by a WMA vote; "
                 "exact shape repair of the answer (loop=always: the agents on every question)", options=RecapOptions)
def recap(ctx: Context, options: RecapOptions) -> Answer:
    experts = resolve_experts(ctx, options)
    listener = ctx.on_step or log_turn
    runs: list[RecapRun] = []
    for expert in experts:
        run = solve(ctx, options, role=expert.role, listener=listener)
        run.candidate.expert = expert.name
        runs.append(run)
    candidates = [r.candidate for r in runs]
    names = [e.name for e in experts]
    method = options.vote if len(experts) > 1 else "majority"
    selection = select(ctx, candidates, method=method, experts=names, options=options)
    learn(ctx, candidates, experts=names, options=options)
    chosen = selection.chosen
    validated = any(r.validated and r.candidate is chosen for r in runs) or \
        any(r.validated and r.candidate.sql == chosen.sql for r in runs)
    score = selection.confidence if validated else round(selection.confidence * UNVALIDATED_FACTOR, 3)
    if options.shape_repair and chosen.ok:
        repaired = shape_repair(ctx, chosen)[0]
        if repaired is not chosen:
            candidates = [*candidates, repaired]
            chosen = repaired
    answer = build_answer(ctx, chosen, candidates, confidence=score,
                          alternatives=[g.representative.sql for g in selection.vote.groups], options=options)
    answer.stages = _stages(runs[0].state.attempts, answer.sql)
    return answer


def _stages(attempts: list, final_sql: str) -> dict[str, str]:
    """The first expert's queries at the points the per-stage comparison reads: `first_query` (the PreSQL draft
    when it ran, else the loop's first answer query), `loop_first` and `loop_last` (the loop's first and last
    answer queries: planning and acting, then critique, refinement and validation) and `final` (after the vote
    and the shape repair)."""
    loop = [c for c in attempts if c.source != "recap:presql"]
    stages = {"first_query": attempts[0].sql if attempts else ""}
    if loop:
        stages |= {"loop_first": loop[0].sql, "loop_last": loop[-1].sql}
    return stages | {"final": final_sql}


def log_turn(agent: str, data: dict) -> None:
    """One line per agent turn (shown by `ask --verbose`)."""
    detail = {
        "plan": lambda: f"v{data.get('version')}: " + " | ".join(data.get("steps", [])) +
                        (f" → {data['expected']}" if data.get("expected") else ""),
        "plan-critique": lambda: f"round {data.get('round')}: " +
                                 ("update: " + "; ".join(data.get("reasons", [])) if data.get("update_plan")
                                  else "plan accepted"),
        "action": lambda: f"step {data.get('number')} {data.get('action')}: {data.get('sql') or data.get('reason')}",
        "sql-critique": lambda: data.get("reasoning", "") + (f" → {data['revised']}" if data.get("revised") else ""),
        "validate": lambda: "pass" if data.get("valid") else f"fail: {data.get('feedback')}",
        "schema-link": lambda: (f"{data['mode']}: " if data.get("mode") else "") + data.get("schema", ""),
    }.get(agent, lambda: ", ".join(f"{k}={v}" for k, v in data.items() if v not in (None, "", [], {})))()
    log.info("recap %s · %s", agent, " ".join(str(detail).split())[:240])
