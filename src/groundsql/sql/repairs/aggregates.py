"""Rule 5, aggregate misuse: aggregate conditions in WHERE move to HAVING, with the GROUP BY they need."""

from __future__ import annotations

from sqlglot import exp

from groundsql.sql.repairs.base import RepairFacts, RuleOutcome


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
