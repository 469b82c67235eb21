"""Linking from PreSQL drafts: the union of what they read, and tables brought in for misplaced columns."""

from __future__ import annotations

import sqlite3

import pytest

from groundsql.catalog import introspect
from groundsql.db import Database
from groundsql.linking.presql import owners_of, subset_from_drafts

pytestmark = pytest.mark.integration


@pytest.fixture()
def music_schema(music_db):
    with Database(str(music_db)) as db:
        return introspect(db)


@pytest.mark.parametrize("sqls, expected", [
    (["SELECT s.name FROM singer AS s JOIN song AS t ON s.singer_id = t.singer_id WHERE t.sales > 5"],
     {"singer": ["name", "singer_id"], "song": ["singer_id", "sales"]}),
    (["SELECT count(*) FROM singer WHERE country = 'France'"], {"singer": ["country"]}),
    (["SELECT * FROM song"], {"song": ["song_id", "singer_id", "title", "sales"]}),
    (["SELECT name FROM singer", "SELECT title FROM song"], {"singer": ["name"], "song": ["title"]}),
    (["SELECT nope FROM ghost", "not sql at all ((", ""], {}),
    (["SELECT Name FROM SINGER WHERE Age > 30"], {"singer": ["name", "age"]}),
    # a column put on the wrong table brings in the table that has it; output aliases are not columns
    (["SELECT title, count(*) AS n FROM singer WHERE country = 'France' ORDER BY n"],
     {"singer": ["country"], "song": ["title"]}),
])
def test_subset_from_drafts(music_schema, sqls, expected):
    subset = subset_from_drafts(music_schema, sqls, "sqlite")
    assert {t: sorted(c) for t, c in subset.as_mapping().items()} == {t: sorted(c) for t, c in expected.items()}




@pytest.fixture()
def twin_schema(tmp_path):
    """Two databases merged into one, as in the large-schema benchmark: two `singer` tables with other columns."""
    path = tmp_path / "twins.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE awards__singer (singer_id INTEGER PRIMARY KEY, name TEXT, net_worth REAL);
        CREATE TABLE concerts__stadium (stadium_id INTEGER PRIMARY KEY, name TEXT, country TEXT);
        CREATE TABLE concerts__singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
        CREATE TABLE people__person (person_id INTEGER PRIMARY KEY, name TEXT, age INTEGER);
    """)
    conn.close()
    with Database(str(path)) as db:
        return introspect(db)


def test_misplaced_columns_bring_in_the_table_that_has_them_all(twin_schema):
    # The draft picked the wrong `singer`: it lacks country and age, which only concerts__singer has together.
    subset = subset_from_drafts(twin_schema, ["SELECT name, country, age FROM awards__singer"], "sqlite")
    mapping = {t: sorted(c) for t, c in subset.as_mapping().items()}
    assert mapping["awards__singer"] == ["name"]
    assert mapping["concerts__singer"] == ["age", "country"]
    assert len(mapping) == 3  # at most two tables per misplaced group: the best two
    assert "has columns a PreSQL draft asked of awards__singer" in subset.tables["concerts__singer"].reason


def test_owners_rank_by_coverage_then_name_likeness(twin_schema):
    ranked = [t.name for t in owners_of(twin_schema, {"country", "age"}, near="awards__singer")]
    assert ranked == ["concerts__singer", "concerts__stadium", "people__person"]
    # equal coverage: the name closest to the table the draft used comes first
    assert [t.name for t in owners_of(twin_schema, {"age"}, near="singer")][0] == "concerts__singer"
    assert [t.name for t in owners_of(twin_schema, {"age"}, near="person")][0] == "people__person"
    assert owners_of(twin_schema, {"nope"}) == []
