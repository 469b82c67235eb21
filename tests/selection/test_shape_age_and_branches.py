"""`age_direction` (which end of an age or a date is the oldest), `branch_join` (an idle join in every branch
of a set operation) and `same_branches` (a set operation of copies of one query) on a crafted club database: each fires on the mistake, its rewrite runs and returns the
intended rows, shape repair applies it, and each stays silent on the right query."""

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
from groundsql.selection.shape import shape_findings
from groundsql.selection.shapes import SET_OPERATION_CHECKS

pytestmark = pytest.mark.integration

CHECKS = ("age_direction", "branch_join", "same_branches")


@pytest.fixture(scope="module")
def club(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ages") / "club.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE person (person_id INTEGER PRIMARY KEY, name TEXT, age INTEGER, date_of_birth TEXT,
                             nationality TEXT);
        CREATE TABLE event (event_id INTEGER PRIMARY KEY, title TEXT);
        CREATE TABLE attendance (person_id INTEGER REFERENCES person(person_id),
                                 event_id INTEGER REFERENCES event(event_id));
        INSERT INTO person VALUES (1, 'Ada', 61, '1965-03-01', 'France'), (2, 'Ben', 24, '2002-07-09', 'France'),
                                  (3, 'Cal', 47, '1979-01-15', 'Chile'), (4, 'Dee', 31, '1995-11-30', 'Chile'),
                                  (5, 'Eve', 52, '1974-05-05', 'Peru'), (6, 'Fay', 29, '1997-02-14', 'Peru');
        INSERT INTO event VALUES (1, 'Gala'), (2, 'Race'), (3, 'Dance');
        INSERT INTO attendance VALUES (1, 1), (2, 1), (3, 2), (6, 2), (1, 2), (3, 3);
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def catalog(club: Path):
    return build_catalog(Database(str(club)), use_cache=False)


def run(club: Path, catalog, question: str, sql: str):
    ctx = Context(question=question, db=Database(str(club)), models={"default": ScriptedModel([])},
                  catalog=catalog)
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return ctx, candidate, [f for f in shape_findings(ctx, candidate) if f.check in CHECKS]


def rows(club: Path, catalog, sql: str) -> list[tuple]:
    ctx = Context(question="", db=Database(str(club)), models={"default": ScriptedModel([])}, catalog=catalog)
    return ctx.query(sql, step="test").rows


@pytest.mark.parametrize(("question", "sql", "expected"), [
    ("What is the name of the oldest person?", "SELECT name FROM person ORDER BY age ASC LIMIT 1", [("Ada",)]),
    ("What is the name of the oldest person?", "SELECT name FROM person ORDER BY date_of_birth DESC LIMIT 1",
     [("Ada",)]),
    ("Who is the youngest person?", "SELECT name FROM person WHERE age = (SELECT max(age) FROM person)",
     [("Ben",)]),
    ("List the names from old to young.", "SELECT name FROM person ORDER BY date_of_birth DESC",
     [("Ada",), ("Eve",), ("Cal",), ("Dee",), ("Fay",), ("Ben",)]),
])
def test_the_wrong_end_of_an_age_or_a_date_is_reversed(club, catalog, question, sql, expected) -> None:
    ctx, candidate, found = run(club, catalog, question, sql)
    assert [f.check for f in found] == ["age_direction"]
    assert "NULLS" not in found[0].rewrite.upper()  # the engine's own place for NULLs in the reversed sort
    assert rows(club, catalog, found[0].rewrite) == expected
    repaired, remaining = shape_repair(ctx, candidate)
    assert repaired.result.rows == expected
    assert not [f for f in remaining if f.check == "age_direction"]


@pytest.mark.parametrize(("question", "sql"), [
    ("What is the name of the oldest person?", "SELECT name FROM person ORDER BY age DESC LIMIT 1"),
    ("What is the name of the oldest person?", "SELECT name FROM person ORDER BY date_of_birth LIMIT 1"),
    ("List the names from the most recent birth to the oldest.", "SELECT name FROM person ORDER BY date_of_birth DESC"),
    ("Who are the oldest and the youngest people?",
     "SELECT name FROM person WHERE age = (SELECT max(age) FROM person) OR age = (SELECT max(age) FROM person)"),
    ("Which person has the largest id?", "SELECT name FROM person ORDER BY person_id DESC LIMIT 1"),
])
def test_age_direction_is_silent_on_the_right_end_and_on_unclear_questions(club, catalog, question, sql) -> None:
    assert run(club, catalog, question, sql)[2] == []


def test_an_idle_join_in_every_branch_of_an_intersection_is_removed(club, catalog) -> None:
    question = "Show the nationalities that have both people older than 50 and people younger than 30."
    sql = ("SELECT p.nationality FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id WHERE p.age > 50 "
           "INTERSECT SELECT p.nationality FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id "
           "WHERE p.age < 30")
    ctx, candidate, found = run(club, catalog, question, sql)
    assert candidate.result.rows == [("France",)]
    assert [f.check for f in found] == ["branch_join"]
    assert "attendance" not in found[0].rewrite.lower()
    assert sorted(rows(club, catalog, found[0].rewrite)) == [("France",), ("Peru",)]
    repaired, _ = shape_repair(ctx, candidate)
    assert sorted(repaired.result.rows) == [("France",), ("Peru",)]
    assert "branch_join" in SET_OPERATION_CHECKS


@pytest.mark.parametrize(("question", "sql"), [
    # one branch alone joins: how 'except those who attended' is written
    ("Which people never attended anything?",
     "SELECT name FROM person EXCEPT SELECT p.name FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id"),
    # the question names the joined table: rows with a match are asked for
    ("Show the nationalities with both an attendance by someone older than 50 and by someone younger than 30.",
     "SELECT p.nationality FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id WHERE p.age > 50 "
     "INTERSECT SELECT p.nationality FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id "
     "WHERE p.age < 30"),
    ("Show the nationalities that have both people older than 50 and people younger than 30.",
     "SELECT nationality FROM person WHERE age > 50 INTERSECT SELECT nationality FROM person WHERE age < 30"),
])
def test_branch_join_is_silent_where_the_join_is_the_question(club, catalog, question, sql) -> None:
    assert run(club, catalog, question, sql)[2] == []


def test_copies_of_one_query_get_one_value_each(club, catalog) -> None:
    question = "Who attended both the Gala and the Race?"
    branch = ("SELECT p.name FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id "
              "JOIN event AS e ON a.event_id = e.event_id WHERE e.title IN ('Gala', 'Race')")
    ctx, candidate, found = run(club, catalog, question, f"{branch} INTERSECT {branch}")
    assert sorted(candidate.result.rows) == [("Ada",), ("Ben",), ("Cal",), ("Fay",)]
    assert [f.check for f in found] == ["same_branches"]
    assert rows(club, catalog, found[0].rewrite) == [("Ada",)]
    repaired, remaining = shape_repair(ctx, candidate)
    assert repaired.result.rows == [("Ada",)] and not remaining


def test_copies_split_into_one_value_each_stand_when_nobody_has_both(club, catalog) -> None:
    """Nobody attended both the Gala and the Dance: the copies list everyone at either, the rewrite is empty, and
    the empty answer is kept (the copies are wrong whatever the rows are)."""
    branch = ("SELECT p.name FROM person AS p JOIN attendance AS a ON p.person_id = a.person_id "
              "JOIN event AS e ON a.event_id = e.event_id WHERE e.title IN ('Gala', 'Dance')")
    ctx, candidate, found = run(club, catalog, "Who attended both the Gala and the Dance?", f"{branch} INTERSECT {branch}")
    assert sorted(candidate.result.rows) == [("Ada",), ("Ben",), ("Cal",)]
    assert [(f.check, f.empty_ok) for f in found] == [("same_branches", True)]
    repaired, remaining = shape_repair(ctx, candidate)
    assert repaired.sql != candidate.sql and repaired.result.rows == [] and not remaining
    assert [r["rule"] for r in repaired.repairs] == ["shape:same_branches"]


def test_copies_without_a_list_to_split_are_flagged_without_a_rewrite(club, catalog) -> None:
    branch = "SELECT name FROM person WHERE age > 40"
    found = run(club, catalog, "Which names belong to both people over 40 and people under 30?",
                f"{branch} INTERSECT {branch}")[2]
    assert [(f.check, f.rewrite) for f in found] == [("same_branches", "")]
    assert run(club, catalog, "Which names belong to both people over 40 and people under 30?",
               f"{branch} INTERSECT SELECT name FROM person WHERE age < 30")[2] == []
