"""Rule 1, wrong qualifier: a column asked of a table that lacks it, when one other table of the scope has it."""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.repairs.base import RepairFacts, RuleOutcome, set_qualifier
from groundsql.sql.repairs.spelling import spellings
from groundsql.sql.resolve import resolve


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
            if spellings(use.source.table, use.name):
                continue  # its own table has it under another spelling: rule 2's case
            owners = [s for s in use.scope.tables() if s is not use.source and s.table.column(use.name)]
            if len(owners) == 1 and _compared_with(use.node, owners[0].alias):
                continue  # `T1.x = T2.x` would become `T1.x = T1.x`: the join needs another table (rule 3)
            if len(owners) == 1:
                set_qualifier(use.node, owners[0].alias)
                outcome.changes.append(f"{qualifier}.{use.name} → {owners[0].alias}.{use.name}")
            elif owners:
                names = ", ".join(f"{s.table.name} ({s.alias})" for s in owners)
                outcome.hints.append(f"{use.name} is not a column of {use.source.table.name}; {names} have it.")
        elif use.status == "opaque" and qualifier and use.scope.reachable(qualifier) is None:
            named = [s for s in use.scope.tables() if s.table.name.lower() == qualifier.lower()
                     and s.table.column(use.name)]
            if len(named) == 1:
                set_qualifier(use.node, named[0].alias)
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
