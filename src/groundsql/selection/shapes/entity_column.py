"""'Which genre …' answered with another table's column while the genre table is joined
(lineage). No rewrite."""

from __future__ import annotations

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import aggregates, name_tokens, question_shape


def check(q: QueryView) -> list[Finding]:
    """'Which genre …' answered with another table's column while the genre table itself is in the query."""
    shape, select = question_shape(q), q.select
    if shape.entity is None or shape.one_number:
        return []
    entity = shape.entity.split()
    tables = {alias: table for alias, table in q.sources.items()}
    target = [a for a, t in tables.items() if name_tokens(t.name) == entity
              or name_tokens(t.name) == entity[-len(name_tokens(t.name)):]]
    if len(target) != 1:
        return []
    alias = target[0]
    shown = [e.unalias() for e in select.expressions if not aggregates(e)]
    columns = [c for c in shown if isinstance(c, exp.Column)]
    if not columns or any(c.table == alias for c in columns):
        return []
    others = sorted({f"{tables[c.table].name}.{c.name}" for c in columns if c.table in tables})
    if not others or any(name_tokens(c.name)[:len(entity)] == entity for c in columns):
        return []
    table = tables[alias].name
    return [Finding(
        "entity_column",
        f"the question asks which {shape.entity}, but the answer shows {', '.join(others)}, not a column of "
        f"{table}",
        f"The question asks for {shape.entity} items: show {table}'s own column(s) (its name or id), not "
        f"{', '.join(others)}.")]
