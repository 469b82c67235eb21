"""One query as the deterministic checks see it: its qualified syntax tree, the tables of its outermost SELECT,
the catalog's profiles, and guarded probe queries; and `Finding`, what a check reports.

Shared by the result sanity checks (`selection.checks`) and the question-shape checks (`selection.shape`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify

from groundsql.answer import Candidate
from groundsql.catalog.profiles import ColumnProfile
from groundsql.catalog.schema import Table
from groundsql.context import Context
from groundsql.errors import DatabaseError

log = logging.getLogger("groundsql")


@dataclass(frozen=True)
class Finding:
    """One problem a check found: `message` for the reader, `hint` for the model in a repair round, and, where the
    check can name one, `rewrite`: the query with the problem removed (a proposal to run and judge, never applied
    by the check itself). `empty_ok` marks a rewrite of a query that is wrong whatever the data holds (a set
    operation of one query with itself, 'both' kept as 'either'): there an empty result is the answer, not a sign
    that the rewrite broke the query."""

    check: str
    message: str
    hint: str
    rewrite: str = ""
    empty_ok: bool = False


@dataclass
class QueryView:
    """What the checks share about one query: the qualified tree and the tables of its outermost SELECT."""

    ctx: Context
    candidate: Candidate
    tree: exp.Expression
    select: exp.Select
    sources: dict[str, Table]  # alias (or name) → schema table, for the outermost SELECT's FROM and JOINs

    def table_of(self, column: exp.Column) -> Table | None:
        return self.sources.get(column.table) if column.table else None

    def profile(self, table: Table, column: str) -> ColumnProfile | None:
        catalog = self.ctx.catalog
        return catalog.column(table.name, column) if catalog is not None else None

    def probe(self, tree: exp.Expression, check: str) -> list[tuple] | None:
        """Rows of a probe query, or None when it fails (a probe never turns into a finding by failing)."""
        try:
            return self.ctx.query(tree.sql(dialect=self.ctx.db.dialect), step=f"check:{check}", max_rows=5).rows
        except DatabaseError as exc:
            log.debug("sanity probe %s failed: %s", check, exc)
            return None


def prepare(ctx: Context, candidate: Candidate) -> QueryView | None:
    """The candidate's query qualified against the schema; None when it does not parse or is not a SELECT."""
    tree = _qualified(ctx, candidate)
    if not isinstance(tree, exp.Select):
        return None
    return QueryView(ctx=ctx, candidate=candidate, tree=tree, select=tree, sources=table_sources(ctx, tree))


def prepare_set_operation(ctx: Context, candidate: Candidate) -> QueryView | None:
    """A UNION / INTERSECT / EXCEPT qualified against the schema, for the checks that read its branches
    (`set_branches`); `select` is its first branch. None when the query is not a set operation."""
    tree = _qualified(ctx, candidate)
    if not isinstance(tree, exp.SetOperation):
        return None
    branches = set_branches(tree)
    if not branches:
        return None
    return QueryView(ctx=ctx, candidate=candidate, tree=tree, select=branches[0], sources=table_sources(ctx, branches[0]))


def set_branches(tree: exp.Expression) -> list[exp.Select]:
    """The SELECTs a set operation combines, left to right (nested set operations included)."""
    if isinstance(tree, exp.Select):
        return [tree]
    if isinstance(tree, exp.Subquery):
        return set_branches(tree.this)
    if isinstance(tree, exp.SetOperation):
        return set_branches(tree.this) + set_branches(tree.expression)
    return []


def _qualified(ctx: Context, candidate: Candidate) -> exp.Expression | None:
    dialect = ctx.db.dialect
    try:
        tree = sqlglot.parse_one(candidate.sql, read=dialect)
    except SqlglotError:
        return None
    mapping = {t.name: {c.name: (c.type or "TEXT") for c in t.columns} for t in ctx.schema.tables}
    try:
        return qualify(tree, schema=mapping, dialect=dialect, validate_qualify_columns=False,
                       quote_identifiers=False, identify=False)
    except SqlglotError:
        return None


def table_sources(ctx: Context, select: exp.Select) -> dict[str, Table]:
    """Alias (or name) → schema table, for the tables in `select`'s own FROM and JOINs."""
    sources = {}
    for table in direct_tables(select):
        found = ctx.schema.table(table.name)
        if found is not None:
            sources[table.alias_or_name] = found
    return sources


def direct_tables(select: exp.Select) -> Iterator[exp.Table]:
    """Tables named directly in the SELECT's FROM and JOIN clauses (not in subqueries)."""
    from_ = select.args.get("from") or select.args.get("from_")
    if from_ is not None and isinstance(from_.this, exp.Table):
        yield from_.this
    for join in select.args.get("joins") or []:
        if isinstance(join.this, exp.Table):
            yield join.this


def own_nodes(select: exp.Select, kind: type) -> Iterator[exp.Expression]:
    """Nodes of `kind` in `select` that do not sit inside a nested query."""
    for node in select.find_all(kind):
        parent = node.parent
        nested = False
        while parent is not None and parent is not select:
            if isinstance(parent, (exp.Select, exp.Subquery)):
                nested = True
                break
            parent = parent.parent
        if not nested:
            yield node


def short(sql: str, limit: int = 400) -> str:
    return sql if len(sql) <= limit else sql[: limit - 1] + "…"


def inner_joins(select: exp.Select) -> list[exp.Join]:
    return [j for j in select.args.get("joins") or [] if (j.side or "").upper() not in ("LEFT", "RIGHT", "FULL")]


def body(select: exp.Select, *expressions: exp.Expression) -> exp.Select:
    """The SELECT's FROM, JOINs and WHERE with new projections (no grouping, ordering or limit)."""
    probe = select.copy()
    for key in ("group", "having", "order", "limit", "offset", "distinct", "qualify"):
        probe.set(key, None)
    probe.set("expressions", list(expressions))
    return probe
