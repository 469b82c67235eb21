"""The plain reading of SQL comes from its syntax tree; lineage maps result columns to source columns."""

from __future__ import annotations

import pytest

from groundsql.sql.explain import explain_sql

pytestmark = pytest.mark.unit

SHOP = {"orders": {"order_id": "INT", "customer_id": "INT", "status": "TEXT", "total": "REAL"},
        "customers": {"customer_id": "INT", "region_id": "INT", "name": "TEXT"},
        "regions": {"region_id": "INT", "region_name": "TEXT"}}


def test_every_clause_is_read_in_order() -> None:
    e = explain_sql("SELECT r.region_name AS region, SUM(o.total) AS revenue, COUNT(*) AS n FROM orders o "
                    "JOIN customers c ON o.customer_id = c.customer_id LEFT JOIN regions r ON r.region_id = "
                    "c.region_id WHERE o.status = 'S' AND o.total > 10 GROUP BY r.region_name HAVING COUNT(*) > 2 "
                    "ORDER BY revenue DESC LIMIT 5", "sqlite", SHOP)
    assert e.tables == ["orders (as o)", "customers (as c)", "regions (as r)"]
    assert e.joins[1].endswith("(left join, keeping unmatched rows)")
    assert e.filters == ["o.status is 'S'", "o.total is greater than 10"]
    assert e.grouping == ["r.region_name"] and e.group_filters == ["COUNT(*) is greater than 2"]
    assert e.ordering == ["revenue (largest first)"] and e.limit == 5
    assert [(c.name, c.reading, c.aggregate) for c in e.columns] == [
        ("region", "r.region_name", False), ("revenue", "the sum of o.total", True), ("n", "the number of rows", True)]
    assert e.lineage == {"region": ["regions.region_name"], "revenue": ["orders.total"], "n": []}
    text = e.text()
    assert text.index("Reads") < text.index("Keeps rows") < text.index("Groups") < text.index("Sorts")
    assert "Keeps the first 5 rows." in text


@pytest.mark.parametrize(("sql", "fragment"), [
    ("SELECT name FROM customers WHERE region_id IN (1, 2)", "region_id is one of (1, 2)"),
    ("SELECT name FROM customers WHERE region_id NOT IN (SELECT region_id FROM regions)",
     "region_id is none of the values a subquery returns"),
    ("SELECT name FROM customers WHERE name IS NULL", "name is missing (NULL)"),
    ("SELECT name FROM customers WHERE name IS NOT NULL", "name is present"),
    ("SELECT name FROM customers WHERE region_id BETWEEN 1 AND 3", "region_id is between 1 and 3"),
    ("SELECT name FROM customers WHERE name LIKE 'A%' OR region_id = 2", "either name matches 'A%' or region_id is 2"),
    ("SELECT COUNT(DISTINCT region_id) AS k FROM customers", "k = the number of distinct region_id"),
    ("SELECT DISTINCT region_id FROM customers", "Returns distinct region_id."),
    ("SELECT name FROM customers UNION SELECT region_name FROM regions", "with UNION"),
])
def test_conditions_and_projections_in_words(sql: str, fragment: str) -> None:
    assert fragment in explain_sql(sql, "sqlite", SHOP).text()


def test_lineage_resolves_unqualified_columns_and_unions() -> None:
    e = explain_sql("SELECT name, region_name FROM customers JOIN regions USING (region_id)", "sqlite", SHOP)
    assert e.lineage == {"name": ["customers.name"], "region_name": ["regions.region_name"]}
    union = explain_sql("SELECT name FROM customers UNION SELECT region_name FROM regions", "sqlite", SHOP)
    assert union.lineage == {"name": ["customers.name", "regions.region_name"]}


def test_lineage_through_a_cte() -> None:
    e = explain_sql("WITH big AS (SELECT customer_id, total FROM orders WHERE total > 100) "
                    "SELECT customer_id, SUM(total) AS spent FROM big GROUP BY customer_id", "sqlite", SHOP)
    assert e.lineage["spent"] == ["orders.total"]
    assert e.subqueries == 1


def test_unparsable_sql_gives_an_empty_reading() -> None:
    e = explain_sql("SELEC nonsense (((", "sqlite")
    assert e.sentences() == [] and e.to_dict()["lineage"] == {}


def test_dialect_specific_sql() -> None:
    e = explain_sql('SELECT "Name" FROM "Singer" WHERE "Age" >= 30 ORDER BY "Age" LIMIT 3', "postgres",
                    {"Singer": {"Name": "TEXT", "Age": "INT"}})
    assert e.filters == ['"Age" is at least 30'] and e.limit == 3
    assert e.lineage == {"Name": ["Singer.Name"]}
