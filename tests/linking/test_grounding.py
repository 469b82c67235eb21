"""Literal grounding keeps the columns that store the question's values, with their stored spellings."""

from __future__ import annotations

import pytest

from groundsql.linking import SchemaSubset
from groundsql.linking.grounding import ground_literals

from .conftest import make_ctx

pytestmark = pytest.mark.integration


def test_value_in_a_linked_table_adds_its_column(school):
    ctx = make_ctx(school, "How many students come from france?")
    subset = SchemaSubset()
    subset.add("student", "name")
    ground_literals(ctx, subset)
    column = subset.tables["student"].columns["country"]
    assert any("'France'" in e for e in column.evidence)  # the stored spelling, not the question's


def test_exact_value_in_another_table_adds_it_as_a_filter(school):
    ctx = make_ctx(school, "List the students taking Linear Algebra")
    subset = SchemaSubset()
    subset.add("student", "name")
    ground_literals(ctx, subset)
    assert subset.tables["course"].role == "filter"
    assert "title" in subset.tables["course"].columns


def test_grounding_stays_within_the_stage_input(school):
    ctx = make_ctx(school, "List the students taking Linear Algebra")
    subset = SchemaSubset()
    subset.add("student", "name")
    within = SchemaSubset()
    within.add("student")
    ground_literals(ctx, subset, within=within)
    assert "course" not in subset.tables


def test_grounding_can_be_disabled(school):
    ctx = make_ctx(school, "students from France", link_ground=False)
    subset = SchemaSubset()
    subset.add("student", "name")
    ground_literals(ctx, subset)
    assert list(subset.tables["student"].columns) == ["name"]


def test_short_codes_match_only_with_the_same_spelling(tmp_path):
    import sqlite3

    from groundsql.db import Database

    path = tmp_path / "codes.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE airport (iata TEXT, city TEXT);"
                           "INSERT INTO airport VALUES ('AGE', 'Wangerooge'), ('ALL', 'Albenga'), ('LHR', 'London');"
                           "CREATE TABLE person (name TEXT, age INTEGER); INSERT INTO person VALUES ('Ann', 30);")
    db = Database(str(path))
    try:
        subset = SchemaSubset()
        subset.add("person", "name")
        ground_literals(make_ctx(db, "Show the age of all people"), subset)
        assert "airport" not in subset.tables  # 'age' and 'all' are words here, not the codes AGE and ALL
        ground_literals(make_ctx(db, "Which city is the airport LHR in?"), subset)
        assert "iata" in subset.tables["airport"].columns  # the same spelling is a real code
    finally:
        db.close()
