"""Question-shape checks on a crafted music-store database: each check fires on the mistake it names, stays
silent on the right query, and its rewrite (where it has one) runs and fixes what it names."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundsql.catalog import build_catalog
from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.refinement import execute_candidate
from groundsql.generation.shape_repair import shape_repair
from groundsql.models import ScriptedModel
from groundsql.selection.question import read_question
from groundsql.selection.shape import SHAPE_CHECKS, shape_findings

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("shape") / "store.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE genre (genre_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE media_type (media_type_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE track (track_id INTEGER PRIMARY KEY, name TEXT, genre_id INTEGER REFERENCES genre(genre_id),
                            media_type_id INTEGER REFERENCES media_type(media_type_id), unit_price REAL,
                            milliseconds INTEGER);
        CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, first_name TEXT, country TEXT, city TEXT,
                               is_premium INTEGER, support_rep TEXT);
        CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id),
                              total REAL, billing_country TEXT);
        CREATE TABLE invoice_line (line_id INTEGER PRIMARY KEY, invoice_id INTEGER REFERENCES invoice(invoice_id),
                                   track_id INTEGER REFERENCES track(track_id), quantity INTEGER);
        INSERT INTO genre VALUES (1, 'Rock'), (2, 'Jazz'), (3, 'Blues');
        INSERT INTO media_type VALUES (1, 'MPEG audio file'), (2, 'AAC audio file');
        INSERT INTO track VALUES (1, 'Alpha', 1, 1, 0.99, 200000), (2, 'Beta', 1, 2, 0.99, 300000),
                                 (3, 'Gamma', 2, 1, 1.99, 250000), (4, 'Delta', 3, 1, 0.99, 180000),
                                 (5, 'Epsilon', 1, 1, 1.99, 220000);
        INSERT INTO customer VALUES (1, 'Ann', 'France', 'Paris', 1, 'Jane'), (2, 'Bob', 'France', 'Lyon', 0, 'Jane'),
                                    (3, 'Cid', 'Spain', 'Madrid', 0, 'Mike'), (4, 'Dee', 'Canada', 'Toronto', 1, 'Mike'),
                                    (5, 'Eve', 'Spain', 'Madrid', 0, 'Jane');
        INSERT INTO invoice VALUES (1, 1, 5.0, 'France'), (2, 1, 3.0, 'France'), (3, 3, 8.0, 'Spain'),
                                   (4, 4, 2.0, 'Canada'), (5, 5, 1.0, 'Spain'),
                                   (6, 1, 4.0, 'France');
        INSERT INTO invoice_line VALUES (1, 1, 1, 2), (2, 1, 3, 1), (3, 2, 2, 1), (4, 3, 1, 3), (5, 3, 4, 1),
                                        (6, 4, 5, 1), (7, 5, 3, 1), (8, 5, 1, 1);
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def catalog(store: Path):
    return build_catalog(Database(str(store)), use_cache=False)


def check(store: Path, catalog, question: str, sql: str, *, checks: tuple[str, ...] | None = None):
    ctx = Context(question=question, db=Database(str(store)), models={"default": ScriptedModel([])},
                  catalog=catalog)
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return ctx, candidate, shape_findings(ctx, candidate, checks=checks)


def names(findings) -> set[str]:
    return {f.check for f in findings}


def test_the_question_reading() -> None:
    assert read_question("How many customers are from France?").one_number
    assert not read_question("How many customers are there in each country?").one_number
    assert read_question("How many customers are there in each country?").grouped
    shape = read_question("Which 3 genres have the most tracks?")
    assert shape.row_count == 3 and shape.superlative
    assert not read_question("List the first names of customers").superlative  # 'first name' is a column
    assert not read_question("Which customers have at least two invoices?").superlative
    assert read_question("Which genre brings in the most revenue?").entity == "genre"
    assert read_question("What media type do most tracks use?").entity == "media type"
    assert not read_question("What is the phone number of Ann?").counts


def test_count_asked_fires_on_a_list_and_its_rewrite_counts(store, catalog) -> None:
    ctx, candidate, findings = check(store, catalog, "How many different countries do customers come from?",
                                     "SELECT DISTINCT country FROM customer")
    assert names(findings) == {"count_asked"}
    repaired, remaining = shape_repair(ctx, candidate)
    assert repaired.result.rows == [(3,)] and not remaining
    assert repaired.repairs[-1]["rule"] == "shape:count_asked"
    _, _, silent = check(store, catalog, "How many different countries do customers come from?",
                         "SELECT COUNT(DISTINCT country) FROM customer")
    assert not silent


def test_list_asked_fires_on_a_lone_count(store, catalog) -> None:
    _, _, findings = check(store, catalog, "Which customers live in Madrid?",
                           "SELECT COUNT(*) FROM customer WHERE city = 'Madrid'")
    assert "list_asked" in names(findings)
    _, _, silent = check(store, catalog, "Which customers live in Madrid?",
                         "SELECT first_name FROM customer WHERE city = 'Madrid'")
    assert not silent


def test_unasked_limit_is_dropped_and_a_named_number_is_kept(store, catalog) -> None:
    ctx, candidate, findings = check(store, catalog, "List the names of tracks by price.",
                                     "SELECT name FROM track ORDER BY unit_price LIMIT 2")
    assert names(findings) == {"unasked_limit"}
    repaired, _ = shape_repair(ctx, candidate)
    assert repaired.result.row_count == 5
    _, _, wrong_number = check(store, catalog, "List the 3 most expensive tracks.",
                               "SELECT name FROM track ORDER BY unit_price DESC LIMIT 5")
    assert names(wrong_number) == {"unasked_limit"} and "LIMIT 3" in wrong_number[0].rewrite
    _, _, silent = check(store, catalog, "What is the longest track?",
                         "SELECT name FROM track ORDER BY milliseconds DESC LIMIT 1")
    assert not silent


def test_superlative_without_order_or_extreme(store, catalog) -> None:
    _, _, findings = check(store, catalog, "Which track is the longest?", "SELECT name FROM track")
    assert "superlative" in names(findings)


def test_rank_column_is_dropped_but_the_ranking_kept(store, catalog) -> None:
    sql = ("SELECT g.name, COUNT(*) AS n FROM genre AS g JOIN track AS t ON t.genre_id = g.genre_id "
           "GROUP BY g.name ORDER BY n DESC LIMIT 1")
    ctx, candidate, findings = check(store, catalog, "Which genre has the most tracks?", sql)
    assert "rank_column" in names(findings)
    repaired, _ = shape_repair(ctx, candidate)
    assert repaired.result.rows == [("Rock",)]
    _, _, asked = check(store, catalog, "Which genre has the most tracks, and how many does it have?", sql)
    assert "rank_column" not in names(asked)


def test_star_where_columns_are_named(store, catalog) -> None:
    _, _, findings = check(store, catalog, "What are the names of customers from Spain?",
                           "SELECT * FROM customer WHERE country = 'Spain'")
    assert "star" in names(findings)
    _, _, silent = check(store, catalog, "Show all the information about customers from Spain.",
                         "SELECT * FROM customer WHERE country = 'Spain'", checks=("star",))
    assert not silent


def test_missing_column_named_by_its_full_name(store, catalog) -> None:
    _, _, findings = check(store, catalog, "What is the unit price of the track Alpha?",
                           "SELECT name FROM track WHERE name = 'Alpha'")
    assert "missing_column" in names(findings)
    _, _, boolean = check(store, catalog, "Which premium customers live in France?",
                          "SELECT first_name FROM customer WHERE country = 'France'", checks=("missing_column",))
    assert names(boolean) == {"missing_column"}  # is_premium, named without its 'is'


def test_missing_column_of_a_table_the_query_never_reads(store, catalog) -> None:
    """'Billing country' is invoice.billing_country: a query on customer alone misses it (customer.country has
    other words); the same question answered from invoice raises nothing."""
    question = "Which billing country has the most invoices?"
    _, _, unread = check(store, catalog, question,
                         "SELECT country FROM customer GROUP BY country ORDER BY COUNT(*) DESC LIMIT 1",
                         checks=("missing_column",))
    assert names(unread) == {"missing_column"} and "invoice.billing_country" in unread[0].message
    _, _, right = check(store, catalog, question,
                        "SELECT billing_country FROM invoice GROUP BY billing_country ORDER BY COUNT(*) DESC LIMIT 1",
                        checks=("missing_column",))
    assert right == []


@pytest.mark.parametrize(("question", "sql", "fires"), [
    ("Which tracks last longer than 200000 milliseconds?",
     "SELECT name FROM track WHERE milliseconds < 200000", True),
    ("Which tracks last longer than 200000 milliseconds?",
     "SELECT name FROM track WHERE 200000 < milliseconds", False),
    ("Which tracks cost less than 1.5 or more than 1.9?",
     "SELECT name FROM track WHERE unit_price BETWEEN 1.5 AND 1.9", True),
    ("Which tracks cost at least 0.99 and at most 1.99?",
     "SELECT name FROM track WHERE unit_price BETWEEN 0.99 AND 1.99", False),
    ("Which tracks do not last more than 200000 milliseconds?",
     "SELECT name FROM track WHERE milliseconds <= 200000", False),
    ("Which invoices have a total of 5?", "SELECT invoice_id FROM invoice WHERE total > 5", False),
])
def test_comparison_direction(store, catalog, question: str, sql: str, fires: bool) -> None:
    _, _, findings = check(store, catalog, question, sql, checks=("comparison_direction",))
    assert (names(findings) == {"comparison_direction"}) is fires, findings


def test_entity_column_from_lineage(store, catalog) -> None:
    sql = ("SELECT t.name, SUM(l.quantity * t.unit_price) AS revenue FROM track AS t "
           "JOIN genre AS g ON g.genre_id = t.genre_id JOIN invoice_line AS l ON l.track_id = t.track_id "
           "GROUP BY t.name ORDER BY revenue DESC LIMIT 1")
    _, _, findings = check(store, catalog, "Which genre brings in the most revenue?", sql,
                           checks=("entity_column",))
    assert names(findings) == {"entity_column"} and "track.name" in findings[0].message
    right = ("SELECT g.name FROM genre AS g JOIN track AS t ON g.genre_id = t.genre_id JOIN invoice_line AS l "
             "ON l.track_id = t.track_id GROUP BY g.name ORDER BY SUM(l.quantity * t.unit_price) DESC LIMIT 1")
    _, _, silent = check(store, catalog, "Which genre brings in the most revenue?", right)
    assert not silent


def test_both_values_becomes_an_intersect(store, catalog) -> None:
    sql = ("SELECT c.first_name FROM customer AS c JOIN invoice AS i ON i.customer_id = c.customer_id "
           "JOIN invoice_line AS l ON l.invoice_id = i.invoice_id JOIN track AS t ON t.track_id = l.track_id "
           "WHERE t.genre_id = 1 AND t.genre_id = 2")
    ctx, candidate, findings = check(store, catalog, "Which customers bought both rock and jazz tracks?", sql,
                                     checks=("both_values",))
    assert names(findings) == {"both_values"}  # no row has two genres at once
    text_sql = ("SELECT c.first_name FROM customer AS c JOIN invoice AS i ON i.customer_id = c.customer_id "
                "WHERE i.billing_country = 'France' AND i.billing_country = 'Spain'")
    ctx, candidate, findings = check(store, catalog, "Which customers were billed in both France and Spain?",
                                     text_sql, checks=("both_values",))
    assert names(findings) == {"both_values"} and "INTERSECT" in findings[0].rewrite.upper()


def test_question_value_checked_against_the_data(store, catalog) -> None:
    _, _, invented = check(store, catalog, "How many tracks are Jazz?",
                           "SELECT COUNT(*) FROM track WHERE name = 'JZ'", checks=("question_value",))
    assert names(invented) == {"question_value"}
    _, _, code = check(store, catalog, "How many tracks are Jazz?",
                       "SELECT COUNT(*) FROM track AS t JOIN genre AS g ON g.genre_id = t.genre_id "
                       "WHERE g.name = 'Jazz'", checks=("question_value",))
    assert not code
    _, _, elsewhere = check(store, catalog, "How many invoices do customers from Paris have?",
                            "SELECT COUNT(*) FROM invoice WHERE billing_country = 'Paris'",
                            checks=("question_value",))
    assert names(elsewhere) == {"question_value"} and "customer.city" in elsewhere[0].message


def test_distinct_asked_when_rows_repeat(store, catalog) -> None:
    ctx, candidate, findings = check(store, catalog, "What are the different countries of customers?",
                                     "SELECT country FROM customer")
    assert "distinct_asked" in names(findings)
    repaired, _ = shape_repair(ctx, candidate)
    assert repaired.result.row_count == 3


def test_idle_join_and_unread_table(store, catalog) -> None:
    _, _, idle = check(store, catalog, "List the first names of customers from France.",
                       "SELECT c.first_name FROM customer AS c JOIN invoice AS i ON i.customer_id = c.customer_id "
                       "WHERE c.country = 'France'")
    assert "extra_join" in names(idle)
    _, _, unread = check(store, catalog, "How many invoices have tracks longer than 210000 milliseconds?",
                         "SELECT COUNT(*) FROM track WHERE milliseconds > 210000", checks=("unread_table",))
    assert names(unread) == {"unread_table"}


def test_extra_join_reads_only_the_joined_tables_own_words(store, catalog) -> None:
    """'invoice' names the kept invoice table, not invoice_line: the idle join to the lines is still found; a
    question that names the lines asks for invoices with a match and is left alone."""
    sql = ("SELECT i.invoice_id FROM invoice AS i JOIN invoice_line AS l ON l.invoice_id = i.invoice_id "
           "WHERE i.total > 2")
    _, _, idle = check(store, catalog, "List the ids of invoices with a total above 2.", sql,
                       checks=("extra_join",))
    assert names(idle) == {"extra_join"}
    _, _, named = check(store, catalog, "List the ids of invoices with a total above 2 that have a line.", sql,
                        checks=("extra_join",))
    assert names(named) == set()


def test_count_per_key_counts_the_table_that_refers_to_the_key(store, catalog) -> None:
    """Counting a table's own rows per its key gives 1 for every group: the table the question names that refers to
    the key is joined and its rows counted; with no such table named, the finding comes without a rewrite."""
    sql = "SELECT c.first_name, COUNT(*) FROM customer AS c GROUP BY c.customer_id"
    ctx, _, found = check(store, catalog, "Show each customer's first name and their number of invoices.", sql,
                          checks=("count_per_key",))
    assert names(found) == {"count_per_key"} and "invoice" in found[0].hint
    rows = ctx.query(found[0].rewrite, step="test").rows
    assert sorted(rows) == [("Ann", 3), ("Cid", 1), ("Dee", 1), ("Eve", 1)]
    _, _, unnamed = check(store, catalog, "Show each customer's first name and a number.", sql,
                          checks=("count_per_key",))
    assert names(unnamed) == {"count_per_key"} and not unnamed[0].rewrite
    by_name = "SELECT first_name, COUNT(*) FROM customer GROUP BY first_name"  # the names are unique here
    ctx, _, named = check(store, catalog, "Show each customer's first name and their number of invoices.", by_name,
                          checks=("count_per_key",))
    assert names(named) == {"count_per_key"}
    assert sorted(ctx.query(named[0].rewrite, step="test").rows) == [("Ann", 3), ("Cid", 1), ("Dee", 1), ("Eve", 1)]
    _, _, chance = check(store, catalog, "How many customers have each first name?", by_name,
                         checks=("count_per_key",))
    assert not chance  # unique by chance in these rows, and no table that refers to customers is named
    _, _, grouped = check(store, catalog, "How many customers are there in each country?",
                          "SELECT country, COUNT(*) FROM customer GROUP BY country", checks=("count_per_key",))
    assert not grouped


def test_key_join_finds_two_unrelated_keys_equated(store, catalog) -> None:
    """genre_id = media_type_id pairs a genre with a media type by number alone: a finding; for 'both' over a column
    both tables have, the rewrite intersects that column. A join along a key stays silent."""
    sql = "SELECT g.name FROM genre AS g JOIN media_type AS m ON g.genre_id = m.media_type_id"
    ctx, _, both = check(store, catalog, "Which names are used both by genres and by media types?", sql,
                         checks=("key_join",))
    assert names(both) == {"key_join"}
    assert both[0].rewrite == "SELECT name FROM genre INTERSECT SELECT name FROM media_type"
    assert ctx.query(both[0].rewrite, step="test").rows == []
    _, _, plain = check(store, catalog, "List genre names with a media type.", sql, checks=("key_join",))
    assert names(plain) == {"key_join"} and not plain[0].rewrite
    _, _, edge = check(store, catalog, "List the genre of each track.",
                       "SELECT g.name FROM track AS t JOIN genre AS g ON t.genre_id = g.genre_id",
                       checks=("key_join",))
    assert not edge


def test_sort_direction_descending_only_when_asked(store, catalog) -> None:
    """A descending sort where the question asks for an order but not a descending one is a finding whose rewrite
    sorts ascending; 'from highest to lowest' asks for it, a LIMIT makes the direction choose rows (left to the
    superlative checks), and a question that asks for no order leaves the presentation to the query."""
    sql = "SELECT name FROM track ORDER BY unit_price DESC, name"
    ctx, _, found = check(store, catalog, "List the track names ordered by price.", sql, checks=("sort_direction",))
    assert names(found) == {"sort_direction"}
    assert "DESC" not in found[0].rewrite.upper()
    assert ctx.query(found[0].rewrite, step="test").rows[:2] == [("Alpha",), ("Beta",)]  # 0.99 first, by name
    for question, query in [("List the track names from highest to lowest price.", sql),
                            ("List the track names in descending order of price.", sql),
                            ("List the track names ordered by price.", sql + " LIMIT 3"),
                            ("List the track names and their prices.", sql)]:  # no order asked: presentation
        _, _, silent = check(store, catalog, question, query, checks=("sort_direction",))
        assert not silent, question


def test_count_rank_aggregate_and_comparison(store, catalog) -> None:
    _, _, rank = check(store, catalog, "Which country has the largest number of customers?",
                       "SELECT country FROM customer ORDER BY customer_id DESC LIMIT 1", checks=("count_rank",))
    assert names(rank) == {"count_rank"}
    _, _, aggregate = check(store, catalog, "What is the average invoice total?",
                            "SELECT total FROM invoice", checks=("aggregate_asked",))
    assert names(aggregate) == {"aggregate_asked"}
    _, _, comparison = check(store, catalog, "Which invoices have a total greater than 4?",
                             "SELECT invoice_id FROM invoice WHERE total = 4", checks=("comparison_asked",))
    assert names(comparison) == {"comparison_asked"}


def test_right_queries_raise_nothing(store, catalog) -> None:
    right = [
        ("How many customers are from France?", "SELECT COUNT(*) FROM customer WHERE country = 'France'"),
        ("How many customers are there in each country?", "SELECT country, COUNT(*) FROM customer GROUP BY country"),
        ("List the names of tracks that cost more than 1.",
         "SELECT name FROM track WHERE unit_price > 1"),
        ("What are the first names of customers in Madrid, sorted alphabetically?",
         "SELECT first_name FROM customer WHERE city = 'Madrid' ORDER BY first_name"),
        ("Which media type is used by the most tracks?",
         "SELECT m.name FROM media_type AS m JOIN track AS t ON t.media_type_id = m.media_type_id "
         "GROUP BY m.name ORDER BY COUNT(*) DESC LIMIT 1"),
    ]
    for question, sql in right:
        _, _, findings = check(store, catalog, question, sql)
        assert not findings, (question, [f.message for f in findings])
    assert len(SHAPE_CHECKS) >= 12


def test_ungrouped_flags_a_column_the_groups_do_not_determine(store: Path, catalog) -> None:
    question = "Which city has the most invoices?"
    # Grouped by country, the city shown is whichever row SQLite picks: France has Paris and Lyon customers.
    _, _, findings = check(store, catalog, question,
                           "SELECT c.city FROM customer c JOIN invoice i ON i.customer_id = c.customer_id "
                           "GROUP BY c.country ORDER BY COUNT(*) DESC LIMIT 1", checks=("ungrouped",))
    assert names(findings) == {"ungrouped"} and "c.city" in findings[0].message.lower()
    # Grouped by the column shown: silent.
    _, _, findings = check(store, catalog, question,
                           "SELECT c.city FROM customer c JOIN invoice i ON i.customer_id = c.customer_id "
                           "GROUP BY c.city ORDER BY COUNT(*) DESC LIMIT 1", checks=("ungrouped",))
    assert not findings
    # Determined by the grouped primary key (each customer has one city): silent.
    _, _, findings = check(store, catalog, "Which customer has the most invoices, and their city?",
                           "SELECT c.first_name, c.city FROM customer c JOIN invoice i ON i.customer_id = c.customer_id "
                           "GROUP BY c.customer_id ORDER BY COUNT(*) DESC LIMIT 1", checks=("ungrouped",))
    assert not findings
    # Equal to a grouped column through the join condition: silent.
    _, _, findings = check(store, catalog, "How many invoices does each customer have?",
                           "SELECT c.customer_id, COUNT(*) FROM customer c JOIN invoice i "
                           "ON i.customer_id = c.customer_id GROUP BY i.customer_id", checks=("ungrouped",))
    assert not findings
