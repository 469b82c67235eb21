"""Short syntax notes per dialect, chosen by what the question, the schema and a draft query need.

The notes are ours (``knowledge/dialects/<dialect>.yaml``), one per topic, each with a check query that the tests
run on the real engine. A topic is chosen when words of the question call for it (ReCAPAgent-SQL's syntax
retriever), when the schema does (text dates, names that need quoting) or when a draft query uses the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import sqlglot
import yaml
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from groundsql.knowledge.items import Item

DIALECTS = ("sqlite", "duckdb", "postgres", "mysql", "spark")

#: topic → words of a question that call for it (matched as word prefixes).
QUESTION_TRIGGERS: dict[str, tuple[str, ...]] = {
    "dates": ("year", "month", "day", "date", "week", "quarter", "since", "before", "after", "recent", "latest",
              "earliest", "oldest", "newest", "ago", "monthly", "yearly", "daily", "fiscal", "hour", "duration",
              "januar", "februar", "march", "april", "june", "july", "august", "september", "october",
              "november", "december"),
    "concat": ("full name", "concatenat", "combine", "together with", "name and surname", "first and last"),
    "division": ("percent", "ratio", "rate", "share", "proportion", "fraction", "average number", "per ", "%",
                 "times as", "divided"),
    "limit": ("top", "highest", "lowest", "most", "least", "largest", "smallest", "best", "worst", "maximum",
              "minimum", "biggest", "fewest", "greatest"),
    "nulls": ("missing", "null", "empty", "unknown", "without", "no value", "not recorded"),
    "regex": ("contain", "start", "begin", "end with", "ends with", "pattern", "includ", "letter", "word",
              "mention"),
    "boolean": ("true", "false", "whether", "flag", "yes", "enabled", "disabled"),
    "cast": ("convert", "numeric", "as a number", "as text", "integer"),
}

#: topic → query constructs (sqlglot expression types) in a draft that call for it.
DRAFT_TRIGGERS: dict[str, tuple[type[exp.Expression], ...]] = {
    "dates": (exp.Extract, exp.TimeToStr, exp.StrToTime, exp.DateAdd, exp.DateSub, exp.DateDiff, exp.Year,
              exp.Month, exp.Day, exp.CurrentDate, exp.CurrentTimestamp, exp.DateTrunc, exp.TimestampTrunc),
    "concat": (exp.DPipe, exp.Concat, exp.ConcatWs),
    "division": (exp.Div, exp.IntDiv),
    "limit": (exp.Limit, exp.Fetch),
    "nulls": (exp.Ordered,),
    "regex": (exp.Like, exp.ILike, exp.RegexpLike, exp.Glob),
    "boolean": (exp.Boolean,),
    "cast": (exp.Cast, exp.TryCast),
}

_WORD_START = re.compile(r"[a-z0-9%]")
_YEAR = re.compile(r"\b(19|20)\d\d\b")


@dataclass(frozen=True)
class DialectNote:
    dialect: str
    topic: str
    text: str
    check_sql: str
    expect: Any

    def item(self) -> Item:
        return Item("dialect", self.text, f"dialect:{self.dialect}/{self.topic}")


@cache
def notes_for(dialect: str) -> dict[str, DialectNote]:
    """The shipped notes of `dialect` by topic ({} for a dialect without notes)."""
    name = "mysql" if dialect == "mariadb" else "spark" if dialect in ("spark2", "databricks") else dialect
    if name not in DIALECTS:
        return {}
    text = resources.files("groundsql.knowledge").joinpath("dialects", f"{name}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    return {topic: DialectNote(name, topic, " ".join(str(entry["text"]).split()), entry["check"]["sql"],
                               entry["check"].get("expect"))
            for topic, entry in data.items()}


def choose_notes(dialect: str, question: str, *, draft: str | None = None, text_dates: bool = False,
                 quoted_names: bool = False, limit: int = 3) -> list[tuple[DialectNote, float]]:
    """The notes a prompt needs, most needed first, with a score: question words count 1 each (at most 2 per
    topic), a draft construct 2, a schema reason (text dates, names that need quotes) 1.5."""
    notes = notes_for(dialect)
    if not notes or limit <= 0:
        return []
    lowered = f" {question.lower()} "
    scores: dict[str, float] = {}
    for topic, words in QUESTION_TRIGGERS.items():
        hits = sum(1 for w in words if _has_word(lowered, w))
        if topic == "dates" and _YEAR.search(lowered):
            hits += 1
        if hits:
            scores[topic] = min(hits, 2)
    for topic in _draft_topics(draft, dialect):
        scores[topic] = scores.get(topic, 0) + 2
    if text_dates and "dates" in scores:
        scores["dates"] += 1.5
    if quoted_names:
        scores["quoting"] = scores.get("quoting", 0) + 1.5
    ranked = sorted(((t, s) for t, s in scores.items() if t in notes), key=lambda p: (-p[1], list(notes).index(p[0])))
    return [(notes[topic], score) for topic, score in ranked[:limit]]


def _has_word(text: str, word: str) -> bool:
    """`word` occurs at the start of a word of `text` (prefix match: 'percent' finds 'percentage')."""
    start = text.find(word)
    while start != -1:
        if start == 0 or not _WORD_START.match(text[start - 1]):
            return True
        start = text.find(word, start + 1)
    return False


def _draft_topics(draft: str | None, dialect: str) -> set[str]:
    if not draft or not draft.strip():
        return set()
    try:
        tree = sqlglot.parse_one(draft, read=dialect)
    except (ParseError, TokenError, ValueError):
        return set()
    if tree is None:
        return set()
    return {topic for topic, kinds in DRAFT_TRIGGERS.items() if tree.find(*kinds) is not None}
