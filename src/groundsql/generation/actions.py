"""Parsing one reply of the exploration agent into an action, repairing what small models get wrong."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.sql.extract import extract_sql

KINDS = ("EXPLORE", "REFINE", "SQL", "CONFIRM")
#: Tags may come bracketed ("[SQL]"), bold ("**SQL**") or as a leading word ("SQL:"); regexes only find them.
_TAG = re.compile(r"\[\s*(EXPLORE|REFINE|SQL|CONFIRM)\s*\]|^[ \t*#>]{0,3}(EXPLORE|REFINE|SQL|CONFIRM)\b[*]{0,2}:?",
                  re.I | re.M)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|$)", re.S)
MAX_EXPLORE_QUERIES = 3
MIN_REFINE_CHARS = 12
_ECHO = ("a few lines", "then, in a few lines", "what you learned")  # the instructions repeated back


@dataclass
class Action:
    kind: str  # EXPLORE | REFINE | SQL | CONFIRM | INVALID
    body: str = ""
    queries: list[str] = field(default_factory=list)  # EXPLORE: the statements; SQL/CONFIRM: at most one
    repaired: str = ""  # how a malformed reply was read, for the trace
    wanted: str = ""  # a bare tag with nothing after it: the action the model meant to take

    @property
    def sql(self) -> str:
        return self.queries[0] if self.queries else ""


def parse_action(reply: str, dialect: str = "sqlite") -> Action:
    """Read the first action tag of `reply`; untagged replies are repaired where their intent is clear."""
    text = (reply or "").strip()
    match = _TAG.search(text)
    if match:
        kind = (match.group(1) or match.group(2)).upper()
        body = text[match.end():].strip()
        nxt = _TAG.search(body)
        if nxt and nxt.start() > 0 and kind != "EXPLORE":
            body = body[: nxt.start()].strip()
        return _fill(Action(kind=kind, body=body), dialect, text)
    sql = extract_sql(text, dialect)
    if sql:
        return Action(kind="SQL", body=text, queries=[sql], repaired="untagged reply with a query read as [SQL]")
    if text:
        return Action(kind="REFINE", body=text[:1200], repaired="untagged prose read as [REFINE]")
    return Action(kind="INVALID", repaired="empty reply")


def _fill(action: Action, dialect: str, whole: str) -> Action:
    if action.kind == "EXPLORE":
        action.queries = split_queries(action.body, dialect)[:MAX_EXPLORE_QUERIES]
        if not action.queries:
            action.kind = "INVALID"
            action.repaired = "[EXPLORE] without a query"
            action.wanted = "EXPLORE"
    elif action.kind == "REFINE":
        sql = extract_sql(action.body, dialect)
        if sql and _looks_final(action.body):
            return Action(kind="SQL", body=action.body, queries=[sql], repaired="[REFINE] holding a query read as [SQL]")
        if len(action.body.strip(" .:-*#\n")) < MIN_REFINE_CHARS or action.body.lower().startswith(_ECHO):
            action.kind = "INVALID"
            action.repaired = "[REFINE] without content"
    elif action.kind in ("SQL", "CONFIRM"):
        sql = extract_sql(action.body, dialect)
        if not sql and action.kind == "SQL":
            sql = extract_sql(whole, dialect)
        action.queries = [sql] if sql else []
        if action.kind == "SQL" and not sql:
            action.kind = "INVALID"
            action.repaired = "[SQL] without a query"
            action.wanted = "SQL"
    return action


def _looks_final(body: str) -> bool:
    """A REFINE whose text is mostly a query: small models often put their answer there."""
    text = body.strip()
    if text[:6].upper() in ("SELECT", "WITH ") or text[:5].upper() == "WITH ":
        return True
    return "```" in text and len(text.split("```")[0].strip()) < 40


def split_queries(text: str, dialect: str = "sqlite") -> list[str]:
    """The SELECT statements in `text` (code blocks first), each rendered back by sqlglot."""
    blocks = _FENCE.findall(text) or [text]
    found: list[str] = []
    for block in blocks:
        try:
            statements = sqlglot.parse(block, read=dialect)
        except (SqlglotError, ValueError):
            statements = []
            for piece in block.split(";"):
                single = extract_sql(piece, dialect)
                if single:
                    statements.append(_parse_one(single, dialect))
        for statement in statements:
            if isinstance(statement, exp.Query):
                found.append(statement.sql(dialect=dialect, comments=False))
    return found


def _parse_one(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None
