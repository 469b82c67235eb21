"""When two query results count as the same answer, under Spider's and BIRD's official rules.

Spider (test-suite evaluator): rows are compared as multisets, in order only when the gold SQL has ORDER BY,
and the prediction's columns may be a permutation of the gold columns. DISTINCT is removed from both queries
before they run. BIRD: the two results are compared as sets of rows, columns in order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

Row = tuple[Any, ...]


def spider_equal(gold: Sequence[Row], predicted: Sequence[Row], *, order_matters: bool) -> bool:
    """True when `predicted` equals `gold` as Spider's evaluator decides (row bags, column permutations)."""
    gold, predicted = [tuple(r) for r in gold], [tuple(r) for r in predicted]
    if not gold and not predicted:
        return True
    if len(gold) != len(predicted):
        return False
    width = len(gold[0])
    if len(predicted[0]) != width:
        return False
    if not _same_unordered_rows(gold, predicted, order_matters):
        return False
    gold_values = [{row[i] for row in gold} for i in range(width)]
    for perm in _permutations(gold_values, predicted, width):
        moved = predicted if width == 1 else [tuple(row[i] for i in perm) for row in predicted]
        if order_matters:
            if moved == gold:
                return True
        elif set(moved) == set(gold) and Counter(moved) == Counter(gold):
            return True
    return False


def bird_equal(gold: Sequence[Row], predicted: Sequence[Row]) -> bool:
    """True when the two results hold the same set of rows (BIRD's rule)."""
    return {tuple(r) for r in gold} == {tuple(r) for r in predicted}


def _sort_key(value: Any) -> str:
    return str(value) + str(type(value))


def _same_unordered_rows(gold: list[Row], predicted: list[Row], order_matters: bool) -> bool:
    """Cheap rejection: compare rows with their cells sorted, which no column permutation can change."""
    left = [tuple(sorted(r, key=_sort_key)) for r in gold]
    right = [tuple(sorted(r, key=_sort_key)) for r in predicted]
    return left == right if order_matters else set(left) == set(right)


def _permutations(gold_values: list[set], predicted: list[Row], width: int) -> Iterator[tuple[int, ...]]:
    """Column permutations worth trying: predicted column j may stand for gold column i only if every value
    of j occurs in gold column i. Enumerated by backtracking, each predicted column used once."""
    allowed = [[j for j in range(width) if all(row[j] in gold_values[i] for row in predicted)]
               for i in range(width)]
    chosen: list[int] = []
    used: set[int] = set()

    def extend(i: int) -> Iterator[tuple[int, ...]]:
        if i == width:
            yield tuple(chosen)
            return
        for j in allowed[i]:
            if j not in used:
                used.add(j)
                chosen.append(j)
                yield from extend(i + 1)
                chosen.pop()
                used.discard(j)

    yield from extend(0)


def contains_gold(gold: Sequence[Row], predicted: Sequence[Row]) -> bool:
    """True when every gold row's values appear within a distinct predicted row (extra rows or columns allowed)."""
    remaining = [Counter(row) for row in predicted]
    for row in gold:
        need = Counter(row)
        match = next((i for i, have in enumerate(remaining) if not need - have), None)
        if match is None:
            return False
        remaining.pop(match)
    return True


def has_order_by(sql: str, dialect: str = "sqlite") -> bool:
    """Whether ORDER BY occurs anywhere in `sql` (the official evaluator's test for order-sensitive gold)."""
    try:
        tokens = sqlglot.tokenize(sql, read=dialect)
    except SqlglotError:
        return "order by" in sql.lower()
    return any(t.token_type == TokenType.ORDER_BY for t in tokens)


def remove_distinct(sql: str, dialect: str = "sqlite") -> str:
    """`sql` with every DISTINCT keyword cut out, as the official Spider evaluator does by default."""
    try:
        tokens = sqlglot.tokenize(sql, read=dialect)
    except SqlglotError:
        return sql
    spans = [(t.start, t.end) for t in tokens if t.token_type == TokenType.DISTINCT]
    if not spans:
        return sql
    pieces, cursor = [], 0
    for start, end in spans:
        pieces.append(sql[cursor:start])
        cursor = end + 1
    pieces.append(sql[cursor:])
    return "".join(pieces)


def normalize_operators(sql: str) -> str:
    """Join comparison operators written with a space ("> =") as the official evaluator does."""
    return sql.replace("> =", ">=").replace("< =", "<=").replace("! =", "!=")
