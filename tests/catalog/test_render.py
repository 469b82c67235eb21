"""Rendering a catalog for prompts: both styles, linked-first ordering, table families, token budgets."""

from __future__ import annotations

import pytest

from groundsql.catalog import estimate_tokens, render
from groundsql.errors import ConfigError

pytestmark = pytest.mark.integration


def test_ddl_carries_descriptions_statistics_and_keys(crafted_catalog) -> None:
    text = render(crafted_catalog, ["customers", "orders"])
    assert text.startswith("-- 100 rows\nCREATE TABLE customers (")
    assert "customer_id INTEGER PRIMARY KEY" in text
    assert "FOREIGN KEY (customer_id) REFERENCES customers(customer_id)" in text
    assert "-- dimension; values 'business', 'retail'" in text or "-- dimension; values 'retail', 'business'" in text
    assert "metric; range" in text
    assert "CREATE TABLE events" not in text


def test_compact_line_form(crafted_catalog) -> None:
    text = render(crafted_catalog, ["customers"], style="compact")
    assert text.startswith("customers(customer_id:INTEGER PK[")
    assert "segment:TEXT['" in text and text.count("\n") == 0


def test_suffix_families_are_shown_once(crafted_catalog) -> None:
    ddl = render(crafted_catalog)
    assert ddl.count("CREATE TABLE sales_") == 1
    assert "4 tables share these columns: sales_2017, sales_2018, sales_2019, sales_2020" in ddl
    compact = render(crafted_catalog, style="compact")
    assert "same columns: sales_2018, sales_2019, sales_2020" in compact


def test_linked_tables_and_columns_come_first(crafted_catalog) -> None:
    text = render(crafted_catalog, style="compact", linked={"orders": ["total"], "customers": []})
    lines = text.splitlines()
    assert lines[0].startswith("orders(") and lines[1].startswith("customers(")
    assert lines[0].startswith("orders(order_id:INTEGER PK")
    assert lines[0].index("customer_id:") < lines[0].index("total:") < lines[0].index("order_date:")


@pytest.mark.parametrize("style", ["ddl", "compact"])
@pytest.mark.parametrize("budget", [40, 120, 300, 700, 2000])
def test_rendering_stays_within_budget(crafted_catalog, world_catalog, style: str, budget: int) -> None:
    for catalog in (crafted_catalog, world_catalog):
        text = render(catalog, budget_tokens=budget, style=style)
        assert 0 < estimate_tokens(text) <= budget
    full = render(world_catalog, style=style)
    assert estimate_tokens(full) > 300
    small = render(world_catalog, budget_tokens=300, style=style, linked={"city": ["Name"]})
    assert "city" in small.splitlines()[0] or "city" in small.splitlines()[1]
    assert "Name" in small  # a linked column survives the cut


def test_custom_token_counter_and_bad_style(world_catalog) -> None:
    words = render(world_catalog, budget_tokens=50, count_tokens=lambda t: len(t.split()))
    assert len(words.split()) <= 50
    with pytest.raises(ConfigError):
        render(world_catalog, style="yaml")
