"""'The largest number of …' and the query counts nothing. No rewrite."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import question_shape

_RANK_BY_COUNT = re.compile(r"\b(most|fewest|least|largest|greatest|highest|smallest|lowest|biggest)\s+"
                            r"(number|count|amount)\s+of\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    """'The largest number of …': the rows are ranked by a count, but the query counts nothing."""
    if not _RANK_BY_COUNT.search(question_shape(q).text) or q.tree.find(exp.Count):
        return []
    return [Finding(
        "count_rank",
        "the question ranks by how many there are, but the query counts nothing",
        "The question ranks by a number of items ('the largest number of …'): group and order by COUNT(…) of "
        "those items.")]
