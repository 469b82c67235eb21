"""Where each column of a query comes from, scope by scope: the evidence the tree repairs act on.

Unlike `references.sql_refs` (which qualifies a copy of the tree to list what a query reads), this keeps the
caller's tree untouched and points at its own `exp.Column` nodes, so a repair can rewrite them in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from groundsql.catalog.schema import Schema, Table

#: How a column resolved: `ok` (one source has it), `missing` (its qualifier's table lacks it), `unknown` (no
#: source in reach has it), `ambiguous` (several tables of its scope have it, unqualified), `opaque` (we cannot
#: tell: a derived table without a known column list, an unknown table, a qualifier we cannot place).
STATUSES = ("ok", "missing", "unknown", "ambiguous", "opaque")


@dataclass
class Source:
    """One FROM/JOIN entry of a scope: a schema table (`table`) or a derived table/CTE (`outputs`)."""

    alias: str
    node: exp.Expression
    table: Table | None = None
    outputs: set[str] | None = None  # lower-cased output names of a derived table; None when unknown

    @property
    def is_table(self) -> bool:
        return self.table is not None

    def has(self, name: str) -> bool | None:
        """Whether this source offers column `name`; None when it cannot be told."""
        if self.table is not None:
            return self.table.column(name) is not None
        if self.outputs is None:
            return None
        return name.lower() in self.outputs


@dataclass
class ColumnUse:
    """One `exp.Column` node of a query and what it resolved to."""

    node: exp.Column
    scope: ScopeView
    status: str
    source: Source | None = None  # the source it resolved to (or, for `missing`, the one its qualifier names)
    candidates: list[Source] = field(default_factory=list)  # for `ambiguous`: every source that has it

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class ScopeView:
    """A SELECT scope with its sources resolved against the schema."""

    scope: Scope
    select: exp.Select
    sources: list[Source]
    parent: ScopeView | None = None
    output_names: set[str] = field(default_factory=set)

    def source(self, alias: str) -> Source | None:
        lowered = alias.lower()
        return next((s for s in self.sources if s.alias.lower() == lowered), None)

    def tables(self) -> list[Source]:
        return [s for s in self.sources if s.is_table]

    def reachable(self, alias: str) -> Source | None:
        """The source an alias names here or in an enclosing scope (a correlated reference)."""
        view: ScopeView | None = self
        while view is not None:
            found = view.source(alias)
            if found is not None:
                return found
            view = view.parent
        return None


@dataclass
class Resolution:
    """Every SELECT scope of a query and every column use, in tree order."""

    tree: exp.Expression
    scopes: list[ScopeView]
    columns: list[ColumnUse]
    unknown_tables: list[exp.Table]

    def problems(self) -> list[ColumnUse]:
        return [c for c in self.columns if c.status in ("missing", "unknown", "ambiguous")]


def resolve(tree: exp.Expression, schema: Schema, dialect: str) -> Resolution | None:
    """Resolve every column of `tree` against `schema`; None when sqlglot cannot build its scopes."""
    try:
        scopes = traverse_scope(tree)
    except (SqlglotError, ValueError, KeyError):
        return None
    views: dict[int, ScopeView] = {}
    unknown_tables: list[exp.Table] = []
    for scope in scopes:  # inner scopes come first; parents are attached below
        if not isinstance(scope.expression, exp.Select):
            continue
        sources = []
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table):
                table = schema.table(source.name) if source.name else None
                if table is None and source.name and not source.args.get("db"):
                    unknown_tables.append(source)
                sources.append(Source(alias=alias, node=source, table=table))
            elif isinstance(source, Scope):
                sources.append(Source(alias=alias, node=source.expression, outputs=_outputs(source.expression)))
        outputs = {e.alias.lower() for e in scope.expression.expressions if isinstance(e, exp.Alias) and e.alias}
        views[id(scope)] = ScopeView(scope=scope, select=scope.expression, sources=sources, output_names=outputs)
    for scope in scopes:
        view = views.get(id(scope))
        parent = scope.parent
        while view is not None and parent is not None and id(parent) not in views:
            parent = parent.parent
        if view is not None and parent is not None:
            view.parent = views[id(parent)]
    uses: list[ColumnUse] = []
    for view in views.values():
        for node in view.select.find_all(exp.Column):
            if node.find_ancestor(exp.Select) is not view.select or isinstance(node.this, exp.Star):
                continue
            uses.append(_resolve_column(node, view, dialect))
    order = {id(node): position for position, node in enumerate(tree.walk())}
    uses.sort(key=lambda use: order.get(id(use.node), 0))
    return Resolution(tree=tree, scopes=list(views.values()), columns=uses, unknown_tables=unknown_tables)


def _resolve_column(node: exp.Column, view: ScopeView, dialect: str) -> ColumnUse:
    name, qualifier = node.name, node.table
    if qualifier:
        source = view.reachable(qualifier)
        if source is None or source.table is None and source.outputs is None:
            return ColumnUse(node, view, "opaque", source)
        has = source.has(name)
        if has is None:
            return ColumnUse(node, view, "opaque", source)
        return ColumnUse(node, view, "ok" if has else "missing", source)
    scope: ScopeView | None = view
    while scope is not None:
        having = [s for s in scope.sources if s.has(name)]
        if any(s.has(name) is None for s in scope.sources):
            return ColumnUse(node, view, "opaque")
        if len(having) == 1:
            return ColumnUse(node, view, "ok", having[0])
        if len(having) > 1:
            return ColumnUse(node, view, "ambiguous", candidates=having)
        if scope is view and name.lower() in view.output_names and not _inside_alias_of(node, name):
            return ColumnUse(node, view, "ok")  # an output alias (ORDER BY, HAVING, GROUP BY)
        scope = scope.parent
    if dialect == "sqlite" and node.this.args.get("quoted"):
        return ColumnUse(node, view, "opaque")  # SQLite reads an unresolvable "double-quoted" name as a string
    return ColumnUse(node, view, "unknown")


def _inside_alias_of(node: exp.Column, name: str) -> bool:
    """Whether the column sits inside the select item that defines the alias `name` (`x AS x` is no alias use)."""
    alias = node.find_ancestor(exp.Alias)
    return alias is not None and alias.alias.lower() == name.lower()


def _outputs(expression: exp.Expression) -> set[str] | None:
    """Lower-cased output names of a derived table or CTE; None when it selects `*`."""
    select = expression
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select):
        return None
    if any(isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
           for e in select.expressions):
        return None
    return {name.lower() for name in select.named_selects}
