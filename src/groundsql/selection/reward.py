"""Reward-model selection (APEX-SQL §4.3.4 on BIRD, after Contextual-SQL): a reward model scores each distinct
result's query and the best score wins; the result vote decides ties and supplies confidence.

The reward model is the `reward` role (`--model-for reward=SPEC`, `models={"reward": …}`). It sees the schema, the
question, the SQL and its result, and returns a score from 0 to 10 (a JSON-constrained reply, so a generative
model can serve; Contextual-SQL's reward model returns a scalar, which this contract also takes). Failing queries
are not scored: they lose to any query that ran.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from groundsql.context import Context
from groundsql.prompts import evidence_block, render
from groundsql.selection.grouping import Group

log = logging.getLogger("groundsql")

ROLE = "reward"
SCORE_SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 10}},
                "required": ["score"]}
SCHEMA_CHARS = 6000


@dataclass
class RewardPick:
    """The index of the chosen group in the groups given, and every group's score (None: not scored)."""

    index: int
    scores: list[float | None]


def has_reward_model(ctx: Context) -> bool:
    """Whether the run was given a model for the `reward` role (otherwise the result vote selects)."""
    return ROLE in ctx.models


def reward_pick(ctx: Context, groups: list[Group], schema_text: str) -> RewardPick | None:
    """Score each working group's representative with the reward model; None when no group could be scored.

    Ties go to the earlier group (groups come heaviest first, so the vote breaks ties)."""
    from groundsql.linking.common import ask_json

    scores: list[float | None] = []
    for group in groups:
        if not group.ok:
            scores.append(None)
            continue
        chosen = group.representative
        prompt = render("reward_score", schema=schema_text[:SCHEMA_CHARS], question=ctx.question,
                        evidence_block=evidence_block(ctx.evidence), sql=chosen.sql, result=chosen.result.digest())
        reply = ask_json(ctx, "reward", [{"role": "user", "content": prompt}], role=ROLE, max_tokens=20,
                         schema=SCORE_SCHEMA)[0]
        scores.append(_score(reply))
    scored = [(s, -i) for i, s in enumerate(scores) if s is not None]
    if not scored:
        return None
    best = max(scored)
    pick = RewardPick(index=-best[1], scores=scores)
    ctx.trace.note("reward", scores=scores, choice=pick.index, sql=[g.representative.sql for g in groups])
    return pick


def _score(reply: object) -> float | None:
    value = reply.get("score") if isinstance(reply, dict) else None
    try:
        return max(0.0, min(10.0, float(value)))
    except (TypeError, ValueError):
        return None
