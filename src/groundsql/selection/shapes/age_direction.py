"""``age_direction``: 'the oldest' (or 'youngest', 'from old to young') answered in the direction that picks the
other end. Which end is oldest depends on what the column measures, and the schema says it: an age grows with
being old (oldest = largest), a birth date, a founding year or any other point in time shrinks (oldest =
earliest). The check reads the sort keys of the outermost query and the MAX / MIN of every query level over such
a column and flags the one that runs the wrong way. Rewrite: the same query with that sort or aggregate
reversed. Questions that name both ends ('the oldest and the youngest') are left alone."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.catalog.schema import Table
from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import default_nulls_first, name_tokens, to_sql

NAME = "age_direction"
_OLD_END = r"old|older|oldest|eldest|earliest"
_YOUNG_END = r"young|younger|youngest|newest|latest|most\s+recent"
#: 'from old to young' / 'from the most recent to the oldest': an order whose first end is named first.
_RANGE = re.compile(rf"\b(?:(?P<old>{_OLD_END})|{_YOUNG_END})\s+to\s+(?:the\s+)?(?:{_OLD_END}|{_YOUNG_END})\b",
                    re.IGNORECASE)
#: 'from … to the oldest' ending a range whose start is said in other words: the other end comes first.
_TO_END = re.compile(r"\bto\s+(?:the\s+)?(?:(?P<old>oldest|eldest)|youngest)\b", re.IGNORECASE)
#: 'the oldest', 'the youngest' (outside such a range).
_OLD = re.compile(r"\b(?:oldest|eldest)\b", re.IGNORECASE)
_YOUNG = re.compile(r"\byoungest\b", re.IGNORECASE)
#: Name words of a column that holds a point in time (oldest = earliest).
_TIME_WORDS = frozenset({"birth", "born", "dob", "birthday", "date", "year", "time", "founded", "established",
                         "built", "opened", "since", "start", "joined", "created", "hired", "timestamp"})
#: Declared types of a point in time.
_TIME_TYPE = re.compile(r"date|time|year", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    text = q.ctx.question
    ranges = list(_RANGE.finditer(text))
    ends = [m for m in _TO_END.finditer(text) if re.search(r"\bfrom\b", text[:m.start()], re.IGNORECASE)]
    if ranges:
        old = young = False
        for match in ranges:
            old, young = old or bool(match.group("old")), young or not match.group("old")
    elif ends:  # '… to the oldest': the young end first
        old, young = any(not m.group("old") for m in ends), any(m.group("old") for m in ends)
    else:
        old, young = bool(_OLD.search(text)), bool(_YOUNG.search(text))
    if old == young:
        return []  # neither end asked, or both: nothing to compare with
    for node, big in _directions(q):
        measure = _measure(q, node.this)
        if measure is None:
            continue
        wants_big = old if measure == "age" else young
        if big == wants_big:
            continue
        position = next(i for i, n in enumerate(q.tree.walk()) if n is node)
        rewrite = q.tree.copy()
        _reverse(next(n for i, n in enumerate(rewrite.walk()) if i == position), q.ctx.db.dialect)
        column = node.this.sql(dialect=q.ctx.db.dialect)
        end = "oldest" if old else "youngest"
        how = ("the largest" if measure == "age" else "the earliest") if end == "oldest" else \
            ("the smallest" if measure == "age" else "the latest")
        return [Finding(
            NAME, f"the question asks for the {end}, but the query takes the other end of {column}",
            f"{column} is {'an age' if measure == 'age' else 'a point in time'}, so the {end} is {how} value: "
            f"reverse the sort or the MIN/MAX on it.", rewrite=to_sql(q, rewrite))]
    return []


def _directions(q: QueryView) -> list[tuple[exp.Expression, bool]]:
    """Each sort key of the outermost query and each MAX / MIN anywhere, with whether it picks the large end."""
    found: list[tuple[exp.Expression, bool]] = []
    order = q.select.args.get("order")
    for ordered in order.expressions if order is not None else []:
        found.append((ordered, bool(ordered.args.get("desc"))))
    for function in q.tree.find_all(exp.Max, exp.Min):
        found.append((function, isinstance(function, exp.Max)))
    return found


def _measure(q: QueryView, node: exp.Expression) -> str | None:
    """'age' for a column that holds an age, 'time' for a point in time, None for anything else."""
    if not isinstance(node, exp.Column):
        return None
    words = set(name_tokens(node.name))
    if "age" in words:
        return "age"
    table = _table(q, node)
    column = next((c for c in table.columns if c.name.lower() == node.name.lower()), None) if table else None
    declared = (column.source_type or column.type) if column is not None else ""
    if words & _TIME_WORDS or (declared and _TIME_TYPE.search(declared)):
        return "time"
    return None


def _table(q: QueryView, column: exp.Column) -> Table | None:
    found = q.table_of(column)
    if found is not None:
        return found
    owners = [t for t in q.sources.values() if any(c.name.lower() == column.name.lower() for c in t.columns)]
    return owners[0] if len(owners) == 1 else None


def _reverse(node: exp.Expression, dialect: str) -> None:
    if isinstance(node, exp.Ordered):
        desc = not node.args.get("desc")
        node.set("desc", desc)
        node.set("nulls_first", default_nulls_first(dialect, desc))  # where the engine puts NULLs by itself
    else:
        node.replace((exp.Min if isinstance(node, exp.Max) else exp.Max)(this=node.this.copy()))

