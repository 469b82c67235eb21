"""``sort_direction``: a list sorted in descending order where the question asks for an order but never for a
descending one ('ordered by average share count' sorted highest first): a sort without a stated direction is
ascending. A question that asks for no order at all leaves the presentation to the query. Rewrite: the same
sort, ascending. Lists cut by a LIMIT are left alone: there the direction picks which rows are kept ('the 3
largest'), which the superlative checks read."""

from __future__ import annotations

import re

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import default_nulls_first, question_shape

NAME = "sort_direction"
#: Words that ask for a descending order, or for the largest or latest first.
_DESCENDING = re.compile(
    r"\b(desc\w*|decreas\w*|revers\w*|downward|most|greatest|largest|highest|biggest|latest|newest|recent\w*|top|"
    r"best|(?:high|large|big|great|old|new|late|long|many)\w* (?:to|down to) \w+|(?:z|9) to (?:a|0))\b",
    re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    select = q.select
    order = select.args.get("order")
    if order is None or select.args.get("limit") is not None or select.args.get("offset") is not None:
        return []
    descending = [o for o in order.expressions if o.args.get("desc")]
    if not descending or not question_shape(q).ordered or _DESCENDING.search(q.ctx.question):
        return []  # a question that asks for no order leaves the presentation to the query (most first is fine)
    rewrite = select.copy()
    nulls_first = default_nulls_first(q.ctx.db.dialect)
    for ordered in rewrite.args["order"].expressions:
        if ordered.args.get("desc"):
            ordered.set("desc", False)
            ordered.set("nulls_first", nulls_first)  # where the engine puts NULLs in an ascending sort
    keys = ", ".join(o.this.sql(dialect=q.ctx.db.dialect) for o in descending)
    return [Finding(
        NAME, f"the rows are sorted by {keys} in descending order, which the question does not ask for",
        f"The question asks for an order without saying descending (or largest, latest, most first), so sort by "
        f"{keys} ascending.", rewrite=rewrite.sql(dialect=q.ctx.db.dialect))]

