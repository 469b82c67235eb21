"""A column the question names (by its full name) that the query never uses. No rewrite."""

from __future__ import annotations

import re

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.question import QuestionShape, singular
from groundsql.selection.shapes.common import (
    GENERIC,
    columns_used,
    content_tokens,
    name_tokens,
    question_shape,
    tables_read,
)


def check(q: QueryView) -> list[Finding]:
    """A column of a table the query reads, named in the question by its full name, that the query never uses."""
    shape = question_shape(q)
    schema = q.ctx.schema
    used = columns_used(q.tree)
    owners: dict[str, int] = {}
    for table in schema.tables:
        for column in table.columns:
            owners[column.name.lower()] = owners.get(column.name.lower(), 0) + 1
    table_words = " ".join(t.name.lower() for t in schema.tables)
    missing = []
    for table in tables_read(q.tree, schema):
        for column in table.columns:
            tokens = content_tokens(column.name)
            if (not tokens or column.name.lower() in used or any(t.isdigit() for t in tokens)
                    or (len(tokens) == 1 and tokens[0] in table_words)):  # 'orchestra', 'language': the entity
                continue
            specific = len(tokens) >= 2 and not set(tokens) <= GENERIC
            rare = len(tokens) == 1 and tokens[0] not in GENERIC and len(tokens[0]) >= 4 and \
                owners.get(column.name.lower(), 0) == 1
            named = _phrase_in(tokens, shape.text) or (len(tokens) >= 3 and any(
                _phrase_in(tokens[i:i + 2], shape.text) for i in range(len(tokens) - 1)))
            if (specific or rare) and all(t in shape.words for t in tokens) and named \
                    and not _named_by_other(column.name, tokens, q, used):
                missing.append(f"{table.name}.{column.name}")
    missing += _unread_named_columns(q, shape, used)
    if not missing:
        return []
    names = ", ".join(missing[:3])
    return [Finding(
        "missing_column",
        f"the question names {names}, which the query does not use",
        f"The question mentions {names}; the query never uses it. Show or filter on it if the question asks "
        f"for it.")]


def _unread_named_columns(q: QueryView, shape: QuestionShape, used: set[str]) -> list[str]:
    """Columns of tables the query does not read that the question names by their full name of two or more
    specific words ('source airport' for flights.SourceAirport), where no column the query reads carries those
    words."""
    read = {table.name.lower() for table in tables_read(q.tree, q.ctx.schema)}
    readable = [name_tokens(column.name) for table in q.ctx.schema.tables if table.name.lower() in read
                for column in table.columns]
    found = []
    for table in q.ctx.schema.tables:
        if table.name.lower() in read:
            continue
        for column in table.columns:
            tokens = content_tokens(column.name)
            if (len(tokens) < 2 or set(tokens) <= GENERIC or any(t.isdigit() for t in tokens)
                    or column.name.lower() in used or tokens in readable or not _phrase_in(tokens, shape.text)
                    or _named_by_other(column.name, tokens, q, used)):
                continue
            found.append(f"{table.name}.{column.name}")
    return found


def _phrase_in(tokens: list[str], text: str) -> bool:
    """Whether the tokens appear next to each other (in order, plurals allowed) in the question text."""
    words = [singular(w) for w in re.findall(r"[a-z0-9]+", text.lower())]
    n = len(tokens)
    return any(words[i:i + n] == tokens for i in range(len(words) - n + 1))


def _named_by_other(name: str, tokens: list[str], q: QueryView, used: set[str]) -> bool:
    """Whether a used column carries the same words (the question's mention is then already served)."""
    return any(name_tokens(other) == tokens for other in used if other != name.lower())
