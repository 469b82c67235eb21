"""Compile views of the DSL to a sqlglot expression, then to any dialect groundsql connects to.

A view that reads earlier views compiles to one query with those views as CTEs, so every query stands alone
and runs through the guarded `Database.execute`. Names are checked against the tables and the earlier views;
an unknown one is a `ViewError` that names the nearest real names.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from groundsql.analysis.dsl import COMPARISONS, Condition, Metric, View
from groundsql.analysis.functions import AGGREGATES, allowed, allowed_names, function_name
from groundsql.errors import ViewError

#: Dialects a view compiles to (sqlglot names).
DIALECTS = ("sqlite", "duckdb", "postgres", "mysql", "spark")

_REFUSED_NODES: tuple[type[exp.Expression], ...] = tuple(
    node for node in (getattr(exp, name, None) for name in (
        "Query", "Subquery", "Window", "Table", "Placeholder", "Parameter", "SessionParameter", "Command",
        "Lambda", "Exists", "Any", "All", "Into", "Schema",
    )) if isinstance(node, type)
)


@dataclass(frozen=True)
class Relation:
    """Something a view can read: a database table or an earlier view, with its column names."""

    name: str
    columns: tuple[str, ...]
    is_view: bool = False

    def column(self, name: str) -> str | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.lower() == lowered), None)


@dataclass
class CompiledView:
    """A view as a standalone query (earlier views it reads are CTEs) and its output columns."""

    view: View
    expression: exp.Select
    columns: list[str]
    depends_on: list[str] = field(default_factory=list)
    body: exp.Select | None = field(default=None, repr=False)  # the view's own SELECT, without its CTEs

    def sql(self, dialect: str, *, pretty: bool = False) -> str:
        return portable(self.expression, dialect).sql(dialect=dialect, pretty=pretty)


class ViewCompiler:
    """Compiles views against known tables; each added view becomes readable by the views after it.

    Args:
        tables: table name → column names (as spelled in the database).
        dialect: the sqlglot dialect the queries are for (decides which functions are allowed).
    """

    def __init__(self, tables: Mapping[str, Sequence[str]], dialect: str):
        self.dialect = dialect
        self.tables = {name.lower(): Relation(name, tuple(cols)) for name, cols in tables.items()}
        self.views: dict[str, CompiledView] = {}
        self._bodies: dict[str, exp.Select] = {}

    # -- public ----------------------------------------------------------------------------------

    def compile(self, view: View) -> CompiledView:
        """Compile `view` without adding it (see `add`)."""
        if view.name.lower() in self.tables:
            raise ViewError(view.name, "name", f"'{view.name}' is already a table; choose another view name")
        body, columns, deps = _ViewBuilder(self, view).build()
        ordered = self._closure(deps)
        query = body.copy()
        for name in ordered:
            alias = exp.TableAlias(this=exp.to_identifier(self.views[name].view.name, quoted=True))
            query = query.with_(alias, as_=self._bodies[name].copy(), copy=False)
        return CompiledView(view=view, expression=query, columns=columns,
                            depends_on=[self.views[n].view.name for n in ordered], body=body)

    def add(self, view: View) -> CompiledView:
        """Compile `view` and make it readable by later views; a name already used is replaced."""
        compiled = self.compile(view)
        key = view.name.lower()
        self.views[key] = compiled
        assert compiled.body is not None
        self._bodies[key] = compiled.body
        return compiled

    def relation(self, name: str) -> Relation | None:
        key = name.strip().strip('`"[]').lower()
        if key in self.views:
            compiled = self.views[key]
            return Relation(compiled.view.name, tuple(compiled.columns), is_view=True)
        return self.tables.get(key)

    def relation_names(self) -> list[str]:
        return [r.name for r in self.tables.values()] + [v.view.name for v in self.views.values()]

    # -- dependencies ----------------------------------------------------------------------------

    def _closure(self, deps: Iterable[str]) -> list[str]:
        """The earlier views `deps` need, transitively, in definition order (CTEs must come first)."""
        needed: set[str] = set()
        stack = [d.lower() for d in deps]
        while stack:
            name = stack.pop()
            if name in needed or name not in self.views:
                continue
            needed.add(name)
            stack.extend(d.lower() for d in self.views[name].depends_on)
        return [name for name in self.views if name in needed]


def compile_views(views: Sequence[View], tables: Mapping[str, Sequence[str]], dialect: str) -> list[CompiledView]:
    """Compile views in order, each able to read the ones before it."""
    compiler = ViewCompiler(tables, dialect)
    return [compiler.add(v) for v in views]


def tables_of(schema) -> dict[str, list[str]]:
    """Table name → column names of a `groundsql.catalog.Schema`."""
    return {t.name: [c.name for c in t.columns] for t in schema.tables}


def nearest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The candidates closest to `name` (case-insensitive), best first; substring matches count too."""
    pool = list(dict.fromkeys(candidates))
    lowered = {c.lower(): c for c in pool}
    key = name.lower().split(".")[-1]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.55)
    close += difflib.get_close_matches(key, [c.split(".")[-1] for c in lowered], n=n, cutoff=0.6)
    found = [lowered[c] for c in close if c in lowered]
    found += [c for c in pool if c.split(".")[-1].lower() == key or (len(key) > 2 and key in c.lower())]
    found += [c for c in pool if c.split(".")[-1].lower() in {k for k in close}]
    return list(dict.fromkeys(found))[:n]


