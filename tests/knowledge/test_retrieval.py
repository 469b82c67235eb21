"""BM25 retrieval ranks the item a question needs first; scoped and `always` items behave as documented."""

from __future__ import annotations

import pytest

from groundsql.knowledge import Item, KnowledgeRetriever
from groundsql.knowledge.retrieval import rank_tables, words

pytestmark = pytest.mark.unit

ITEMS = [
    Item("rule", "An active customer has status 'A'; a closed one has status 'C'.", "rules.yaml:1",
         tables=("customers",)),
    Item("rule", "Revenue of an order line is quantity * unit_price.", "rules.yaml:3", tables=("order_lines",)),
    Item("rule", "The fiscal year starts on 1 April: fiscal Q1 is April to June.", "rules.yaml:5"),
    Item("term", "'churned', 'lost' means customers.status = 'C'", "glossary.yaml:1", keywords="churned lost"),
    Item("rule", "Cancelled orders (status 'X') never count as sales.", "rules.yaml:7", tables=("orders",)),
    Item("rule", "Always answer in euros.", "rules.yaml:9", always=True),
]


@pytest.mark.parametrize(("question", "first"), [
    ("How many active customers are there?", "rules.yaml:1"),
    ("What was the total revenue per product?", "rules.yaml:3"),
    ("How many orders were placed in fiscal Q1 of 2023?", "rules.yaml:5"),
    ("How many customers churned?", "glossary.yaml:1"),
    ("Total sales of coffee, excluding cancelled orders", "rules.yaml:7"),
])
def test_the_relevant_item_ranks_first_after_the_always_items(question: str, first: str) -> None:
    found = KnowledgeRetriever(ITEMS).search(question)
    assert found[0].item.source == "rules.yaml:9"  # `always` items lead
    assert found[1].item.source == first
    assert all(r.score > 0 for r in found[1:])


def test_unrelated_questions_retrieve_only_the_always_items() -> None:
    assert [r.item.source for r in KnowledgeRetriever(ITEMS).search("List the tag names")] == ["rules.yaml:9"]


def test_items_scoped_to_tables_not_shown_count_half() -> None:
    retriever = KnowledgeRetriever(ITEMS[:2])
    whole = retriever.search("active customers revenue", tables=None)
    scoped = retriever.search("active customers revenue", tables=["order_lines"])
    assert {r.item.source: r.score for r in scoped}["rules.yaml:1"] == pytest.approx(
        {r.item.source: r.score for r in whole}["rules.yaml:1"] / 2, abs=0.01)


def test_words_split_names_and_drop_plurals_and_stopwords() -> None:
    assert words("How many CustomerOrders in order_lines?") == ["customer", "order", "order", "line"]


def test_tables_rank_by_question_with_value_hits_boosted() -> None:
    tables = [("tags", "tag_id tag_name"), ("orders", "order_id status order_date"),
              ("regions", "region_id region_name country")]
    assert rank_tables(tables, "orders by status")[0] == "orders"
    assert rank_tables(tables, "how many in the North", boost=["regions"])[0] == "regions"


def test_options_are_typed_and_a_bad_value_is_one_clear_error() -> None:
    from groundsql.errors import ConfigError
    from groundsql.knowledge import KnowledgeOptions

    options = KnowledgeOptions.from_options({"catalog_context": False, "refine_rounds": 3, "schema_budget_tokens": 900})
    assert not options.catalog_context and options.schema_budget_tokens == 900 and options.knowledge
    assert KnowledgeOptions.from_options({"catalog_context": False, "knowledge": False, "dialect_notes": False}).plain
    with pytest.raises(ConfigError, match="option knowledge='/tmp/x'"):
        KnowledgeOptions.from_options({"knowledge": "/tmp/x"})
