"""Spider's hardness levels (easy / medium / hard / extra) computed from gold SQL with sqlglot.

The published criteria count three things on the outermost query: "component 1" clauses (WHERE, GROUP BY,
ORDER BY, LIMIT, each extra joined table, each OR, each LIKE), "component 2" nesting (subqueries used as
condition values, plus a UNION / INTERSECT / EXCEPT) and "others" (more than one aggregate, more than one
selected item, more than one WHERE condition, more than one GROUP BY key). We follow the official counting,
quirks included: for WHERE and HAVING, the "aggregate" count looks at negated conditions (NOT IN, NOT LIKE).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

LEVELS = ("easy", "medium", "hard", "extra")


@dataclass
class Components:
    component1: int
    component2: int
    others: int


def spider_hardness(sql: str, dialect: str = "sqlite") -> str:
    """The Spider hardness level of `sql`; "extra" when sqlglot cannot parse it."""
    parts = count_components(sql, dialect)
    if parts is None:
        return "extra"
    return level(parts)


def level(parts: Components) -> str:
    c1, c2, others = parts.component1, parts.component2, parts.others
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if (others <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and others < 2 and c2 == 0):
        return "medium"
    if ((others > 2 and c1 <= 2 and c2 == 0) or (2 < c1 <= 3 and others <= 2 and c2 == 0)
            or (c1 <= 1 and others == 0 and c2 <= 1)):
        return "hard"
    return "extra"


def count_components(sql: str, dialect: str = "sqlite") -> Components | None:
    """Count Spider's hardness components on the outermost SELECT of `sql` (None when unparseable)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None
    nested = 0
    while isinstance(tree, exp.SetOperation):
        nested = 1  # Spider keeps one UNION/INTERSECT/EXCEPT on the leftmost query
        tree = tree.left
    while isinstance(tree, (exp.Subquery, exp.Paren)):
        tree = tree.this
    if not isinstance(tree, exp.Select):
        return None
    join_conditions = [c for join in tree.args.get("joins") or [] for c in _conditions(join.args.get("on"))]
    where = _conditions(tree.args["where"].this) if tree.args.get("where") else []
    having = _conditions(tree.args["having"].this) if tree.args.get("having") else []
    group = tree.args["group"].expressions if tree.args.get("group") else []
    order = tree.args["order"].expressions if tree.args.get("order") else []
    from_ = tree.args.get("from") or tree.args.get("from_")
    tables = (1 if from_ is not None else 0) + len(tree.args.get("joins") or [])

    conditions = join_conditions + where + having
    c1 = sum(1 for clause in (where, group, order) if clause) + (1 if tree.args.get("limit") else 0)
    c1 += max(tables - 1, 0)
    c1 += _count_or(tree)
    c1 += sum(1 for c in conditions if isinstance(_unnegated(c), exp.Like))

    c2 = nested + sum(_subquery_values(c) for c in conditions)

    aggregates = sum(1 for item in tree.expressions if isinstance(_unaliased(item), exp.AggFunc))
    aggregates += sum(1 for c in where + having if isinstance(c, exp.Not))
    aggregates += sum(1 for o in order if isinstance(_unaliased(o.this), exp.AggFunc))
    others = (1 if aggregates > 1 else 0) + (1 if len(tree.expressions) > 1 else 0)
    others += (1 if len(where) > 1 else 0) + (1 if len(group) > 1 else 0)
    return Components(component1=c1, component2=c2, others=others)


def _conditions(node: exp.Expression | None) -> list[exp.Expression]:
    """The flat list of conditions joined by AND / OR (parentheses dissolved), as Spider's parser sees them."""
    if node is None:
        return []
    if isinstance(node, exp.Paren):
        return _conditions(node.this)
    if isinstance(node, exp.Connector):
        return _conditions(node.left) + _conditions(node.right)
    return [node]


def _count_or(select: exp.Select) -> int:
    total = 0
    for key in ("where", "having"):
        if select.args.get(key):
            total += _ors(select.args[key].this)
    for join in select.args.get("joins") or []:
        total += _ors(join.args.get("on"))
    return total


def _ors(node: exp.Expression | None) -> int:
    if node is None:
        return 0
    if isinstance(node, exp.Paren):
        return _ors(node.this)
    if isinstance(node, exp.Connector):
        return (1 if isinstance(node, exp.Or) else 0) + _ors(node.left) + _ors(node.right)
    return 0


def _unnegated(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Not) else node


def _unaliased(node: exp.Expression) -> exp.Expression:
    return node.this if isinstance(node, exp.Alias) else node


def _subquery_values(condition: exp.Expression) -> int:
    """How many operands of one condition are subqueries (Spider counts each as a nested query)."""
    node = _unnegated(condition)
    if isinstance(node, exp.Exists):
        return 1
    if isinstance(node, exp.In):
        return 1 if node.args.get("query") is not None else 0
    operands = [node.args.get(k) for k in ("this", "expression", "low", "high")]
    return sum(1 for o in operands if isinstance(o, (exp.Subquery, exp.Select)))
