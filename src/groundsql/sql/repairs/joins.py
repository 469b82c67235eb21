"""Rule 3, missing join: a column of a table the query does not read, joined along the join graph's unique
shortest path; and a join on a key the joined table lacks, routed through the tables between."""

from __future__ import annotations

from collections import deque

from sqlglot import exp

from groundsql.catalog.joins import JoinGraph, Relationship
from groundsql.catalog.schema import Table
from groundsql.sql.references import owners_of
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, set_qualifier
from groundsql.sql.repairs.spelling import spellings
from groundsql.sql.resolve import ColumnUse, Resolution, ScopeView, Source, resolve


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
            set_qualifier(use.node, known[0])
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
        set_qualifier(use.node, alias)
        outcome.changes.append(f"{old} → {alias}.{use.name} (joined {_route(start.table.name, path)})")
    return outcome


def reroute_joins(tree: exp.Expression, facts: RepairFacts) -> RuleOutcome:
    """`A JOIN B ON A.x = B.y` where A's or B's table lacks its column: when the join graph links A's table to
    B's by one unique shortest path, join along its keys instead (through the tables between, if any)."""
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
            earlier, joined = _join_sides(on, join.this.alias_or_name, uses)
            if earlier is None or joined is None:
                continue
            start, end = earlier.source, joined.source
            paths = shortest_paths(facts.joins, start.table.name, end.table.name)
            if len(paths) != 1 or not paths[0]:
                if len(paths) > 1:
                    routes = "; ".join(_route(start.table.name, p) for p in paths)
                    outcome.hints.append(f"{on.sql(dialect=facts.dialect)} names a column its table lacks; "
                                         f"{start.table.name} joins {end.table.name} by several routes: {routes}.")
                continue
            chain = _path_joins(view, start, paths[0], facts, end=end)
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
    """(the side on an earlier table, the side on the joined table) of a join condition where at least one side
    names a column its table lacks and both name tables of the schema; Nones otherwise."""
    sides = [uses.get(id(on.this)), uses.get(id(on.expression))]
    if any(u is None or u.status not in ("ok", "missing") or u.source is None or u.source.table is None
           for u in sides) or all(u.status == "ok" for u in sides):
        return None, None
    on_joined = [u for u in sides if u.source.alias.lower() == joined.lower()]
    if len(on_joined) != 1:
        return None, None
    earlier = next(u for u in sides if u is not on_joined[0])
    return earlier, on_joined[0]


def _join_candidates(resolution: Resolution) -> list[ColumnUse]:
    found = [u for u in resolution.columns
             if u.status == "unknown" and u.scope.tables()
             or u.status == "missing" and u.source is not None and u.source.table is not None]
    return [u for u in found if not _spellings_in_scope(u)]


def _spellings_in_scope(use: ColumnUse) -> bool:
    tables = [use.source] if use.node.table and use.source else use.scope.tables()
    return any(spellings(s.table, use.name) for s in tables if s.table is not None) or \
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
            set_qualifier(node, owners[0].alias)


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
