"""The question-shape checks, one module per check; `selection.shape.shape_findings` runs them.

Each module is named after the check it holds and exposes one function, `check(q: QueryView) -> list[Finding]`;
what several checks share is in `common.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes import (
    age_direction,
    aggregate_asked,
    anti_join,
    both_in,
    both_union,
    both_values,
    branch_join,
    comparison_asked,
    comparison_direction,
    count_asked,
    count_per_key,
    count_rank,
    distinct_asked,
    entity_column,
    entity_key,
    extra_join,
    group_key,
    join_edge,
    key_join,
    list_asked,
    missing_column,
    question_value,
    rank_column,
    same_branches,
    sort_direction,
    star,
    superlative,
    table_literal,
    unasked_limit,
    ungrouped,
    units,
    unread_table,
    value_grounding,
)

#: The check modules, in the order they run (the order matters: `generation.shape_repair` takes the first finding
#: with a rewrite). To add a check, write a module with `check(q)` in this package and add it to this list.
MODULES: list[ModuleType] = [
    count_asked, list_asked, unasked_limit, superlative, rank_column, star, missing_column, entity_column,
    both_values, question_value, distinct_asked, extra_join, count_rank, aggregate_asked, comparison_asked,
    unread_table, ungrouped, comparison_direction,
    # right by construction: the join graph, keys, the query tree and the stored values are the evidence
    anti_join, join_edge, value_grounding, units, both_in, entity_key, group_key, count_per_key,
    key_join, sort_direction, age_direction, same_branches, branch_join, both_union, table_literal,
]

#: Check name (its module's name) → its function.
SHAPE_FUNCTIONS: dict[str, Callable[[QueryView], list[Finding]]] = {
    module.__name__.rpartition(".")[2]: module.check for module in MODULES}
#: Every shape check, in the order they run.
SHAPE_CHECKS: tuple[str, ...] = tuple(SHAPE_FUNCTIONS)
#: The checks that read a UNION / INTERSECT / EXCEPT (its branches); the others read one SELECT only.
SET_OPERATION_CHECKS: tuple[str, ...] = ("age_direction", "same_branches", "branch_join", "both_union")
