"""The checks right by construction (join graph, entity keys, set semantics, stored values, units) on a crafted
pet-clinic database: each fires on the mistake it names, its rewrite runs and returns the intended rows, and each
stays silent on the right query."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundsql.catalog import build_catalog
from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.generation.refinement import execute_candidate
from groundsql.generation.shape_repair import shape_repair
from groundsql.models import ScriptedModel
from groundsql.pipelines.auto import AutoOptions
from groundsql.selection.checks import CHECKS, sanity_check
from groundsql.selection.shape import SHAPE_CHECKS, shape_findings

pytestmark = pytest.mark.integration

NEW = ("anti_join", "join_edge", "value_grounding", "units", "both_in", "entity_key", "group_key", "count_per_key", "key_join", "sort_direction")


@pytest.fixture(scope="module")
def clinic(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("construct") / "clinic.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, name TEXT, district TEXT, city TEXT);
        CREATE TABLE pet (pet_id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owner(owner_id), kind TEXT,
                          pet_name TEXT);
        CREATE TABLE recording (recording_id INTEGER PRIMARY KEY, pet_id INTEGER REFERENCES pet(pet_id),
                                title TEXT, milliseconds INTEGER);
        INSERT INTO owner VALUES (1, 'Ann Lee', 'BROOKLYN NORTH', 'Springfield'), (2, 'Bob Ray', 'QUEENS', 'Shelbyville'),
                                 (3, 'Ann Lee', 'BROOKLYN SOUTH', 'Springfield'), (4, 'Cy Dunn', 'BRONX', 'Ogdenville'),
                                 (5, 'Di Fox', 'QUEENS', 'Shelbyville'), (6, 'Ed Gray', 'BRONX', 'Ogdenville');
        INSERT INTO pet VALUES (1, 1, 'dog', 'Rex'), (2, 1, 'cat', 'Tom'), (3, 2, 'dog', 'Fido'), (4, 3, 'cat', 'Kit'),
                               (5, 3, 'cat', 'Mog'), (6, 4, 'bird', 'Tweety'), (7, 5, 'dog', 'Spot'),
                               (8, 5, 'cat', 'Luna');
        INSERT INTO recording VALUES (1, 1, 'bark', 200000), (2, 2, 'purr', 400000), (3, 6, 'song', 350000),
                                     (4, 3, 'howl', 100000);
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def catalog(clinic: Path):
    return build_catalog(Database(str(clinic)), use_cache=False)


def context(clinic: Path, catalog, question: str, **options) -> Context:
    return Context(question=question, db=Database(str(clinic)), models={"default": ScriptedModel([])},
                   catalog=catalog, options=AutoOptions(**options))


def findings(clinic: Path, catalog, question: str, sql: str, **options):
    ctx = context(clinic, catalog, question, **options)
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return ctx, candidate, [f for f in shape_findings(ctx, candidate) if f.check in NEW]


def rows_of(clinic: Path, catalog, sql: str) -> list[tuple]:
    ctx = context(clinic, catalog, "")
    return sorted(ctx.query(sql, step="test").rows, key=repr)


def fired(clinic, catalog, question: str, sql: str, check: str):
    ctx, candidate, found = findings(clinic, catalog, question, sql)
    assert [f.check for f in found] == [check], found
    return found[0]


def test_join_on_two_primary_keys_is_routed_along_the_graph(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which owners have a dog?",
                    "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.pet_id WHERE p.kind = 'dog'",
                    "join_edge")
    assert "pet.owner_id" in finding.message or "owner_id = pet.owner_id" in finding.message
    assert rows_of(clinic, catalog, finding.rewrite) == [("Ann Lee",), ("Bob Ray",), ("Di Fox",)]


def test_inner_join_tested_is_null_becomes_a_left_join(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which owners have no pets?",
                    "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.owner_id IS NULL",
                    "anti_join")
    assert "LEFT JOIN" in finding.rewrite.upper()
    assert rows_of(clinic, catalog, finding.rewrite) == [("Ed Gray",)]


def test_negation_written_as_inequality_becomes_not_in(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which owners do not have a dog?",
                    "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.kind <> 'dog'",
                    "anti_join")
    assert "NOT" in finding.rewrite.upper() and " IN " in finding.rewrite.upper()
    assert rows_of(clinic, catalog, finding.rewrite) == [("Ann Lee",), ("Cy Dunn",), ("Ed Gray",)]


def test_both_values_with_in_becomes_an_intersection(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which owners have both a dog and a cat?",
                    "SELECT o.owner_id FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id "
                    "WHERE p.kind IN ('dog', 'cat')", "both_in")
    assert "INTERSECT" in finding.rewrite.upper()
    assert rows_of(clinic, catalog, finding.rewrite) == [(1,), (5,)]


def test_a_place_inside_longer_codes_is_grounded_in_the_stored_values(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "How many owners live in the Brooklyn district?",
                    "SELECT count(*) FROM owner WHERE district = 'Brooklyn'", "value_grounding")
    assert "BROOKLYN NORTH" in finding.rewrite and "BROOKLYN SOUTH" in finding.rewrite
    assert rows_of(clinic, catalog, finding.rewrite) == [(2,)]


def test_a_value_another_column_holds_whole_moves_to_that_column(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "List the owners from Springfield.",
                    "SELECT name FROM owner WHERE district = 'Springfield'", "value_grounding")
    assert "city" in finding.rewrite
    assert rows_of(clinic, catalog, finding.rewrite) == [("Ann Lee",), ("Ann Lee",)]


def test_minutes_compared_with_milliseconds_are_converted(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which recordings are longer than 5 minutes?",
                    "SELECT title FROM recording WHERE milliseconds > 500000", "units")
    assert "300000" in finding.rewrite
    assert rows_of(clinic, catalog, finding.rewrite) == [("purr",), ("song",)]


def test_grouping_by_a_repeating_name_groups_by_the_key_too(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "How many pets does each owner have?",
                    "SELECT o.name, count(*) FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id "
                    "GROUP BY o.name", "entity_key")
    assert rows_of(clinic, catalog, finding.rewrite) == [("Ann Lee", 2), ("Ann Lee", 2), ("Bob Ray", 1),
                                                         ("Cy Dunn", 1), ("Di Fox", 2)]


@pytest.mark.parametrize(("question", "sql"), [
    ("Which owners have a dog?",
     "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.kind = 'dog'"),
    ("Which owners have no pets?",
     "SELECT o.name FROM owner AS o LEFT JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.owner_id IS NULL"),
    ("Which owners do not have a dog?",
     "SELECT name FROM owner WHERE owner_id NOT IN (SELECT owner_id FROM pet WHERE kind = 'dog')"),
    ("Which pets are not dogs?", "SELECT pet_name FROM pet WHERE kind <> 'dog'"),
    ("Which owners have a dog or a cat?",
     "SELECT o.owner_id FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.kind IN ('dog', 'cat')"),
    ("How many owners live in QUEENS?", "SELECT count(*) FROM owner WHERE district = 'QUEENS'"),
    ("Which recordings are longer than 5 minutes?", "SELECT title FROM recording WHERE milliseconds > 300000"),
    ("How many pets of each kind are there?", "SELECT kind, count(*) FROM pet GROUP BY kind"),
    ("How many pets does each owner have?",
     "SELECT o.name, count(*) FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id GROUP BY o.owner_id"),
    ("How many pets live in each city?",
     "SELECT o.city, count(*) FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id GROUP BY o.city"),
])
def test_right_queries_raise_none_of_them(clinic, catalog, question: str, sql: str) -> None:
    assert findings(clinic, catalog, question, sql)[2] == []


def test_shape_repair_applies_the_rewrite_and_states_it(clinic, catalog) -> None:
    ctx = context(clinic, catalog, "Which owners have no pets?")
    candidate = execute_candidate(ctx, "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id "
                                       "WHERE p.owner_id IS NULL", source="test")
    repaired, _ = shape_repair(ctx, candidate)
    assert repaired.result.rows == [("Ed Gray",)]
    assert repaired.repairs[-1]["rule"] == "shape:anti_join" and repaired.repairs[-1]["detail"]


def test_each_check_can_be_switched_off(clinic, catalog) -> None:
    sql = "SELECT o.name FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id WHERE p.owner_id IS NULL"
    assert findings(clinic, catalog, "Which owners have no pets?", sql, checks_off=["anti_join"])[2] == []
    ctx = context(clinic, catalog, "Which owners have no pets?", checks_off=["anti_joins"])
    with pytest.raises(ConfigError, match="unknown check"):
        sanity_check(ctx, execute_candidate(ctx, sql, source="test"), checks=CHECKS + SHAPE_CHECKS)


def test_both_with_two_ranges_no_value_meets_becomes_an_intersection(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "Which owners have both a pet numbered above 7.5 and one numbered below 7.5?",
                    "SELECT p.owner_id FROM pet AS p WHERE p.pet_id > 7.5 AND p.pet_id < 7.5", "both_in")
    assert "INTERSECT" in finding.rewrite.upper()
    assert rows_of(clinic, catalog, finding.rewrite) == [(5,)]


def test_a_count_per_group_shows_its_group(clinic, catalog) -> None:
    finding = fired(clinic, catalog, "How many pets are there of each kind?",
                    "SELECT count(*) FROM pet GROUP BY kind", "group_key")
    assert rows_of(clinic, catalog, finding.rewrite) == [("bird", 1), ("cat", 4), ("dog", 3)]


def test_advisory_checks_warn_without_counting_against_the_answer(clinic, catalog) -> None:
    from groundsql.pipelines.auto import auto

    sql = ("SELECT o.name, count(*) FROM owner AS o JOIN pet AS p ON o.owner_id = p.owner_id "
           "GROUP BY o.owner_id")
    cheap = {}
    for options in (AutoOptions(escalate=False), AutoOptions(escalate=False, advisory_checks=[])):
        model = ScriptedModel([sql] * 4)
        ctx = Context(question="How many pets does each owner have?", db=Database(str(clinic)),
                      models={"default": model}, catalog=catalog, options=options)
        answer = auto(ctx, options)
        cheap[bool(options.advisory_checks)] = next(n for n in ctx.trace.notes("auto") if n.get("stage") == "cheap")
        assert any("inner join drops" in w for w in answer.warnings), answer.warnings  # shown either way
    assert cheap[True]["findings"] == 0 and cheap[False]["findings"] >= 1
