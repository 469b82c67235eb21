"""'More / greater / less … than' asked and the query has no `<`, `>` or BETWEEN. No rewrite."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape

_COMPARATIVE = re.compile(r"\b(more|greater|larger|bigger|higher|older|younger|less|fewer|smaller|lower|"
                          r"longer|shorter|cheaper|above|below|over|under|exceeds?|at least|at most)\b",
                          re.IGNORECASE)
_NOT_COMPARING = re.compile(r"\bmore or less\b|\bno more than\b|\bother than\b|\brather than\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    """'greater than', 'more than', 'older than' asked, and the query compares nothing with < or >."""
    shape = question_shape(q)
    if not _COMPARATIVE.search(_NOT_COMPARING.sub(" ", shape.text)) or not re.search(r"\bthan\b|\bat (least|most)\b|"
                                                                                 r"\babove\b|\bbelow\b|\bexceed",
                                                                                 shape.text, re.I):
        return []
    if any(q.tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)) or shape.superlative:
        return []
    return [Finding(
        "comparison_asked", "the question compares (more / greater / less than), but the query has no < or >",
        "The question asks for a comparison (more than, greater than, less than): filter with >, <, >= or <=.")]
