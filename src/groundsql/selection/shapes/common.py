"""What the question-shape checks share: the question's reading, small readers of a query's tree, schema names
as words, and the generic words that name too many things to mean one column or table."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from groundsql.catalog.schema import Schema, Table
from groundsql.selection.query_view import QueryView
from groundsql.selection.question import QuestionShape, read_question, singular

#: Generic column words that name too many things for a mention in the question to mean one column.
GENERIC = frozenset({"id", "ids", "name", "names", "code", "type", "date", "year", "time", "number", "no", "num",
                     "key", "value", "status", "description", "title", "kind", "category", "flag", "count",
                     "total", "amount", "other", "details", "info", "data", "text", "note"})
#: Words that open or steer a question rather than name a thing ('show', 'list'): never a table mention.
VERBS = frozenset({"show", "list", "find", "give", "return", "display", "order", "rank", "sort", "count", "name",
                   "tell", "compute", "report"})


def question_shape(q: QueryView) -> QuestionShape:
    return read_question(q.ctx.question)


def aggregates(node: exp.Expression) -> bool:
    return node.find(exp.AggFunc) is not None


def limit_value(select: exp.Select) -> int | None:
    limit = select.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if isinstance(count, exp.Literal) and count.is_int:
        return int(count.this)
    return None


def to_sql(q: QueryView, tree: exp.Expression) -> str:
    return tree.sql(dialect=q.ctx.db.dialect)


def primary_key(q: QueryView, table: Table) -> list[str]:
    """`table`'s primary key columns: the declared key, else the one the catalog inferred (empty when neither)."""
    if table.primary_key:
        return list(table.primary_key)
    profile = q.ctx.catalog.table(table.name) if q.ctx.catalog is not None else None
    return list(profile.primary_key) if profile is not None else []


def is_own_key(q: QueryView, table: Table, column: str) -> bool:
    """Whether `column` alone is `table`'s primary key (declared, else the catalog's inferred one)."""
    return [k.lower() for k in primary_key(q, table)] == [column.lower()]


def named_by_own_words(q: QueryView, table: str, others: list[str]) -> bool:
    """Whether the question uses a distinctive word of `table`'s name: singular, three letters or more, not a
    generic word, and not a word of any of the `others`' names ('singer' names the singer table beside
    singer_in_concert; 'concert' names the latter)."""
    words = read_question(q.ctx.question).words
    shared = {w for name in others for w in name_tokens(name)}
    return any(len(w) > 2 and w not in GENERIC and w not in shared and w in words for w in name_tokens(table))


def name_tokens(name: str) -> list[str]:
    """A schema name as lower-case singular words: 'MediaTypeId' → ['media', 'type', 'id'], 'birth_date' →
    ['birth', 'date']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [singular(w) for w in re.findall(r"[a-z0-9]+", spaced.lower())]


def content_tokens(name: str) -> list[str]:
    """`name_tokens` without a boolean prefix ('IsOfficial' → ['official'], 'has_children' → ['children'])."""
    tokens = name_tokens(name)
    return tokens[1:] if len(tokens) > 1 and tokens[0] in ("is", "has", "was", "are") else tokens


def columns_used(tree: exp.Expression) -> set[str]:
    return {c.name.lower() for c in tree.find_all(exp.Column)}


def tables_read(tree: exp.Expression, schema: Schema) -> list:
    tables = []
    for node in tree.find_all(exp.Table):
        found = schema.table(node.name)
        if found is not None and found not in tables:
            tables.append(found)
    return tables


def default_nulls_first(dialect: str, desc: bool = False) -> bool:
    """Whether `dialect` puts NULLs first in a plain sort of that direction (so a rewritten sort needs no NULLS)."""
    sql = f"SELECT x FROM t ORDER BY x{' DESC' if desc else ''}"
    return bool(sqlglot.parse_one(sql, read=dialect).args["order"].expressions[0].args.get("nulls_first"))
