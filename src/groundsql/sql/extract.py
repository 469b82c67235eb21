"""Pull one SQL query out of a model's reply: code fences, prose before or after, stray semicolons."""

from __future__ import annotations

import re

import sqlglot
from sqlglot.errors import SqlglotError

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)(?:```|$)", re.S)
_START = re.compile(r"\b(SELECT|WITH)\b", re.I)


def extract_sql(reply: str, dialect: str = "sqlite") -> str:
    """The first query in `reply` that sqlglot can parse, else the best-looking fragment, else ''.

    Regular expressions only locate text blocks here; whether a block is SQL is decided by sqlglot.
    """
    candidates: list[str] = []
    for language, body in _FENCE.findall(reply or ""):
        if language.lower() in ("", "sql", "sqlite", "postgresql", "postgres", "duckdb", "mysql"):
            candidates.append(body)
    for block in candidates:  # a fenced statement of any kind is kept whole, so the guard can judge it
        statement = _single_statement(block.strip().rstrip(";").strip(), dialect)
        if statement:
            return statement
    candidates.append(reply or "")
    for block in candidates:
        found = _first_query(block, dialect)
        if found:
            return found
    for block in candidates:  # a query that does not parse (cut off, say): its repair or the guard decides
        for match in _START.finditer(block):
            fragment = block[match.start():].split("```")[0].strip().split(";")[0].strip()
            if _looks_like_query(block, match, fragment):
                return fragment
    return ""


def _looks_like_query(block: str, match: re.Match[str], fragment: str) -> bool:
    """Whether an unparsable fragment is a query cut short rather than prose ("help with that request"): its
    keyword is written in capitals or opens a line, and a SELECT follows."""
    opens_line = not block[:match.start()].strip() or block[:match.start()].rstrip(" \t").endswith("\n")
    return (match.group(1).isupper() or opens_line) and re.search(r"\bSELECT\b", fragment, re.I) is not None


def _single_statement(text: str, dialect: str) -> str:
    if not text:
        return ""
    try:
        parsed = [p for p in sqlglot.parse(text, read=dialect) if p is not None]
    except (SqlglotError, ValueError):
        return ""
    return text if len(parsed) == 1 else ""


def _first_query(block: str, dialect: str) -> str:
    match = _START.search(block)
    if not match:
        return ""
    text = block[match.start():].split("```")[0].strip()  # a stray closing fence ends the query
    # Try the longest prefix that parses as a single statement, cutting at semicolons then at blank lines.
    pieces = [text.split(";")[0]] + [text.split("\n\n")[0]]
    for piece in pieces:
        piece = piece.strip().rstrip(";").strip()
        if not piece:
            continue
        try:
            parsed = [p for p in sqlglot.parse(piece, read=dialect) if p is not None]
        except (SqlglotError, ValueError):
            continue
        if len(parsed) == 1:
            return piece
    return ""
