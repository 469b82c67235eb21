"""Choosing among candidates: result voting (majority, WMA, RWMA), a judge for ties, and confidence."""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.errors import DatabaseError
from groundsql.selection.confidence import DEFAULT_THRESHOLD, clarifying_question, confidence
from groundsql.selection.grouping import Group, group_candidates, result_key
from groundsql.selection.judge import judge
from groundsql.selection.options import SelectionOptions
from groundsql.selection.voting import METHODS, Vote, vote
from groundsql.selection.weights import WeightPool, WeightStore, paper_epsilon

log = logging.getLogger("groundsql")

__all__ = ["DEFAULT_THRESHOLD", "METHODS", "Group", "Selection", "SelectionOptions", "Vote", "WeightPool", "WeightStore",
           "clarifying_question", "confidence", "group_candidates", "judge", "learn", "paper_epsilon",
           "result_key", "select", "vote"]


@dataclass
class Selection:
    chosen: Candidate
    confidence: float
    vote: Vote
    judged: bool = False


def select(ctx: Context, candidates: list[Candidate], *, method: str = "majority", experts: list[str] | None = None,
           store: WeightStore | None = None, options: SelectionOptions | None = None) -> Selection:
    """Vote over `candidates`, let the judge settle a tie, and score the winner's confidence.

    Args:
        ctx: the question's context (the judge is called through it; the vote is noted on its trace).
        candidates: the candidates, each tagged with its `expert`.
        method: 'majority', 'wma' or 'rwma'; the weighted methods read the persisted weights of `experts`.
        experts: the expert names taking part (default: those on the candidates).
        store: where the weights live (default: GROUNDSQL_STATE_DIR).
        options: `seed` and `judge` (default: the run's).
    """
    options = options or ctx.settings(SelectionOptions)
    names = experts or sorted({c.expert or c.model for c in candidates})
    weights = None
    if method in ("wma", "rwma"):
        weights = (store or WeightStore()).load(names).experts
    seed = options.seed if options.seed is not None else zlib.crc32(ctx.question.encode("utf-8"))
    result = vote(candidates, method=method, expert_weights=weights, seed=seed)
    judged = False
    if result.tied and options.judge:
        choice = judge(ctx, result.tied)
        if choice is not None:
            result.winner = result.tied[choice]
            judged = True
    score = confidence(result, judged=judged, candidates=len(candidates))
    ctx.trace.note("vote", method=method, weights=weights, groups=result.summary(), judged=judged,
                   winner=result.winner.representative.sql, confidence=score)
    return Selection(chosen=result.winner.representative, confidence=score, vote=result, judged=judged)


def learn(ctx: Context, candidates: list[Candidate], *, experts: list[str] | None = None,
          store: WeightStore | None = None, options: SelectionOptions | None = None) -> WeightPool | None:
    """Update the experts' weights after an answer (WMA/RWMA online learning).

    With a gold answer (`ctx.gold_sql`, set by evaluation) an expert is wrong when its own majority result
    differs from the gold result; without one, when none of its candidates ran. Nothing is learnt from one
    expert, nor with the option `learn_weights=false`; `epsilon` fixes the update rate.
    """
    options = options or ctx.settings(SelectionOptions)
    names = experts or sorted({c.expert or c.model for c in candidates})
    if len(names) < 2 or not options.learn_weights:
        return None
    gold = _gold_key(ctx)
    wrong = {}
    for name in names:
        own = [c for c in candidates if (c.expert or c.model) == name]
        if not own:
            continue
        if gold is not None:
            best = vote(own).winner
            wrong[name] = not best.ok or result_key(best.representative.result) != gold
        else:
            wrong[name] = not any(c.ok for c in own)
    pool = (store or WeightStore()).record(names, wrong, epsilon=options.epsilon,
                                           label=ctx.question[:80])
    ctx.trace.note("weights", source="gold" if gold is not None else "execution", wrong=wrong,
                   weights=pool.experts, rounds=pool.rounds)
    return pool


def _gold_key(ctx: Context) -> tuple | None:
    sql = ctx.gold_sql
    if not sql:
        return None
    try:
        return result_key(ctx.db.execute(sql))
    except DatabaseError as exc:  # a broken gold query teaches nothing; fall back to execution success
        log.warning("gold query failed, learning from execution instead: %s", exc)
        return None
