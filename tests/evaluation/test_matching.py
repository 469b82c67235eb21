"""Result equivalence under Spider and BIRD rules, and the SQL rewrites the official evaluator applies."""

from __future__ import annotations

import pytest

from groundsql.evaluation.matching import (
    bird_equal,
    contains_gold,
    has_order_by,
    remove_distinct,
    spider_equal,
)
from groundsql.evaluation.scoring import classify
from groundsql.evaluation.summary import percentile

pytestmark = pytest.mark.unit


def test_spider_rows_are_bags_unless_ordered():
    gold = [(1, "a"), (2, "b"), (2, "b")]
    assert spider_equal(gold, [(2, "b"), (1, "a"), (2, "b")], order_matters=False)
    assert not spider_equal(gold, [(2, "b"), (1, "a"), (2, "b")], order_matters=True)
    assert not spider_equal(gold, [(1, "a"), (2, "b"), (1, "a")], order_matters=False)  # same set, other bag
    assert not spider_equal(gold, [(1, "a"), (2, "b")], order_matters=False)


def test_spider_tolerates_column_permutations_consistently():
    gold = [(1, "a", 10.0), (2, "b", 20.0)]
    assert spider_equal(gold, [("a", 10.0, 1), ("b", 20.0, 2)], order_matters=True)
    assert not spider_equal(gold, [("a", 20.0, 1), ("b", 10.0, 2)], order_matters=False)
    assert not spider_equal(gold, [(1, "a"), (2, "b")], order_matters=False)  # fewer columns


def test_spider_wide_results_with_repeated_values():
    gold = [tuple(range(8)), tuple(range(8, 16))]
    moved = [tuple(reversed(r)) for r in gold]
    assert spider_equal(gold, moved, order_matters=False)
    same = [(1,) * 8, (1,) * 8]
    assert spider_equal(same, same, order_matters=True)


def test_numbers_compare_by_value_and_empty_results_match():
    assert spider_equal([(1,)], [(1.0,)], order_matters=False)
    assert spider_equal([], [], order_matters=False)
    assert not spider_equal([(None,)], [], order_matters=False)


def test_bird_compares_sets_with_columns_in_order():
    assert bird_equal([(1, "a"), (1, "a")], [(1, "a")])
    assert not bird_equal([(1, "a")], [("a", 1)])


def test_remove_distinct_cuts_only_the_keyword():
    assert remove_distinct("SELECT DISTINCT a, count(DISTINCT b) FROM t") == "SELECT  a, count( b) FROM t"
    assert remove_distinct("SELECT 'distinct' FROM t") == "SELECT 'distinct' FROM t"


def test_order_by_detection_ignores_string_literals():
    assert has_order_by("SELECT a FROM t ORDER   BY a")
    assert has_order_by("SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3)")
    assert not has_order_by("SELECT 'order by' FROM t")


def test_failure_classes():
    gold = [(42,)]
    assert classify(gold, []) == "empty"
    assert classify(gold, [(42, 99)]) == "superset"
    assert classify(gold, [(42,), (43,)]) == "superset"
    assert classify(gold, [(99,)]) == "wrong"
    assert contains_gold([(1, "x"), (1, "x")], [("x", 1, 5), ("x", 1, 6)])
    assert not contains_gold([(1, "x"), (1, "x")], [("x", 1, 5)])


def test_percentiles_interpolate():
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 100) == 4.0
    assert percentile([], 90) == 0.0
