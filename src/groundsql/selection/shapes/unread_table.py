"""The question names a table by its one-word name, the query never reads it, and no table it reads has a
key to it. No rewrite."""

from __future__ import annotations

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import GENERIC, VERBS, name_tokens, question_shape, tables_read


def check(q: QueryView) -> list[Finding]:
    """A table the question names by its own one-word name ('documents', 'orchestras') that the query never
    reads, while no column of the tables it reads carries that word."""
    shape, schema = question_shape(q), q.ctx.schema
    tables = tables_read(q.tree, schema)
    read = {t.name.lower() for t in tables}
    column_words = {w for t in tables for c in t.columns for w in name_tokens(c.name)}
    referenced = {fk.ref_table.lower() for t in tables for fk in t.foreign_keys}  # a key to it serves the mention
    unread = []
    for table in schema.tables:
        tokens = name_tokens(table.name)
        if (len(tokens) != 1 or table.name.lower() in read | referenced or tokens[0] in GENERIC | VERBS
                or len(tokens[0]) < 4 or tokens[0] in column_words or tokens[0] not in shape.words):
            continue
        unread.append(table.name)
    if not unread:
        return []
    names = ", ".join(unread[:3])
    return [Finding(
        "unread_table", f"the question names {names}, which the query never reads",
        f"The question is about {names}, but the query reads no such table; join it (or filter through it) if the "
        f"question's condition is about it.")]
