"""How sure an answer is: the winning share of the vote, adjusted by the judge and by what the result is."""

from __future__ import annotations

import logging

from groundsql.context import Context
from groundsql.errors import ModelError
from groundsql.prompts import evidence_block, render
from groundsql.selection.voting import Vote

log = logging.getLogger("groundsql")

DEFAULT_THRESHOLD = 0.5
SINGLE_CANDIDATE_CAP = 0.6  # one candidate agrees with nothing: never fully confident
EMPTY_FACTOR = 0.6  # an empty result is often a wrong literal


def confidence(vote: Vote, *, judged: bool = False, candidates: int | None = None) -> float:
    """The winner's share of all votes; a judge's pick counts as one more average vote for the winner.

    Failing winners score 0, empty results are discounted, and a single candidate is capped.
    """
    if vote.total <= 0 or not vote.winner.ok:
        return 0.0
    winning, total = vote.winner.weight, vote.total
    count = candidates or sum(len(g.candidates) for g in vote.groups)
    if judged and count:
        extra = total / count
        winning, total = winning + extra, total + extra
    value = winning / total
    if vote.winner.empty:
        value *= EMPTY_FACTOR
    if count <= 1:
        value = min(value, SINGLE_CANDIDATE_CAP)
    return round(value, 3)


def clarifying_question(ctx: Context, sqls: list[str], *, role: str = "judge") -> str | None:
    """A short question back to the user about what the disagreeing candidates read differently."""
    listing = "\n".join(f"- {sql}" for sql in sqls[:4] if sql)
    prompt = render("clarify", question=ctx.question, evidence_block=evidence_block(ctx.evidence), candidates=listing)
    try:
        text = ctx.chat("clarify", [{"role": "user", "content": prompt}], role=role, temperature=0.0,
                        max_tokens=80).text
    except ModelError as exc:
        log.warning("no clarifying question: %s", exc)
        return None
    text = " ".join(text.strip().strip('"').split())
    return text or None
