"""Rule 7, ungrouped columns: a column beside GROUP BY that the grouped keys determine joins the GROUP BY.

SQLite lets a query select a column it neither groups nor aggregates; PostgreSQL, DuckDB, Spark and MariaDB in
strict mode refuse it. When the grouped columns determine the column (it is equal to a grouped column through a
join or WHERE condition, or the grouped columns cover its table's whole primary key), adding it to GROUP BY keeps
every group and every value the same, so the rewrite is exact. Any other ungrouped column is only hinted at.
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.catalog.schema import Schema
from groundsql.sql.repairs.ambiguous import ColumnGroups, equated_columns
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome
from groundsql.sql.resolve import ColumnUse, resolve

#: Clauses whose plain columns must be grouped (WHERE and JOIN conditions are evaluated before grouping).
_GROUPED_CLAUSES = ("expressions", "having", "order")


def is_grouping_error(error: str | None) -> bool:
    """Whether an engine refused a column that is neither grouped nor aggregated (every engine names GROUP BY)."""
    return bool(error) and "group by" in error.lower()


def group_dependent_columns(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """Add to GROUP BY each selected, HAVING or ORDER BY column that the grouped columns determine."""
    outcome = RuleOutcome()
    if not is_grouping_error(facts.error):
        return outcome
    outcome.changes = group_determined_columns(tree, facts.schema, facts.dialect, hints=outcome.hints)
    return outcome


def group_determined_columns(tree: exp.Expression, schema: Schema, dialect: str, *,
                             hints: list[str] | None = None) -> list[str]:
    """Add to GROUP BY, in place, each column beside it that the grouped columns determine (exact on any engine,
    so also `sql.sqlite_flavour`'s step before any refusal); the changes in words. Each column they do not
    determine is named in `hints`."""
    changes: list[str] = []
    added: dict[int, tuple[exp.Group, list[exp.Column]]] = {}
    for group, use, determined in _ungrouped_columns(tree, schema, dialect):
        if determined:
            _, columns = added.setdefault(id(group), (group, []))
            if not any(_same(use.node, c) for c in columns):
                columns.append(use.node)
        elif hints is not None:
            name = use.node.sql(dialect=dialect)
            hint = (f"{name} is neither grouped nor aggregated, and the GROUP BY columns do not determine it: "
                    "add it to GROUP BY if each group should split by it, or aggregate it.")
            if hint not in hints:
                hints.append(hint)
    for group, columns in added.values():
        group.set("expressions", [*group.expressions, *(c.copy() for c in columns)])
        changes.append("GROUP BY + " + ", ".join(c.sql(dialect=dialect) for c in columns) +
                       " (determined by the grouped columns)")
    return changes


def undetermined_columns(tree: exp.Expression, schema, dialect: str) -> list[str]:
    """Columns beside GROUP BY (selected, in HAVING or ORDER BY) that are neither grouped nor aggregated and that
    the grouped columns do not determine: SQLite returns an arbitrary row's value for them. Empty when the query
    does not resolve."""
    found: list[str] = []
    for _, use, determined in _ungrouped_columns(tree, schema, dialect):
        name = use.node.sql(dialect=dialect)
        if not determined and name not in found:
            found.append(name)
    return found


def _ungrouped_columns(tree: exp.Expression, schema, dialect: str):
    """Each (GROUP BY, column use, whether the grouped columns determine it) for the plain columns beside a
    GROUP BY that are neither grouped nor aggregated, scope by scope."""
    resolution = resolve(tree, schema, dialect)
    if resolution is None:
        return
    by_scope: dict[int, list[ColumnUse]] = {}
    for use in resolution.columns:
        by_scope.setdefault(id(use.scope), []).append(use)
    for view in resolution.scopes:
        group = view.select.args.get("group")
        if group is None or not group.expressions:
            continue
        uses = by_scope.get(id(view), [])
        equal = equated_columns(view, resolution)
        named = {_key(u) for u in uses if any(u.node is e for e in group.expressions)} - {None}
        grouped = {equal.find(key) for key in named}
        for use in uses:
            key = _key(use)
            if key is None or key in named or not _ungrouped(use, view.select, group):
                continue
            yield group, use, equal.find(key) in grouped or _key_covered(use, grouped, equal)


def _key(use: ColumnUse) -> tuple[str, str] | None:
    """(alias, column) of a column that resolved to a schema table; None for anything else."""
    if use.status != "ok" or use.source is None or use.source.table is None:
        return None
    return use.source.alias.lower(), use.name.lower()


def _ungrouped(use: ColumnUse, select: exp.Select, group: exp.Group) -> bool:
    """A plain column of a clause evaluated after grouping, outside any aggregate or window of this SELECT, and
    not itself one of the GROUP BY expressions."""
    node = use.node
    if any(node is e for e in group.expressions):
        return False
    if any(isinstance(a, (exp.AggFunc, exp.Window)) for a in _ancestors(node, select)):
        return False
    return _clause(node, select) in _GROUPED_CLAUSES


def _key_covered(use: ColumnUse, grouped: set[tuple[str, str]], equal: ColumnGroups) -> bool:
    """Whether the grouped columns cover the whole primary key of the column's table (same alias)."""
    table = use.source.table if use.source is not None else None
    if table is None or not table.primary_key:
        return False
    alias = use.source.alias.lower()
    return all(equal.find((alias, column.lower())) in grouped for column in table.primary_key)


def _ancestors(node: exp.Expression, stop: exp.Expression):
    parent = node.parent
    while parent is not None and parent is not stop:
        yield parent
        parent = parent.parent


def _clause(node: exp.Expression, select: exp.Select) -> str | None:
    """The argument of `select` that holds `node` (expressions, where, having, order…)."""
    child = node
    while child.parent is not None and child.parent is not select:
        child = child.parent
    return child.arg_key if child.parent is select else None


def _same(a: exp.Column, b: exp.Column) -> bool:
    return a.name.lower() == b.name.lower() and (a.table or "").lower() == (b.table or "").lower()
