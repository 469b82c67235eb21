"""Rule 6, literal snapping: on an empty result, a literal that matches exactly one stored value up to case,
spaces, accents and punctuation becomes that value."""

from __future__ import annotations

import unicodedata

from sqlglot import exp

from groundsql.catalog.values import ValueIndex
from groundsql.sql.repairs.base import RepairFacts, RuleOutcome
from groundsql.sql.resolve import resolve


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
