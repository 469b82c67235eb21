"""Result-based voting: naive majority, Weighted Majority (WMA) and Randomized Weighted Majority (RWMA).

Each candidate votes for its result group. Under WMA and RWMA a candidate carries its expert's weight,
shared equally among that expert's candidates, so an expert that samples more does not vote more. Working
candidates outvote failing ones; failures compete only when nothing ran.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from groundsql.answer import Candidate
from groundsql.errors import ConfigError
from groundsql.selection.grouping import Group, group_candidates

METHODS = ("majority", "wma", "rwma")
TIE_TOLERANCE = 1e-9


@dataclass
class Vote:
    method: str
    groups: list[Group]  # eligible groups, heaviest first
    winner: Group
    total: float  # weight of every candidate, failing ones included
    tied: list[Group] = field(default_factory=list)  # groups sharing the top weight (two or more: a tie)

    @property
    def share(self) -> float:
        return self.winner.weight / self.total if self.total > 0 else 0.0

    def summary(self) -> list[dict]:
        return [{"sql": g.representative.sql, "weight": round(g.weight, 4), "votes": len(g.candidates),
                 "ok": g.ok, "rows": g.representative.result.row_count if g.ok else None} for g in self.groups]


def candidate_weights(candidates: list[Candidate], method: str,
                      expert_weights: dict[str, float] | None = None) -> list[float]:
    """The vote each candidate carries under `method`."""
    if method == "majority":
        return [1.0] * len(candidates)
    counts: dict[str, int] = {}
    for candidate in candidates:
        counts[candidate.expert or candidate.model] = counts.get(candidate.expert or candidate.model, 0) + 1
    weights = expert_weights or {}
    return [weights.get(c.expert or c.model, 1.0) / counts[c.expert or c.model] for c in candidates]


def vote(candidates: list[Candidate], *, method: str = "majority", expert_weights: dict[str, float] | None = None,
         seed: int = 0) -> Vote:
    """Group candidates by result and pick a group: the heaviest (majority, WMA) or a weighted draw (RWMA).

    Args:
        candidates: at least one candidate.
        method: 'majority', 'wma' or 'rwma'.
        expert_weights: weight per expert (`Candidate.expert`, else `Candidate.model`); missing experts weigh 1.
        seed: the RWMA draw's seed, so a run can be repeated.
    """
    if method not in METHODS:
        raise ConfigError(f"unknown voting method {method!r}; choose one of: {', '.join(METHODS)}")
    if not candidates:
        raise ConfigError("nothing to vote on: no candidates")
    groups = group_candidates(candidates)
    by_id = {id(c): w for c, w in zip(candidates, candidate_weights(candidates, method, expert_weights))}
    for group in groups:
        group.weight = sum(by_id[id(c)] for c in group.candidates)
    total = sum(by_id.values())
    eligible = [g for g in groups if g.ok] or groups
    order = {id(g): i for i, g in enumerate(groups)}
    eligible.sort(key=lambda g: (-g.weight, g.empty, order[id(g)]))
    top = eligible[0].weight
    tied = [g for g in eligible if abs(g.weight - top) <= TIE_TOLERANCE * max(1.0, top)]
    if method == "rwma":
        winner = random.Random(seed).choices(eligible, weights=[max(g.weight, 0.0) for g in eligible])[0]
        return Vote(method=method, groups=eligible, winner=winner, total=total, tied=[])
    return Vote(method=method, groups=eligible, winner=eligible[0], total=total, tied=tied if len(tied) > 1 else [])
