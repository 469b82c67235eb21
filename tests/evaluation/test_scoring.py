"""Scoring against the real Spider databases: gold scores 100%, and we agree with the official evaluator."""

from __future__ import annotations

import json

import pytest

from groundsql.evaluation import load_dataset
from groundsql.evaluation.scoring import Scorer

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def spider(spider_dir):
    return load_dataset(spider_dir)


def test_gold_sql_scores_100_percent_on_every_open_question(spider):
    scorer = Scorer("spider")
    wrong = [q.id for q in spider.questions if not scorer.score(q.db_path, q.gold_sql, q.gold_sql).correct]
    assert len(spider.questions) == 646
    assert wrong == []


def test_agrees_with_the_official_test_suite_evaluator(spider, spider_dir):
    check = json.loads((spider_dir / "scorer_check.json").read_text())["predictions"]
    scorer = Scorer("spider")
    disagreements = []
    for item in check:
        q = spider.questions[item["id"]]
        verdict = scorer.score(q.db_path, q.gold_sql, item["sql"])
        if int(verdict.correct) != item["official_exec_match"]:
            disagreements.append((item["id"], item["sql"], item["official_exec_match"], verdict))
    agreement = 1 - len(disagreements) / len(check)
    assert agreement >= 0.99, "disagreements with the official evaluator:\n" + "\n".join(map(str, disagreements))


def test_failure_classes_on_a_real_database(spider):
    q = next(q for q in spider.questions if q.gold_sql == "SELECT count(*) FROM singer")
    scorer = Scorer("spider")
    assert scorer.score(q.db_path, q.gold_sql, "SELECT count(*) FROM nowhere").failure == "execution_error"
    assert scorer.score(q.db_path, q.gold_sql, "SELEC count(*) FROM singer").failure == "malformed"
    assert scorer.score(q.db_path, q.gold_sql, "").failure == "malformed"
    assert scorer.score(q.db_path, q.gold_sql, "DROP TABLE singer").failure == "malformed"
    assert scorer.score(q.db_path, q.gold_sql, "SELECT count(*) FROM singer WHERE 0").failure == "wrong"
    assert scorer.score(q.db_path, q.gold_sql, "SELECT * FROM singer WHERE 0").failure == "empty"
    assert scorer.score(q.db_path, q.gold_sql, "SELECT count(*), 99 FROM singer").failure == "superset"
    assert scorer.score(q.db_path, q.gold_sql, "SELECT COUNT(*) FROM singer;").correct


def test_order_matters_only_when_gold_orders(spider):
    q = next(q for q in spider.questions if q.gold_sql.startswith("SELECT name ,  country ,  age FROM singer ORDER BY"))
    scorer = Scorer("spider")
    assert scorer.score(q.db_path, q.gold_sql, "SELECT name, country, age FROM singer ORDER BY age DESC").correct
    assert not scorer.score(q.db_path, q.gold_sql, "SELECT name, country, age FROM singer ORDER BY age").correct
    assert scorer.score(q.db_path, q.gold_sql, "SELECT age, name, country FROM singer ORDER BY age DESC").correct
    unordered = "SELECT name FROM singer"
    assert scorer.score(q.db_path, unordered, "SELECT name FROM singer ORDER BY name").correct


def test_bird_rules_compare_sets(spider):
    q = spider.questions[0]
    bird = Scorer("bird")
    assert bird.score(q.db_path, "SELECT country FROM singer", "SELECT DISTINCT country FROM singer").correct
    assert not Scorer("spider", keep_distinct=True).score(
        q.db_path, "SELECT country FROM singer", "SELECT DISTINCT country FROM singer").correct
