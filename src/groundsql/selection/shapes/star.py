"""SELECT * where the question names what to show. No rewrite."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape

_EVERYTHING = re.compile(r"\b(all|every|full|complete)\s+(the\s+)?(information|info|details|data|columns|"
                         r"attributes|fields|records)\b|\beverything\b|\ball about\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    """SELECT * while the question names what to show (not 'all the information')."""
    shape = question_shape(q)
    try:  # the qualified tree has its stars expanded: read the query as written
        written = sqlglot.parse_one(q.candidate.sql, read=q.ctx.db.dialect)
    except SqlglotError:
        return []
    if not isinstance(written, exp.Select) or _EVERYTHING.search(shape.text) or not any(
            isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
            for e in written.expressions):
        return []
    return [Finding(
        "star", "SELECT * returns every column, but the question names what to show",
        "Select only the columns the question asks for, in its order, instead of *.")]
