"""Result sanity checks: each check fires on a crafted database that needs it and stays quiet on a near case."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.catalog import build_catalog
from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.refinement import execute_candidate
from groundsql.models import ScriptedModel
from groundsql.selection.checks import JOIN_CHECKS, findings_hint, sanity_check
from groundsql.trace import QueryRun
from tests.conftest import sqlite_from_script

SHOP = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, region TEXT, score TEXT, joined TEXT, rating REAL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), amount REAL,
                     status TEXT, coupon TEXT);
CREATE TABLE item (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id), sku TEXT);
INSERT INTO customer VALUES
  (1, 'Ann', 'North ', '9', '2024-01-05', 4.0), (2, 'Bob', 'South', '10', '05/02/2024', NULL),
  (3, 'Cyd', 'North ', '100', '2024-03-01', NULL), (4, 'Dee', 'East', '25', '2024-02-11', 3.0),
  (5, 'Eve', 'South', '7', '03/03/2024', NULL);
INSERT INTO orders VALUES (1, 1, 10.0, 'shipped', 'A'), (2, 1, 20.0, 'shipped', NULL), (3, 2, 5.0, 'cancelled', 'B'),
                          (4, 3, 7.5, 'shipped', 'A');
INSERT INTO item VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x'), (4, 3, 'z'), (5, 4, 'x');
"""


@pytest.fixture()
def shop(tmp_path: Path) -> Database:
    return Database(str(sqlite_from_script(tmp_path / "shop.sqlite", SHOP)))


def run_checks(db: Database, question: str, sql: str, *, catalog: bool = False, checks: tuple | None = None) -> list:
    ctx = Context(question=question, db=db, models={"default": ScriptedModel([])},
                  catalog=build_catalog(db, use_cache=False) if catalog else None)
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return sanity_check(ctx, candidate) if checks is None else sanity_check(ctx, candidate, checks=checks)


def kinds(findings: list) -> list[str]:
    return [f.check for f in findings]


@pytest.mark.integration
def test_fanout_fires_when_a_join_repeats_rows_and_not_for_a_many_to_one_join(shop: Database) -> None:
    doubled = run_checks(shop, "What is the total amount of shipped orders?",
                         "SELECT SUM(o.amount) FROM orders o JOIN item i ON i.order_id = o.id WHERE o.status = 'shipped'")
    assert kinds(doubled) == ["fanout"] and "double-counts" in doubled[0].hint
    fine = run_checks(shop, "What is the total amount of orders of customers in the South?",
                      "SELECT SUM(o.amount) FROM orders o JOIN customer c ON c.id = o.customer_id "
                      "WHERE c.region = 'South'")
    assert "fanout" not in kinds(fine)


@pytest.mark.integration
def test_row_loss_fires_for_each_with_an_inner_join_and_not_with_a_left_join(shop: Database) -> None:
    lost = run_checks(shop, "How many orders does each customer have?",
                      "SELECT c.name, COUNT(*) FROM customer c JOIN orders o ON o.customer_id = c.id GROUP BY c.name")
    assert kinds(lost) == ["row_loss"] and "LEFT JOIN" in lost[0].hint and "2 of 5" in lost[0].hint
    kept = run_checks(shop, "How many orders does each customer have?",
                      "SELECT c.name, COUNT(o.id) FROM customer c LEFT JOIN orders o ON o.customer_id = c.id "
                      "GROUP BY c.name")
    assert "row_loss" not in kinds(kept)


@pytest.mark.integration
def test_null_traps(shop: Database) -> None:
    eq_null = run_checks(shop, "Which orders have no coupon?", "SELECT id FROM orders WHERE coupon = NULL")
    assert "null_trap" in kinds(eq_null)
    not_in = run_checks(shop, "Which customers never used coupon A?",
                        "SELECT name FROM customer WHERE id NOT IN (SELECT coupon FROM orders WHERE amount > 1)")
    assert any("NOT IN" in f.message for f in not_in)
    safe = run_checks(shop, "Which customers have no orders?",
                      "SELECT name FROM customer WHERE id NOT IN (SELECT customer_id FROM orders)")
    assert "null_trap" not in kinds(safe)
    avg = run_checks(shop, "What is the average rating?", "SELECT AVG(rating) FROM customer", catalog=True)
    assert any("AVG" in f.message for f in avg)


@pytest.mark.integration
def test_type_trap_needs_the_catalog_and_fires_on_numbers_as_text(shop: Database) -> None:
    sql = "SELECT name FROM customer ORDER BY score DESC LIMIT 1"
    assert "type_trap" in kinds(run_checks(shop, "Who has the highest score?", sql, catalog=True))
    cast = "SELECT name FROM customer ORDER BY CAST(score AS INTEGER) DESC LIMIT 1"
    assert "type_trap" not in kinds(run_checks(shop, "Who has the highest score?", cast, catalog=True))


