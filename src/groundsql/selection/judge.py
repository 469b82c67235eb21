"""The judge (APEX-SQL answer selection): a model picks among result groups that tied in the vote."""

from __future__ import annotations

import logging
import re

from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.prompts import evidence_block, render
from groundsql.selection.grouping import Group

log = logging.getLogger("groundsql")

STRATEGY_CHARS = 300


def judge(ctx: Context, groups: list[Group], *, role: str = "judge") -> int | None:
    """Index (into `groups`) of the group the judge prefers; None when its reply names no candidate."""
    if len(groups) < 2:
        return 0 if groups else None
    blocks = []
    for number, group in enumerate(groups, 1):
        chosen = group.representative
        lines = [f"Candidate {number}:"]
        if chosen.strategy:
            lines.append(f"Plan: {chosen.strategy[:STRATEGY_CHARS]}")
        lines.append(f"SQL: {chosen.sql}")
        if chosen.ok:
            lines.append("Result: " + chosen.result.digest().replace("\n", "; "))
        blocks.append("\n".join(lines))
    prompt = render("judge_select", question=ctx.question, evidence_block=evidence_block(ctx.evidence),
                    candidates="\n\n".join(blocks), count=len(groups))
    try:
        reply = ctx.chat("judge", [{"role": "user", "content": prompt}], role=role, temperature=0.0,
                         max_tokens=40).text
    except ModelError as exc:
        log.warning("judge skipped: %s", exc)
        return None
    choice = parse_choice(reply, len(groups))
    ctx.trace.note("judge", candidates=len(groups), reply=reply[:200], choice=choice)
    return choice


def parse_choice(reply: str, count: int) -> int | None:
    """The first candidate number in 1..count mentioned in `reply`, as a 0-based index."""
    for token in re.findall(r"\d+", reply or ""):
        number = int(token)
        if 1 <= number <= count:
            return number - 1
    return None
