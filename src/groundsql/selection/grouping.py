"""Candidates grouped by what they return: equal result multisets form one group (result-based voting)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundsql.answer import Candidate
from groundsql.db import Result
from groundsql.db.result import json_safe

FLOAT_DIGITS = 6


def result_key(result: Result) -> tuple:
    """A hashable form of the rows, ignoring column names and row order; numbers compare by value."""
    return tuple(sorted((tuple(_value(v) for v in row) for row in result.rows), key=repr))


def _value(value: Any) -> Any:
    value = json_safe(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        rounded = round(value, FLOAT_DIGITS)
        return int(rounded) if rounded.is_integer() else rounded
    return value


@dataclass
class Group:
    """Candidates that agree: the same rows, or (for failures) the same SQL."""

    key: tuple
    candidates: list[Candidate] = field(default_factory=list)
    weight: float = 0.0

    @property
    def ok(self) -> bool:
        return self.candidates[0].ok

    @property
    def empty(self) -> bool:
        return self.ok and self.candidates[0].result.row_count == 0

    @property
    def representative(self) -> Candidate:
        """The candidate returned for the group: the first one that needed the fewest repairs."""
        return min(self.candidates, key=lambda c: c.rounds)


def group_candidates(candidates: list[Candidate]) -> list[Group]:
    """Working candidates by result, failing ones by their SQL text; groups in order of first appearance."""
    groups: dict[tuple, Group] = {}
    for candidate in candidates:
        if candidate.ok:
            key = ("rows", result_key(candidate.result))
        else:
            key = ("failed", " ".join(candidate.sql.split()).lower())
        groups.setdefault(key, Group(key=key)).candidates.append(candidate)
    return list(groups.values())