@pytest.mark.integration
def test_literal_mismatch_names_the_stored_spelling(shop: Database) -> None:
    findings = run_checks(shop, "How many customers are in the north?",
                          "SELECT COUNT(*) FROM customer WHERE region = 'north'")
    assert kinds(findings) == ["literal"] and "'North '" in findings[0].message
    exact = run_checks(shop, "How many customers are in the south?",
                       "SELECT COUNT(*) FROM customer WHERE region = 'South'")
    assert exact == []


@pytest.mark.integration
def test_shape_and_ties(shop: Database) -> None:
    shape = run_checks(shop, "How many orders are there?", "SELECT status, COUNT(*) FROM orders GROUP BY status")
    assert kinds(shape) == ["shape"]
    grouped = run_checks(shop, "How many orders are there for each status?",
                         "SELECT status, COUNT(*) FROM orders GROUP BY status")
    assert grouped == []
    tie = run_checks(shop, "Which region has the most customers?",
                     "SELECT region, COUNT(*) AS n FROM customer GROUP BY region ORDER BY n DESC LIMIT 1")
    assert kinds(tie) == ["ties"]
    no_tie = run_checks(shop, "Which customer spent the most?",
                        "SELECT customer_id, SUM(amount) AS s FROM orders GROUP BY customer_id ORDER BY s DESC LIMIT 1")
    assert no_tie == []
    assert "LIMIT 1" in findings_hint(tie)


@pytest.mark.integration
def test_probes_run_through_the_guarded_database_and_are_traced(shop: Database) -> None:
    ctx = Context(question="What is the total amount?", db=shop, models={"default": ScriptedModel([])})
    candidate = execute_candidate(ctx, "SELECT SUM(o.amount) FROM orders o JOIN item i ON i.order_id = o.id",
                                  source="test")
    sanity_check(ctx, candidate)
    steps = [e.step for e in ctx.trace.events if isinstance(e, QueryRun)]
    assert "check:fanout" in steps


@pytest.mark.integration
def test_extra_join_fires_only_when_an_idle_join_changes_the_rows(shop: Database) -> None:
    def extra(question: str, sql: str) -> list:
        return run_checks(shop, question, sql, checks=JOIN_CHECKS)

    repeated = extra("List every customer's name.", "SELECT c.name FROM customer c JOIN orders o ON o.customer_id = c.id")
    assert kinds(repeated) == ["extra_join"] and "4 rows with it, 5 without" in repeated[0].hint
    assert repeated[0].hint.endswith("The query without it: SELECT c.name AS name FROM customer AS c")
    fanned = extra("Names of customers.", "SELECT c.name FROM customer c JOIN orders o ON o.customer_id = c.id "
                                          "JOIN item i ON i.order_id = o.id")
    assert kinds(fanned) == ["extra_join"] and "item" in fanned[0].message  # orders bridges to item: not idle
    # Not findings: the joined table is filtered on, shown, or counted; a many-to-one join that keeps every row.
    assert extra("Names of customers with a shipped order.", "SELECT c.name FROM customer c JOIN orders o "
                 "ON o.customer_id = c.id WHERE o.status = 'shipped'") == []
    assert extra("Order amounts with names.", "SELECT o.amount, c.name FROM orders o JOIN customer c "
                 "ON c.id = o.customer_id") == []
    assert extra("Orders per customer.", "SELECT c.name, COUNT(*) FROM customer c JOIN orders o "
                 "ON o.customer_id = c.id GROUP BY c.name") == []
    assert extra("Amounts of orders.", "SELECT o.amount FROM orders o JOIN customer c ON c.id = o.customer_id") == []
    assert extra("List every customer's name.", "SELECT c.name FROM customer c LEFT JOIN orders o "
                 "ON o.customer_id = c.id") == []


@pytest.mark.integration
def test_checks_work_on_duckdb(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "shop.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount DOUBLE, status VARCHAR)")
    conn.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, order_id INTEGER, sku VARCHAR)")
    conn.execute("INSERT INTO orders VALUES (1, 10, 'Shipped'), (2, 20, 'shipped')")
    conn.execute("INSERT INTO item VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z')")
    conn.close()
    db = Database(f"duckdb:///{path}")
    assert kinds(run_checks(db, "Total amount?", "SELECT SUM(o.amount) FROM orders o JOIN item i ON i.order_id = o.id")) \
        == ["fanout"]
    assert kinds(run_checks(db, "How many orders were cancelled?",
                            "SELECT COUNT(*) FROM orders WHERE status = 'SHIPPED'")) == ["literal"]
