"""A list is asked ('which', 'list', 'what are') but the query returns one count. No rewrite."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape


def check(q: QueryView) -> list[Finding]:
    """A list is asked ('which …', 'list …', 'what are …') but the query returns a single COUNT."""
    shape, select = question_shape(q), q.select
    if shape.counts or shape.one_number or shape.grouped or select.args.get("group") is not None:
        return []
    opener = re.match(r"^\s*(list|show|give|which|what are|who are|name the|find the names?)\b", shape.text, re.I)
    outputs = select.expressions
    if not opener or len(outputs) != 1 or not isinstance(outputs[0].unalias(), exp.Count):
        return []
    return [Finding(
        "list_asked",
        "the question asks for a list, but the query returns one count",
        "The question asks which items (a list of rows), but the query only counts them; select the items' "
        "columns instead of COUNT(…).")]
