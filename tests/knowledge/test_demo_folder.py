"""The demo shop's knowledge folder: it loads (every example runs), and each question of the knowledge-use check
finds the rule or glossary entry it needs in its prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.knowledge import load_knowledge, render_context
from groundsql.knowledge.store import write_demo_knowledge

pytestmark = pytest.mark.integration

QUESTIONS = json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "knowledge_use" / "questions.json")
                       .read_text())
NEEDS = ["customers.status = 'A'", "customers.status = 'C'", "orders.status = 'X'", "IN ('P', 'S')",
         "orders.status = 'D'", "never count as revenue", "monthly_fee", "plan = 'pro'", "('Spain', 'Portugal')",
         "('Norway', 'Sweden')", "TRIM(customers.segment)", "coupon_code IS NOT NULL", "shipping_fee = 0",
         "category = 'Equipment'", "('Coffee', 'Tea')", "starts on 1 April", "fiscal Q1", "LIKE '__/__/____'",
         "end_date IS NULL", "customers.status = 'C'"]


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    from groundsql.demo import generate_demo_database

    path = tmp_path_factory.mktemp("shop") / "demo.sqlite"
    generate_demo_database(path, seed=7)
    write_demo_knowledge(path)
    return path


def test_the_demo_folder_loads_and_its_examples_run(shop: Path) -> None:
    loaded = load_knowledge(shop.with_name("demo.sqlite.knowledge"), Database(str(shop)))
    counts = loaded.counts()
    assert counts["rules"] == 8 and counts["terms"] == 14 and counts["examples"] == 2 and counts["doc_chunks"] == 3


def test_every_check_question_has_a_gold_answer(shop: Path) -> None:
    db = Database(str(shop))
    assert len(QUESTIONS) == 20 == len(NEEDS)
    for question in QUESTIONS:
        rows = db.execute(question["query"]).rows
        assert rows and rows[0][0] is not None, question["question"]


@pytest.mark.parametrize(("index", "needed"), list(enumerate(NEEDS)))
def test_each_question_finds_the_knowledge_it_needs(shop: Path, index: int, needed: str) -> None:
    ctx = Context(question=QUESTIONS[index]["question"], db=Database(str(shop)), models={})
    context = render_context(ctx)
    assert needed in context.knowledge, context.knowledge
