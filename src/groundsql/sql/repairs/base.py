"""What every tree repair rule shares: the facts it may rely on, what it returns, small tree helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.catalog.joins import JoinGraph
from groundsql.catalog.schema import Schema
from groundsql.catalog.values import ValueIndex


@dataclass
class RepairFacts:
    """What the rules may rely on: the structure, the join graph, stored values and what the engine said."""

    schema: Schema
    joins: JoinGraph
    dialect: str
    values: ValueIndex | None = None  # None: literal snapping is off
    error: str | None = None  # the engine's error; None when the query ran
    empty: bool = False  # the query ran and returned no rows


@dataclass(frozen=True)
class TreeFix:
    """One applied rewrite: which rule, the SQL before and after, and what changed, in words."""

    rule: str
    before: str
    after: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "before": self.before, "after": self.after, "detail": self.detail}


@dataclass
class RuleOutcome:
    changes: list[str] = field(default_factory=list)  # what was rewritten (empty: the rule did not fire)
    hints: list[str] = field(default_factory=list)  # what it saw but would not guess at


@dataclass
class RepairPlan:
    """The query after every rule that fired (`sql` is the input when none did)."""

    sql: str
    fixes: list[TreeFix] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


Rule = Callable[[exp.Expression, RepairFacts], RuleOutcome]


def parse_query(sql: str, dialect: str) -> exp.Expression | None:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None
    return tree if isinstance(tree, exp.Query) else None


def set_qualifier(node: exp.Column, alias: str) -> None:
    node.set("table", exp.to_identifier(alias))


#: Words of a declared column type that say how SQLite would compare it (its type affinity).
_NUMBER_TYPES = ("INT", "REAL", "FLOA", "DOUB", "NUM", "DEC", "BIGINT", "SMALLINT")
_TEXT_TYPES = ("CHAR", "TEXT", "CLOB", "STRING")


def type_kind(declared: str) -> str | None:
    """'number' or 'text' for a declared column type (SQLite's affinity rules, in their order); None otherwise."""
    upper = (declared or "").upper()
    if "INT" in upper:
        return "number"
    if any(word in upper for word in _TEXT_TYPES):
        return "text"
    if any(word in upper for word in _NUMBER_TYPES):
        return "number"
    return None


def matches_error(error: str | None, markers: tuple[str, ...]) -> bool:
    """Whether an engine error (lower-cased) holds one of `markers`."""
    lowered = (error or "").lower()
    return any(marker in lowered for marker in markers)