class _ViewBuilder:
    """Builds the SELECT of one view: resolves names in its scope, checks expressions, assembles clauses."""

    def __init__(self, compiler: ViewCompiler, view: View):
        self.compiler = compiler
        self.view = view
        self.scope: dict[str, tuple[str, Relation]] = {}  # alias (lower) → (alias as written, relation)
        self.deps: list[str] = []
        self.outputs: dict[str, exp.Expression] = {}  # output name (lower) → its (unaliased) expression
        self.metric_names: set[str] = set()

    def error(self, where: str, problem: str, suggestions: Sequence[str] = ()) -> ViewError:
        return ViewError(self.view.name, where, problem, list(suggestions))

    # -- scope -----------------------------------------------------------------------------------

    def _enter(self, name: str, alias: str | None, where: str) -> exp.Table:
        relation = self.compiler.relation(name)
        if relation is None:
            raise self.error(where, f"unknown table or view '{name}'",
                             nearest(name, self.compiler.relation_names()))
        written = alias or relation.name
        if written.lower() in self.scope:
            raise self.error(where, f"'{written}' appears twice; give the second one an alias")
        self.scope[written.lower()] = (written, relation)
        if relation.is_view:
            self.deps.append(relation.name)
        table = exp.Table(this=exp.to_identifier(relation.name, quoted=True))
        if alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
        return table

    def _scope_columns(self) -> list[str]:
        return [f"{alias}.{c}" for alias, rel in self.scope.values() for c in rel.columns]

    def resolve_column(self, table: str | None, name: str, where: str, *, outputs: bool = False) -> exp.Expression:
        """A column of a relation in scope, qualified and quoted; with `outputs`, a bare name may also be an
        output column of this view (ORDER BY, HAVING)."""
        if table:
            entry = self.scope.get(table.lower())
            if entry is None:
                hint = nearest(table, [a for a, _ in self.scope.values()])
                other = self.compiler.relation(table)
                problem = f"'{table}' is not in this view (source or joins)"
                if other is not None:
                    problem += f"; join {other.name} first"
                raise self.error(where, problem, [f"{h}.{name}" for h in hint] or hint)
            alias, relation = entry
            column = relation.column(name)
            if column is None:
                raise self.error(where, f"{relation.name} has no column '{name}'",
                                 [f"{alias}.{c}" for c in nearest(name, relation.columns)])
            return exp.column(exp.to_identifier(column, quoted=True), table=exp.to_identifier(alias, quoted=True))
        if outputs and name.lower() in self.outputs:
            return exp.column(exp.to_identifier(self._output_name(name), quoted=True))
        hits = [(alias, rel.column(name)) for alias, rel in self.scope.values() if rel.column(name)]
        if not hits:
            pool = self._scope_columns() + (list(self.outputs) if outputs else [])
            elsewhere = [f"{r.name}.{r.column(name)}" for r in self.compiler.tables.values() if r.column(name)]
            problem = f"unknown column '{name}'"
            if elsewhere:
                problem += f" (it is in {', '.join(elsewhere[:3])}; join that table first)"
            raise self.error(where, problem, nearest(name, pool))
        if len(hits) > 1:
            raise self.error(where, f"column '{name}' is ambiguous; qualify it",
                             [f"{alias}.{col}" for alias, col in hits])
        alias, column = hits[0]
        return exp.column(exp.to_identifier(column, quoted=True), table=exp.to_identifier(alias, quoted=True))

    def _output_name(self, name: str) -> str:
        return next(n for n in self._written_outputs if n.lower() == name.lower())

    # -- expressions -----------------------------------------------------------------------------

    def expression(self, text: str, where: str, *, aggregates: bool = False, outputs: bool = False) -> exp.Expression:
        """Parse a view expression and check it: columns known, functions allowed, nothing but an expression."""
        text = (text or "").strip()
        if not text:
            raise self.error(where, "empty expression")
        direct = self._as_column(text, where, outputs)
        if direct is not None:
            return direct
        try:
            parsed = sqlglot.parse(text)
        except (ParseError, TokenError) as exc:
            raise self.error(where, f"cannot parse expression {text!r} ({str(exc).splitlines()[0][:120]})") from None
        if len(parsed) != 1 or parsed[0] is None:
            raise self.error(where, f"{text!r} must be one expression")
        tree = parsed[0]
        for node in list(tree.walk()):
            if isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
                raise self.error(where, f"{text!r}: list the columns you need instead of *")
            if isinstance(node, _REFUSED_NODES):
                kind = type(node).__name__.lower()
                raise self.error(where, f"{text!r}: a {kind} is not allowed in a view expression; use views, "
                                        "joins and conditions instead")
            if isinstance(node, AGGREGATES) and not aggregates:
                raise self.error(where, f"{text!r}: aggregates belong in metrics (agg + expr), not here")
            if isinstance(node, exp.Func) and not isinstance(node, AGGREGATES) and not allowed(node, self.compiler.dialect):
                raise self.error(where, f"function {function_name(node)}() is not allowed for "
                                        f"{self.compiler.dialect}; allowed: "
                                        f"{', '.join(allowed_names(self.compiler.dialect))}")
        for column in list(tree.find_all(exp.Column)):
            resolved = self.resolve_column(column.table or None, column.name, where, outputs=outputs)
            if column is tree:
                return resolved
            column.replace(resolved)
        return tree

    def _as_column(self, text: str, where: str, outputs: bool) -> exp.Expression | None:
        """`name` or `table.name` spelled like a real column (even one sqlglot would not parse, e.g. `Order`)."""
        parts = [p.strip().strip('`"[]') for p in text.split(".")]
        if len(parts) == 1 and (any(rel.column(parts[0]) for _, rel in self.scope.values())
                                or (outputs and parts[0].lower() in self.outputs)):
            return self.resolve_column(None, parts[0], where, outputs=outputs)
        if len(parts) == 2 and parts[0].lower() in self.scope and self.scope[parts[0].lower()][1].column(parts[1]):
            return self.resolve_column(parts[0], parts[1], where)
        return None

    # -- conditions ------------------------------------------------------------------------------

    def condition(self, cond: Condition, where: str, *, having: bool = False) -> exp.Expression:
        if cond.op in ("and", "or"):
            parts = [self.condition(c, f"{where}.conditions[{i}]", having=having) for i, c in enumerate(cond.conditions)]
            combine = exp.and_ if cond.op == "and" else exp.or_
            return exp.paren(combine(*parts, copy=False), copy=False)
        if cond.op == "not":
            return exp.not_(exp.paren(self.condition(cond.conditions[0], f"{where}.conditions[0]", having=having)))
        assert cond.column is not None
        left = self._having_side(cond.column, where) if having else self.expression(cond.column, f"{where}.column")
        if cond.view is not None:
            return self._against_view(cond, left, where)
        if cond.op == "is_null":
            return exp.Is(this=left, expression=exp.Null())
        if cond.op == "is_not_null":
            return exp.not_(exp.Is(this=left, expression=exp.Null()))
        if cond.op in ("in", "not_in"):
            assert isinstance(cond.value, list)
            if not cond.value:
                raise self.error(where, f"'{cond.op}' needs at least one value")
            node = exp.In(this=left, expressions=[_literal(v) for v in cond.value])
            return exp.not_(node) if cond.op == "not_in" else node
        if cond.op == "between":
            assert isinstance(cond.value, list)
            low, high = cond.value
            return exp.Between(this=left, low=_literal(low), high=_literal(high))
        if cond.op in ("like", "not_like"):
            node = exp.Like(this=left, expression=_literal(cond.value))
            return exp.not_(node) if cond.op == "not_like" else node
        if cond.op == "ilike":
            return exp.Like(this=exp.Lower(this=left), expression=exp.Lower(this=_literal(cond.value)))
        return _comparison(cond.op, left, _literal(cond.value))

    def _having_side(self, text: str, where: str) -> exp.Expression:
        """In HAVING, a metric's alias stands for its aggregate (PostgreSQL cannot read aliases there)."""
        key = text.strip().strip('`"').lower()
        if key in self.outputs:
            return self.outputs[key].copy()
        return self.expression(text, f"{where}.column", aggregates=True)

    def _against_view(self, cond: Condition, left: exp.Expression, where: str) -> exp.Expression:
        assert cond.view is not None and cond.view_column is not None
        relation = self.compiler.relation(cond.view)
        if relation is None or not relation.is_view:
            raise self.error(f"{where}.view", f"'{cond.view}' is not an earlier view",
                             nearest(cond.view, [v.view.name for v in self.compiler.views.values()]))
        column = relation.column(cond.view_column)
        if column is None:
            raise self.error(f"{where}.view_column", f"view {relation.name} has no column '{cond.view_column}'",
                             nearest(cond.view_column, relation.columns))
        self.deps.append(relation.name)
        query = exp.select(exp.column(exp.to_identifier(column, quoted=True))).from_(
            exp.Table(this=exp.to_identifier(relation.name, quoted=True)))
        if cond.op in ("in", "not_in"):
            node = exp.In(this=left, query=exp.Subquery(this=query))
            return exp.not_(node) if cond.op == "not_in" else node
        return _comparison(cond.op, left, exp.Subquery(this=query))

    # -- the view --------------------------------------------------------------------------------

    def build(self) -> tuple[exp.Select, list[str], list[str]]:
        view = self.view
        select = exp.Select()
        select = select.from_(self._enter(view.source, view.source_alias, "source"), copy=False)
        for i, join in enumerate(view.joins):
            table = self._enter(join.table, join.alias, f"joins[{i}].table")
            keys = []
            for k, key in enumerate(join.on):
                left = self.expression(key.left, f"joins[{i}].on[{k}].left")
                right = self.expression(key.right, f"joins[{i}].on[{k}].right")
                keys.append(exp.EQ(this=left, expression=right))
            kind = {"inner": None, "left": "LEFT", "right": "RIGHT", "full": "FULL"}[join.type]
            node = exp.Join(this=table, on=exp.and_(*keys, copy=False) if len(keys) > 1 else keys[0])
            if kind:
                node.set("side", kind)
            select.append("joins", node)
        projections, group = self._projections()
        select.set("expressions", projections)
        where = [self.condition(c, f"conditions[{i}]") for i, c in enumerate(view.conditions)]
        if where:
            select.set("where", exp.Where(this=exp.and_(*where, copy=False) if len(where) > 1 else where[0]))
        if view.metrics and group:
            select.set("group", exp.Group(expressions=group))
        if view.having:
            if not view.metrics:
                raise self.error("having", "having filters metrics; this view has none (use conditions)")
            having = [self.condition(c, f"having[{i}]", having=True) for i, c in enumerate(view.having)]
            select.set("having", exp.Having(this=exp.and_(*having, copy=False) if len(having) > 1 else having[0]))
        if view.order:
            select.set("order", exp.Order(expressions=[
                exp.Ordered(this=self.expression(o.expr, f"order[{i}]", outputs=True), desc=o.desc or None,
                            nulls_first=not o.desc)
                for i, o in enumerate(view.order)]))
        if view.limit is not None:
            select.set("limit", exp.Limit(expression=exp.Literal.number(view.limit)))
        if view.distinct:
            select.set("distinct", exp.Distinct())
        return select, list(self._written_outputs), list(dict.fromkeys(self.deps))

    def _projections(self) -> tuple[list[exp.Expression], list[exp.Expression]]:
        view = self.view
        self._written_outputs: list[str] = []
        projections: list[exp.Expression] = []
        group: list[exp.Expression] = []
        dimensions = list(view.dimensions)
        if not dimensions and not view.metrics:  # no columns named: every column of the source
            alias, relation = next(iter(self.scope.values()))
            for c in relation.columns:
                node = exp.column(exp.to_identifier(c, quoted=True), table=exp.to_identifier(alias, quoted=True))
                projections.append(self._named(node, None, c))
            return projections, group
        for i, dim in enumerate(dimensions):
            node = self.expression(dim.expr, f"dimensions[{i}].expr")
            default = node.name if isinstance(node, exp.Column) else f"col_{i + 1}"
            projections.append(self._named(node, dim.alias, default, prefix=_table_of(node)))
            group.append(node.copy())
        for i, metric in enumerate(view.metrics):
            node = self._metric(metric, f"metrics[{i}]")
            projections.append(self._named(node, metric.alias, metric.alias))
            self.metric_names.add(metric.alias.lower())
        return projections, group

    def _named(self, node: exp.Expression, alias: str | None, default: str, prefix: str = "") -> exp.Expression:
        name = (alias or default).strip()
        if name.lower() in self.outputs:
            if alias:
                raise self.error("dimensions", f"output column '{alias}' appears twice; use distinct aliases")
            name = f"{prefix}_{name}" if prefix else name
            suffix = 2
            base = name
            while name.lower() in self.outputs:
                name, suffix = f"{base}_{suffix}", suffix + 1
        self.outputs[name.lower()] = node
        self._written_outputs.append(name)
        if isinstance(node, exp.Column) and node.name == name:
            return node
        return exp.alias_(node, exp.to_identifier(name, quoted=True), copy=False)

    def _metric(self, metric: Metric, where: str) -> exp.Expression:
        star = metric.expr.strip() in ("*", "1", "")
        if star and metric.agg != "count":
            raise self.error(f"{where}.expr", f"{metric.agg} needs a column or expression, not '*'")
        value = exp.Literal.number(1) if star else self.expression(metric.expr, f"{where}.expr")
        if metric.filter is not None:
            condition = self.condition(metric.filter, f"{where}.filter")
            value = exp.Case(ifs=[exp.If(this=condition, true=value)])
        elif star:
            value = exp.Star()
        if metric.agg == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[value]))
        return {"count": exp.Count, "sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}[metric.agg](
            this=value)


def portable(expression: exp.Expression, dialect: str) -> exp.Expression:
    """Rewrite the few portable functions sqlglot leaves unsupported on an engine (year/month/day on SQLite)."""
    if dialect != "sqlite":
        return expression
    formats = {exp.Year: "%Y", exp.Month: "%m", exp.Day: "%d"}

    def rewrite(node: exp.Expression) -> exp.Expression:
        for kind, pattern in formats.items():
            if type(node) is kind:
                text = exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string(pattern), node.this.copy()])
                return exp.Cast(this=text, to=exp.DataType.build("INTEGER"))
        return node

    return expression.copy().transform(rewrite)


def _table_of(node: exp.Expression) -> str:
    return node.table if isinstance(node, exp.Column) else ""


def _literal(value: object) -> exp.Expression:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def _comparison(op: str, left: exp.Expression, right: exp.Expression) -> exp.Expression:
    assert op in COMPARISONS
    node = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}[op]
    return node(this=left, expression=right)
