"""Rule 4, ambiguous column: qualified when join conditions make every candidate the same value."""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, set_qualifier
from groundsql.sql.resolve import Resolution, ScopeView, resolve


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
        groups = equated_columns(use.scope, resolution)
        roots = {groups.find((s.alias.lower(), use.name.lower())) for s in use.candidates}
        if len(roots) == 1:
            set_qualifier(use.node, use.candidates[0].alias)
            outcome.changes.append(f"{use.name} → {use.candidates[0].alias}.{use.name}")
        else:
            names = ", ".join(f"{s.alias}.{use.name}" for s in use.candidates)
            outcome.hints.append(f"{use.name} is ambiguous: choose one of {names}.")
    return outcome


class ColumnGroups:
    """Union-find over (alias, column) pairs that a condition sets equal."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, item: tuple[str, str]) -> tuple[str, str]:
        while self.parent.get(item, item) != item:
            item = self.parent[item]
        return item

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.parent[self.find(a)] = self.find(b)


def equated_columns(view: ScopeView, resolution: Resolution) -> ColumnGroups:
    """Columns a join condition or a top-level WHERE conjunct sets equal, as (alias, column) groups."""
    uses = {id(u.node): u for u in resolution.columns}
    groups = ColumnGroups()

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
