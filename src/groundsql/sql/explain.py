"""A plain-language reading of a query, produced from its sqlglot syntax tree (never by a model), and the lineage
of each result column back to the source columns it is computed from (sqlglot's lineage)."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.lineage import lineage

log = logging.getLogger("groundsql")

_AGGREGATE_WORDS = {
    exp.Sum: "the sum of", exp.Avg: "the average of", exp.Min: "the smallest", exp.Max: "the largest",
    exp.Count: "the number of",
}
_COMPARISONS = {
    exp.EQ: "is", exp.NEQ: "is not", exp.GT: "is greater than", exp.GTE: "is at least",
    exp.LT: "is less than", exp.LTE: "is at most", exp.Like: "matches", exp.ILike: "matches (any case)",
}


@dataclass
class ColumnExplanation:
    """One result column: its name, how it is computed, whether it aggregates, and its source columns."""

    name: str
    reading: str
    aggregate: bool = False
    sources: list[str] = field(default_factory=list)  # "table.column"


@dataclass
class Explanation:
    """What a query does, part by part, and where each result column comes from."""

    sql: str
    tables: list[str] = field(default_factory=list)
    joins: list[str] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)
    grouping: list[str] = field(default_factory=list)
    group_filters: list[str] = field(default_factory=list)
    ordering: list[str] = field(default_factory=list)
    limit: int | None = None
    distinct: bool = False
    columns: list[ColumnExplanation] = field(default_factory=list)
    subqueries: int = 0
    set_operation: str | None = None

    @property
    def lineage(self) -> dict[str, list[str]]:
        return {c.name: list(c.sources) for c in self.columns}

    def sentences(self) -> list[str]:
        """The reading as short sentences, in the order the engine applies the clauses."""
        out: list[str] = []
        if self.set_operation:
            out.append(f"Combines the rows of several queries with {self.set_operation}.")
        if self.tables:
            out.append(f"Reads {_join_words(self.tables)}.")
        out += [f"Joins {j}." for j in self.joins]
        if self.filters:
            out.append(f"Keeps rows where {_join_words(self.filters)}.")
        if self.grouping:
            out.append(f"Groups rows by {_join_words(self.grouping)}.")
        if self.group_filters:
            out.append(f"Keeps groups where {_join_words(self.group_filters)}.")
        if self.columns:
            parts = [c.reading if c.name in (c.reading, "*") else f"{c.name} = {c.reading}" for c in self.columns]
            out.append(f"Returns {'distinct ' if self.distinct else ''}{_join_words(parts)}.")
        if self.ordering:
            out.append(f"Sorts by {_join_words(self.ordering)}.")
        if self.limit is not None:
            out.append(f"Keeps the first {self.limit} row{'s' if self.limit != 1 else ''}.")
        if self.subqueries:
            out.append(f"Uses {self.subqueries} subquer{'ies' if self.subqueries > 1 else 'y'} or CTE(s).")
        return out

    def text(self) -> str:
        return " ".join(self.sentences())

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sentences"] = self.sentences()
        data["lineage"] = self.lineage
        return data


def explain_sql(sql: str, dialect: str | None = None, schema: dict[str, dict[str, str]] | None = None) -> Explanation:
    """Read `sql` clause by clause.

    Args:
        sql: one SELECT (or set operation) statement.
        dialect: the sqlglot dialect it is written in.
        schema: optional ``{table: {column: type}}``; it lets lineage resolve unqualified columns in joins.

    Returns:
        The `Explanation`; an unparsable statement yields one with only `sql` set.
    """
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError as exc:
        log.info("explain: cannot parse the SQL: %s", str(exc).splitlines()[0] if str(exc) else exc)
        return Explanation(sql=sql)
    explanation = Explanation(sql=sql)
    select = tree
    if isinstance(tree, exp.SetOperation):
        explanation.set_operation = type(tree).__name__.upper()
        select = tree.find(exp.Select) or tree
    if not isinstance(select, exp.Select):
        return explanation
    _read_select(select, explanation, dialect)
    explanation.subqueries = sum(1 for s in tree.find_all(exp.Subquery, exp.CTE))
    explanation.columns = _columns(tree, select, dialect, schema)
    return explanation


def _read_select(select: exp.Select, out: Explanation, dialect: str | None) -> None:
    from_ = select.args.get("from") or select.args.get("from_")
    if from_ is not None:
        out.tables.append(_source_name(from_.this, dialect))
    for join in select.args.get("joins") or []:
        name = _source_name(join.this, dialect)
        out.tables.append(name)
        on = join.args.get("on")
        using = join.args.get("using")
        kind = " ".join(p for p in (join.args.get("side"), join.args.get("kind")) if p).lower()
        how = f" ({kind} join, keeping unmatched rows)" if kind in {"left", "right", "full", "left outer",
                                                                     "right outer", "full outer"} else ""
        if on is not None:
            out.joins.append(f"{name} matching {on.sql(dialect=dialect)}{how}")
        elif using:
            out.joins.append(f"{name} on equal {_join_words([u.sql(dialect=dialect) for u in using])}{how}")
        else:
            out.joins.append(f"{name} with every row (a cross join)")
    where = select.args.get("where")
    if where is not None:
        out.filters += [_condition(c, dialect) for c in _conjuncts(where.this)]
    group = select.args.get("group")
    if group is not None:
        out.grouping += [e.sql(dialect=dialect) for e in group.expressions]
    having = select.args.get("having")
    if having is not None:
        out.group_filters += [_condition(c, dialect) for c in _conjuncts(having.this)]
    order = select.args.get("order")
    if order is not None:
        for ordered in order.expressions:
            direction = "largest first" if ordered.args.get("desc") else "smallest first"
            out.ordering.append(f"{ordered.this.sql(dialect=dialect)} ({direction})")
    limit = select.args.get("limit")
    if limit is not None:
        value = limit.expression if isinstance(limit, exp.Limit) else limit.this
        try:
            out.limit = int(value.name)
        except (TypeError, ValueError, AttributeError):
            out.limit = None
    out.distinct = select.args.get("distinct") is not None


def _source_name(node: exp.Expression, dialect: str | None) -> str:
    if isinstance(node, exp.Table):
        alias = node.alias
        return f"{node.name} (as {alias})" if alias and alias != node.name else node.name
    if isinstance(node, exp.Subquery):
        return f"a subquery{f' named {node.alias}' if node.alias else ''}"
    return node.sql(dialect=dialect)


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    if isinstance(node, exp.And):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _condition(node: exp.Expression, dialect: str | None) -> str:
    """A condition in words: comparisons, IN, BETWEEN, NULL checks and their negations; else its SQL."""
    def sql(e: exp.Expression) -> str:
        return e.sql(dialect=dialect)

    if isinstance(node, exp.Paren):
        return _condition(node.this, dialect)
    if isinstance(node, exp.And):
        return " and ".join(_condition(c, dialect) for c in _conjuncts(node))
    if isinstance(node, exp.Or):
        return f"either {_condition(node.left, dialect)} or {_condition(node.right, dialect)}"
    if isinstance(node, exp.Not):
        inner = node.this
        if isinstance(inner, exp.Is):
            return f"{sql(inner.this)} is present"
        if isinstance(inner, exp.In):
            return f"{sql(inner.this)} is none of {_in_values(inner, dialect)}"
        return f"not ({_condition(inner, dialect)})"
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return f"{sql(node.this)} is missing (NULL)"
    if isinstance(node, exp.In):
        return f"{sql(node.this)} is one of {_in_values(node, dialect)}"
    if isinstance(node, exp.Between):
        return f"{sql(node.this)} is between {sql(node.args['low'])} and {sql(node.args['high'])}"
    for kind, word in _COMPARISONS.items():
        if type(node) is kind:
            return f"{sql(node.this)} {word} {sql(node.expression)}"
    return sql(node)


def _in_values(node: exp.In, dialect: str | None) -> str:
    if node.args.get("query") is not None:
        return "the values a subquery returns"
    return "(" + ", ".join(e.sql(dialect=dialect) for e in node.expressions) + ")"


def _reading(node: exp.Expression, dialect: str | None) -> tuple[str, bool]:
    """How one projection is computed, and whether it aggregates."""
    inner = node.this if isinstance(node, exp.Alias) else node
    for kind, words in _AGGREGATE_WORDS.items():
        if isinstance(inner, kind):
            argument = inner.this
            if isinstance(inner, exp.Count) and (argument is None or isinstance(argument, exp.Star)):
                return "the number of rows", True
            if isinstance(argument, exp.Distinct):
                return f"{words} distinct {', '.join(e.sql(dialect=dialect) for e in argument.expressions)}", True
            return f"{words} {argument.sql(dialect=dialect)}", True
    aggregate = inner.find(exp.AggFunc) is not None
    return inner.sql(dialect=dialect), aggregate


def _columns(tree: exp.Expression, select: exp.Select, dialect: str | None,
             schema: dict[str, dict[str, str]] | None) -> list[ColumnExplanation]:
    columns: list[ColumnExplanation] = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star):
            columns.append(ColumnExplanation(name="*", reading="every column"))
            continue
        name = projection.alias_or_name or projection.sql(dialect=dialect)
        reading, aggregate = _reading(projection, dialect)
        identifier = projection.args.get("alias") if isinstance(projection, exp.Alias) else projection.this
        target = exp.Column(this=identifier.copy()) if isinstance(identifier, exp.Identifier) else name
        columns.append(ColumnExplanation(name=name, reading=reading, aggregate=aggregate,
                                         sources=_sources(target, tree, dialect, schema)))
    return columns


def _sources(column: str | exp.Column, tree: exp.Expression, dialect: str | None,
             schema: dict[str, dict[str, str]] | None) -> list[str]:
    """The source columns of one output column (``table.column``), via sqlglot's lineage graph."""
    try:
        root = lineage(column, tree, schema or {}, dialect=dialect)
    except Exception as exc:  # lineage raises plain errors on shapes it does not support
        log.debug("lineage of %s failed: %s", column, exc)
        return []
    found: list[str] = []
    for node in root.walk():
        if node.downstream or not isinstance(node.expression, exp.Table):
            continue
        table = node.expression.name
        column_name = node.name.rsplit(".", 1)[-1].strip('"`[]')
        if column_name and column_name != "*":
            ref = f"{table}.{column_name}"
            if ref not in found:
                found.append(ref)
    return found


def _join_words(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
