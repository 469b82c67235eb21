"""Exact repairs of a failing query on its syntax tree: each rule fixes one kind of slip, only on clear evidence.

Every rule takes a tree it may rewrite in place and the facts about the database, and returns what it changed
(nothing when its evidence is not unambiguous) plus hints for a model repair when it saw a problem it would not
guess at. `plan_repairs` runs them in order; `generation.tree_repair` executes the result.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.schema import Schema, Table
from groundsql.catalog.values import ValueIndex
from groundsql.sql.references import owners_of
from groundsql.sql.resolve import ColumnUse, Resolution, ScopeView, Source, resolve

log = logging.getLogger("groundsql")

#: Dialects tried, in order, when a query seems written for another engine.
OTHER_DIALECTS = ("sqlite", "postgres", "mysql", "duckdb", "tsql", "bigquery", "snowflake", "oracle")


@dataclass
class RepairFacts:
    """What the rules may rely on: the structure, the join graph, stored values and what the engine said."""

    schema: Schema
    joins: JoinGraph
    dialect: str
    values: ValueIndex | None = None  # None: literal snapping is off
    error: str | None = None  # the engine's error; None when the query ran
    empty: bool = False  # the query ran and returned no rows


@dataclass(frozen=True)
class TreeFix:
    """One applied rewrite: which rule, the SQL before and after, and what changed, in words."""

    rule: str
    before: str
    after: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "before": self.before, "after": self.after, "detail": self.detail}


@dataclass
class RuleOutcome:
    changes: list[str] = field(default_factory=list)  # what was rewritten (empty: the rule did not fire)
    hints: list[str] = field(default_factory=list)  # what it saw but would not guess at


@dataclass
class RepairPlan:
    """The query after every rule that fired (`sql` is the input when none did)."""

    sql: str
    fixes: list[TreeFix] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


Rule = Callable[[exp.Expression, RepairFacts], RuleOutcome]


# -- the engine ------------------------------------------------------------------------------------


def plan_repairs(sql: str, facts: RepairFacts) -> RepairPlan:
    """Apply every rule whose evidence holds, in order; a query that ran with rows is never touched."""
    plan = RepairPlan(sql=sql)
    if facts.error is None and not facts.empty:
        return plan
    tree = _parse(sql, facts.dialect)
    if facts.error is not None and (tree is None or _names_unknown_function(tree, facts.error)):
        translated = transpile_dialect(sql, facts)
        if translated is not None:
            source, after = translated
            plan.fixes.append(TreeFix("dialect", sql, after, f"read as {source} SQL, written for {facts.dialect}"))
            tree = _parse(after, facts.dialect)
    if tree is None:
        return plan
    rules: list[tuple[str, Rule]] = RULES if facts.error is not None else [("literal", snap_literals)]
    current = plan.fixes[-1].after if plan.fixes else sql
    for name, rule in rules:
        work = tree.copy()
        try:
            outcome = rule(work, facts)
        except (SqlglotError, ValueError, KeyError, AttributeError, TypeError) as exc:
            log.debug("tree repair rule %s skipped: %s", name, exc)
            continue  # a construct a rule does not understand is left alone
        plan.hints.extend(h for h in outcome.hints if h not in plan.hints)
        if outcome.changes:
            after = work.sql(dialect=facts.dialect)
            plan.fixes.append(TreeFix(name, current, after, "; ".join(outcome.changes)))
            tree, current = work, after
    plan.sql = current
    return plan


# -- rule 1: wrong qualifier ------------------------------------------------------------------------


def requalify(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """`T2.x` where T2's table lacks x and exactly one other table of the scope has it → that table's alias.

    Also a qualifier that names a table the scope reads under an alias (`singer.Name` with `singer AS T1`).
    """
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    for use in resolution.columns:
        qualifier = use.node.table
        if use.status == "missing" and use.source is not None and use.source.table is not None:
            if _spellings(use.source.table, use.name):
                continue  # its own table has it under another spelling: rule 2's case
            owners = [s for s in use.scope.tables() if s is not use.source and s.table.column(use.name)]
            if len(owners) == 1 and _compared_with(use.node, owners[0].alias):
                continue  # `T1.x = T2.x` would become `T1.x = T1.x`: the join needs another table (rule 3)
            if len(owners) == 1:
                _set_qualifier(use.node, owners[0].alias)
                outcome.changes.append(f"{qualifier}.{use.name} → {owners[0].alias}.{use.name}")
            elif owners:
                names = ", ".join(f"{s.table.name} ({s.alias})" for s in owners)
                outcome.hints.append(f"{use.name} is not a column of {use.source.table.name}; {names} have it.")
        elif use.status == "opaque" and qualifier and use.scope.reachable(qualifier) is None:
            named = [s for s in use.scope.tables() if s.table.name.lower() == qualifier.lower()
                     and s.table.column(use.name)]
            if len(named) == 1:
                _set_qualifier(use.node, named[0].alias)
                outcome.changes.append(f"{qualifier}.{use.name} → {named[0].alias}.{use.name}")
    return outcome


def _compared_with(node: exp.Column, alias: str) -> bool:
    """Whether `node` is compared for equality with a column of `alias`."""
    parent = node.parent
    if not isinstance(parent, exp.EQ):
        return False
    other = parent.expression if parent.this is node else parent.this
    return isinstance(other, exp.Column) and other.table.lower() == alias.lower() and \
        other.name.lower() == node.name.lower()


# -- rule 2: spelling -------------------------------------------------------------------------------


def respell_tables(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """A table name the schema lacks that matches exactly one table after case, quotes, spaces, underscores or
    a plural → the stored name (keeping the old name as its alias, so qualifiers still resolve)."""
    outcome = RuleOutcome()
    ctes = {c.alias.lower() for c in tree.find_all(exp.CTE)}
    for node in list(tree.find_all(exp.Table)):
        if not node.name or node.args.get("db") or node.name.lower() in ctes or facts.schema.table(node.name):
            continue
        matches = [t for t in facts.schema.tables if name_key(t.name) == name_key(node.name)]
        if len(matches) != 1:
            if len(matches) > 1:
                outcome.hints.append(f"{node.name} is not a table; did you mean {', '.join(t.name for t in matches)}?")
            continue
        old = node.name
        node.set("this", exp.to_identifier(matches[0].name))
        if not node.alias and any(c.table.lower() == old.lower() for c in tree.find_all(exp.Column)):
            node.set("alias", exp.TableAlias(this=exp.to_identifier(old)))
        outcome.changes.append(f"table {old} → {matches[0].name}")
    return outcome


def respell_columns(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """A column its table(s) lack that matches exactly one of their columns after case, quotes, spaces,
    underscores or a plural → the stored name; never when another table of the scope has the exact name."""
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    for use in resolution.columns:
        if use.status == "missing" and use.source is not None and use.source.table is not None:
            if any(s.table.column(use.name) for s in use.scope.tables() if s is not use.source):
                continue  # rule 1's case
            found = [(use.source, c) for c in _spellings(use.source.table, use.name)]
        elif use.status == "unknown":
            found = [(s, c) for s in use.scope.tables() for c in _spellings(s.table, use.name)]
        else:
            continue
        if len(found) == 1:
            source, stored = found[0]
            old = use.node.sql(dialect=facts.dialect)
            use.node.set("this", exp.to_identifier(stored))
            if not use.node.table and len(use.scope.sources) > 1:
                _set_qualifier(use.node, source.alias)
            outcome.changes.append(f"{old} → {use.node.sql(dialect=facts.dialect)}")
        elif len(found) > 1:
            names = ", ".join(f"{s.table.name}.{c}" for s, c in found)
            outcome.hints.append(f"{use.name} does not exist; close names: {names}.")
    return outcome


def name_key(name: str) -> str:
    """A name with case, quoting, spaces, underscores and a plural ending removed."""
    key = "".join(ch for ch in name.casefold() if ch.isalnum())
    if key.endswith("ies") and len(key) > 4:
        return key[:-3] + "y"
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        return key[:-1]
    return key


def _spellings(table: Table, name: str) -> list[str]:
    key = name_key(name)
    return [c.name for c in table.columns if c.name.lower() != name.lower() and name_key(c.name) == key]


# -- rule 3: missing join ---------------------------------------------------------------------------


def add_missing_joins(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """A column no table of its scope has, owned by a table the join graph reaches by one unique shortest path
    (from the qualifier's table, or from any table of the scope) → join along that path and use it there."""
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    added: dict[tuple[int, str, str], str] = {}  # (scope, start alias, owner) → alias of the joined owner
    for use in _join_candidates(resolution):
        starts = [use.source] if use.node.table else use.scope.tables()
        in_scope = {s.table.name.lower() for s in use.scope.tables()}
        owners = [t for t in owners_of(facts.schema, {use.name}) if t.name.lower() not in in_scope]
        known = [added[key] for s in starts for t in owners
                 if (key := (id(use.scope), s.alias.lower(), t.name.lower())) in added]
        if len(known) == 1:
            _set_qualifier(use.node, known[0])
            continue
        options = [(start, owner, path) for start in starts for owner in owners
                   for path in shortest_paths(facts.joins, start.table.name, owner.name)]
        if not options:
            if owners:
                outcome.hints.append(f"{use.name} is a column of {', '.join(t.name for t in owners[:3])}, which no "
                                     "key connects to the query's tables: join it on matching columns.")
            continue
        shortest = min(len(p) for *_, p in options)
        best = [o for o in options if len(o[2]) == shortest]
        if len(best) > 1:
            routes = "; ".join(f"{o.name} via {_route(s.table.name, p)}" for s, o, p in best[:4])
            outcome.hints.append(f"{use.name} is not in the query's tables; it is in {routes}: pick the join "
                                 "the question means.")
            continue
        start, owner, path = best[0]
        alias = _join_path(use.scope, start, path, facts)
        if alias is None:
            continue
        added[(id(use.scope), start.alias.lower(), owner.name.lower())] = alias
        old = use.node.sql(dialect=facts.dialect)
        _set_qualifier(use.node, alias)
        outcome.changes.append(f"{old} → {alias}.{use.name} (joined {_route(start.table.name, path)})")
    return outcome


def reroute_joins(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """`JOIN X ON Y.k = X.k` where X's table lacks k: when the join graph links Y's table to X's by one unique
    shortest path, join through the tables on it (or along the one direct key) instead."""
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    uses = {id(u.node): u for u in resolution.columns}
    for view in resolution.scopes:
        joins = list(view.select.args.get("joins") or [])
        for position, join in enumerate(joins):
            on = join.args.get("on")
            if not isinstance(on, exp.EQ) or not isinstance(join.this, exp.Table):
                continue
            far, near = _join_sides(on, join.this.alias_or_name, uses)
            if far is None or near is None:
                continue
            paths = shortest_paths(facts.joins, near.source.table.name, far.source.table.name)
            if len(paths) != 1 or not paths[0]:
                if len(paths) > 1:
                    routes = "; ".join(_route(near.source.table.name, p) for p in paths)
                    outcome.hints.append(f"{far.source.table.name} has no {far.name}; it joins "
                                         f"{near.source.table.name} by several routes: {routes}.")
                continue
            chain = _path_joins(view, near.source, paths[0], facts, end=far.source)
            if chain is None:
                continue
            added, condition = chain
            old = on.sql(dialect=facts.dialect)
            join.set("on", condition)
            view.select.set("joins", [*joins[:position], *added, *joins[position:]])
            via = ", ".join(j.this.name for j in added)
            outcome.changes.append(f"ON {old} → {condition.sql(dialect=facts.dialect)}"
                                   + (f" through {via}" if via else ""))
            return outcome  # one join per pass: the scopes changed
    return outcome


def _join_sides(on: exp.EQ, joined: str, uses: dict[int, ColumnUse]) -> tuple[ColumnUse | None, ColumnUse | None]:
    """(the side naming a column the joined table lacks, the side resolved in an earlier table), or Nones."""
    sides = [uses.get(id(on.this)), uses.get(id(on.expression))]
    far = next((u for u in sides if u is not None and u.status == "missing" and u.source is not None
                and u.source.table is not None and u.source.alias.lower() == joined.lower()), None)
    near = next((u for u in sides if u is not None and u is not far and u.status == "ok" and u.source is not None
                 and u.source.table is not None and u.source.alias.lower() != joined.lower()), None)
    return (far, near) if far is not None and near is not None else (None, None)


def _join_candidates(resolution: Resolution) -> list[ColumnUse]:
    found = [u for u in resolution.columns
             if u.status == "unknown" and u.scope.tables()
             or u.status == "missing" and u.source is not None and u.source.table is not None]
    return [u for u in found if not _spellings_in_scope(u)]


def _spellings_in_scope(use: ColumnUse) -> bool:
    tables = [use.source] if use.node.table and use.source else use.scope.tables()
    return any(_spellings(s.table, use.name) for s in tables if s.table is not None) or \
        any(s.table.column(use.name) for s in use.scope.tables())


def unique_shortest_path(joins: JoinGraph, start: str, end: str) -> list[Relationship] | None:
    """The shortest join path from `start` to `end` when no other path is as short; None otherwise."""
    paths = shortest_paths(joins, start, end, limit=2)
    return paths[0] if len(paths) == 1 else None


def shortest_paths(joins: JoinGraph, start: str, end: str, *, limit: int = 4) -> list[list[Relationship]]:
    """Up to `limit` distinct shortest join paths (as edges) from `start` to `end`; [] when not connected."""
    source, target = start.lower(), end.lower()
    if source == target:
        return [[]]
    distance = {source: 0}
    previous: dict[str, list[tuple[str, Relationship]]] = {}
    names = {source: start}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for other, rel in joins.adjacent(names[node]):
            key = other.lower()
            if key not in distance:
                distance[key], names[key] = distance[node] + 1, other
                queue.append(key)
            if distance[key] == distance[node] + 1:
                previous.setdefault(key, []).append((node, rel))
    if target not in distance:
        return []

    def back(node: str) -> list[list[Relationship]]:
        if node == source:
            return [[]]
        found: list[list[Relationship]] = []
        for before, rel in previous[node]:
            for path in back(before):
                found.append([*path, rel])
                if len(found) >= limit:
                    return found
        return found

    return back(target)


def _join_path(view: ScopeView, start: Source, path: list[Relationship], facts: RepairFacts) -> str | None:
    """Append INNER JOINs along `path` to the scope's SELECT; the alias of the last table, or None."""
    chain = _path_joins(view, start, path, facts)
    if chain is None:
        return None
    added, _ = chain
    _qualify_shadowed(view, [facts.schema.table(j.this.name) for j in added])
    for join in added:
        view.select.append("joins", join)
    return added[-1].this.alias_or_name


def _path_joins(view: ScopeView, start: Source, path: list[Relationship], facts: RepairFacts,
                end: Source | None = None) -> tuple[list[exp.Join], exp.Expression] | None:
    """New INNER JOINs from `start` along `path`, and the last hop's condition. With `end` (a source already in
    the query) the last hop joins to it instead of a new table, and its condition is not made into a join."""
    taken = {s.alias.lower() for s in view.sources} | {t.name.lower() for t in view.select.find_all(exp.Table)}
    joins: list[exp.Join] = []
    current_table, current_alias = start.table.name, start.alias
    condition: exp.Expression | None = None
    for index, rel in enumerate(path):
        forward = rel.table.lower() == current_table.lower()
        table = facts.schema.table(rel.ref_table if forward else rel.table)
        here = facts.schema.table(current_table)
        if table is None or here is None:
            return None
        near_cols, far_cols = (rel.columns, rel.ref_columns) if forward else (rel.ref_columns, rel.columns)
        if not far_cols:  # a declared key that refers to the primary key implicitly
            far_cols = table.primary_key
        if not near_cols:
            near_cols = here.primary_key
        if not near_cols or len(near_cols) != len(far_cols):
            return None
        last = index == len(path) - 1
        if last and end is not None:
            alias = end.alias
        else:
            alias = table.name if table.name.lower() not in taken else _fresh(table.name, taken)
            taken.add(alias.lower())
        condition = exp.and_(*[exp.EQ(this=exp.column(a, current_alias), expression=exp.column(b, alias))
                               for a, b in zip(near_cols, far_cols)])
        if not (last and end is not None):
            node = exp.to_table(table.name) if alias == table.name else \
                exp.alias_(exp.to_table(table.name), alias, table=True)
            joins.append(exp.Join(this=node, on=condition, kind="INNER"))
        current_table, current_alias = table.name, alias
    return (joins, condition) if condition is not None else None


def _qualify_shadowed(view: ScopeView, new_tables: list[Table]) -> None:
    """Qualify the scope's resolved unqualified columns that a newly joined table would make ambiguous."""
    for node in view.select.find_all(exp.Column):
        if node.table or node.find_ancestor(exp.Select) is not view.select or isinstance(node.this, exp.Star):
            continue
        if not any(t.column(node.name) for t in new_tables):
            continue
        owners = [s for s in view.sources if s.has(node.name)]
        if len(owners) == 1:
            _set_qualifier(node, owners[0].alias)


def _fresh(name: str, taken: set[str]) -> str:
    number = 2
    while f"{name}_{number}".lower() in taken:
        number += 1
    return f"{name}_{number}"


def _route(start: str, path: list[Relationship]) -> str:
    steps, current = [], start
    for rel in path:
        steps.append(rel.on_clause())
        current = rel.other(current)
    return " and ".join(steps) or start


# -- rule 4: ambiguous column -----------------------------------------------------------------------


def qualify_ambiguous(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """An unqualified column several tables of its scope have → qualified, when a join condition equates all of
    them (any choice is the same value)."""
    outcome = RuleOutcome()
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    for use in resolution.columns:
        if use.status != "ambiguous":
            continue
        groups = _equated(use.scope, resolution)
        roots = {groups.find((s.alias.lower(), use.name.lower())) for s in use.candidates}
        if len(roots) == 1:
            _set_qualifier(use.node, use.candidates[0].alias)
            outcome.changes.append(f"{use.name} → {use.candidates[0].alias}.{use.name}")
        else:
            names = ", ".join(f"{s.alias}.{use.name}" for s in use.candidates)
            outcome.hints.append(f"{use.name} is ambiguous: choose one of {names}.")
    return outcome


class _Groups:
    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, item: tuple[str, str]) -> tuple[str, str]:
        while self.parent.get(item, item) != item:
            item = self.parent[item]
        return item

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.parent[self.find(a)] = self.find(b)


def _equated(view: ScopeView, resolution: Resolution) -> _Groups:
    """Columns a join condition or a top-level WHERE conjunct sets equal, as (alias, column) groups."""
    uses = {id(u.node): u for u in resolution.columns}
    groups = _Groups()

    def side(node: exp.Expression) -> tuple[str, str] | None:
        if not isinstance(node, exp.Column):
            return None
        if node.table:
            return node.table.lower(), node.name.lower()
        use = uses.get(id(node))
        return (use.source.alias.lower(), node.name.lower()) if use and use.status == "ok" and use.source else None

    conditions: list[exp.Expression] = []
    for join in view.select.args.get("joins") or []:
        if join.args.get("on") is not None:
            conditions.append(join.args["on"])
        joined = join.this.alias_or_name.lower()
        for column in join.args.get("using") or []:
            name = column.name.lower()
            for source in view.sources:
                if source.alias.lower() != joined and source.has(name):
                    groups.union((source.alias.lower(), name), (joined, name))
    if view.select.args.get("where") is not None:
        conditions.append(view.select.args["where"].this)
    for condition in conditions:
        parts = condition.flatten() if isinstance(condition, exp.And) else [condition]
        for part in parts:
            if isinstance(part, exp.EQ):
                left, right = side(part.this), side(part.expression)
                if left and right:
                    groups.union(left, right)
    return groups


# -- rule 5: aggregate misuse -----------------------------------------------------------------------


def aggregates_to_having(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """WHERE conditions on an aggregate → HAVING; with no GROUP BY, group by the selected plain columns. Also
    an aggregate ORDER BY over plain selected columns without GROUP BY → group by them."""
    outcome = RuleOutcome()
    for select in list(tree.find_all(exp.Select)):
        where = select.args.get("where")
        group = select.args.get("group")
        plain = _plain_columns(select)
        if where is not None:
            parts = where.this.flatten() if isinstance(where.this, exp.And) else [where.this]
            moved = [p for p in parts if _own_aggregate(p, select)]
            if moved:
                if group is None and not plain:
                    outcome.hints.append("An aggregate cannot be filtered in WHERE: move it to HAVING and say "
                                         "what to GROUP BY.")
                    continue
                kept = [p for p in parts if not any(p is m for m in moved)]
                select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
                having = select.args.get("having")
                conditions = ([having.this] if having is not None else []) + moved
                select.set("having", exp.Having(this=exp.and_(*conditions)))
                change = "WHERE " + " AND ".join(m.sql(dialect=facts.dialect) for m in moved) + " → HAVING"
                if group is None:
                    select.group_by(*[c.copy() for c in plain], copy=False)
                    change += " with GROUP BY " + ", ".join(c.sql(dialect=facts.dialect) for c in plain)
                outcome.changes.append(change)
                continue
        order = select.args.get("order")
        if (group is None and plain and order is not None and _own_aggregate(order, select)
                and not any(_own_aggregate(e, select) for e in select.expressions)
                and len(plain) == len(select.expressions)):
            select.group_by(*[c.copy() for c in plain], copy=False)
            outcome.changes.append("ORDER BY an aggregate → GROUP BY " +
                                   ", ".join(c.sql(dialect=facts.dialect) for c in plain))
    return outcome


def _own_aggregate(node: exp.Expression, select: exp.Select) -> bool:
    return any(agg.find_ancestor(exp.Select) is select and agg.find_ancestor(exp.Window) is None
               for agg in node.find_all(exp.AggFunc))


def _plain_columns(select: exp.Select) -> list[exp.Column]:
    """The selected expressions that are bare columns (aliases looked through), or [] if any other non-aggregate
    expression is selected."""
    columns = []
    for expression in select.expressions:
        inner = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star):
            columns.append(inner)
        elif not _own_aggregate(inner, select):
            return []
    return columns


# -- rule 6: literal snapping -----------------------------------------------------------------------


def snap_literals(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """`col = 'lit'` / `col IN ('lit', …)` where no stored value of col equals the literal but exactly one
    equals it up to case, spaces, accents and punctuation → the stored value. Only on an empty result."""
    outcome = RuleOutcome()
    if not facts.empty or facts.values is None:
        return outcome
    resolution = resolve(tree, facts.schema, facts.dialect)
    if resolution is None:
        return outcome
    uses = {id(u.node): u for u in resolution.columns}
    for node in list(tree.find_all(exp.EQ, exp.In)):
        column = node.this if isinstance(node.this, exp.Column) else node.expression
        if not isinstance(column, exp.Column):
            continue
        use = uses.get(id(column))
        if use is None or use.status != "ok" or use.source is None or use.source.table is None:
            continue
        stored = _stored_values(facts.values, use.source.table.name, use.name)
        if not stored:
            continue
        literals = node.expressions if isinstance(node, exp.In) else [node.expression, node.this]
        for literal in literals:
            if not isinstance(literal, exp.Literal) or not literal.is_string or literal.this in stored:
                continue
            near = {v for v in stored if fold_value(v) == fold_value(literal.this)}
            if len(near) == 1:
                value = near.pop()
                outcome.changes.append(f"{use.name} = '{literal.this}' → '{value}'")
                literal.replace(exp.Literal.string(value))
    return outcome


def fold_value(text: str) -> str:
    """A value with case, accents, punctuation and spacing removed."""
    decomposed = unicodedata.normalize("NFKD", str(text))
    return " ".join("".join(ch if ch.isalnum() else " " for ch in decomposed
                            if not unicodedata.combining(ch)).casefold().split())


def _stored_values(index: ValueIndex, table: str, column: str) -> set[str]:
    for name, columns in index.values.items():
        if name.lower() == table.lower():
            for col, values in columns.items():
                if col.lower() == column.lower():
                    return set(values)
    return set()


# -- rule 7: dialect ---------------------------------------------------------------------------------


def transpile_dialect(sql: str, facts: RepairFacts) -> tuple[str, str] | None:
    """(source dialect, SQL for the target) for a query written in another dialect: it must not parse for the
    target, or it must call a function the engine's error names that the rewrite no longer calls."""
    target = facts.dialect
    tree = _parse(sql, target)
    unknown = _unknown_functions(tree, facts.error or "") if tree is not None else set()
    if tree is not None and not unknown:
        return None
    for source in OTHER_DIALECTS:
        if source == target:
            continue
        try:
            translated = sqlglot.transpile(sql, read=source, write=target)
        except (SqlglotError, ValueError, KeyError):
            continue
        if len(translated) != 1:
            continue
        after = translated[0]
        reparsed = _parse(after, target)
        if reparsed is None or (tree is not None and after == tree.sql(dialect=target)):
            continue
        if unknown and _function_names(reparsed) & unknown:
            continue
        return source, after
    return None


def _names_unknown_function(tree: exp.Expression, error: str) -> bool:
    return bool(_unknown_functions(tree, error))


def _unknown_functions(tree: exp.Expression, error: str) -> set[str]:
    """Function names of the query that the engine error mentions next to 'function'."""
    lowered = error.lower()
    if "function" not in lowered:
        return set()
    words = set("".join(ch if ch.isalnum() or ch == "_" else " " for ch in lowered).split())
    return _function_names(tree) & words


def _function_names(tree: exp.Expression) -> set[str]:
    names = set()
    for func in tree.find_all(exp.Func):
        names.add((func.name if isinstance(func, exp.Anonymous) else func.sql_name()).lower())
    return names


# -- shared -----------------------------------------------------------------------------------------


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return None
    return tree if isinstance(tree, exp.Query) else None


def _set_qualifier(node: exp.Column, alias: str) -> None:
    node.set("table", exp.to_identifier(alias))


#: The rules for a query that failed, in the order they run (dialect runs first, on the text).
RULES: list[tuple[str, Rule]] = [
    ("spelling", respell_tables),
    ("qualifier", requalify),
    ("spelling", respell_columns),
    ("join", reroute_joins),
    ("join", add_missing_joins),
    ("ambiguous", qualify_ambiguous),
    ("aggregate", aggregates_to_having),
]
