"""`table_literal` on a crafted events database: a filter on the name of a table the query reads is flagged and
its rewrite (the condition dropped) returns every participant; a quoted value, a stored value that is no table's
name, and a query without such a filter stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.catalog import build_catalog
from groundsql.db import Database
from groundsql.generation.shape_repair import shape_repair
from groundsql.selection.shapes import SHAPE_CHECKS
from tests.conftest import sqlite_from_script
from tests.selection.helpers import checked

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def events(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("table_literal") / "events.sqlite"
    return sqlite_from_script(path, """
        CREATE TABLE participants (participant_id INTEGER PRIMARY KEY, type_code TEXT, details TEXT);
        CREATE TABLE events (event_id INTEGER PRIMARY KEY, title TEXT);
        CREATE TABLE participants_in_events (event_id INTEGER REFERENCES events(event_id),
                                             participant_id INTEGER REFERENCES participants(participant_id));
        INSERT INTO participants VALUES (1, 'Participant', 'a'), (2, 'Organizer', 'b'), (3, 'Participant', 'c'),
                                        (4, 'Organizer', 'd');
        INSERT INTO events VALUES (1, 'Fair'), (2, 'Race');
        INSERT INTO participants_in_events VALUES (1, 1), (1, 2), (2, 2), (2, 3), (2, 4);
    """)


@pytest.fixture(scope="module")
def catalog(events: Path):
    return build_catalog(Database(str(events)), use_cache=False)


def run(events: Path, catalog, question: str, sql: str):
    return checked(events, catalog, question, sql, "table_literal")


def test_a_filter_on_the_name_of_a_read_table_is_dropped(events, catalog) -> None:
    assert "table_literal" in SHAPE_CHECKS
    sql = ("SELECT T1.participant_id, COUNT(*) FROM participants AS T1 JOIN participants_in_events AS T2 "
           "ON T1.participant_id = T2.participant_id WHERE T1.type_code = 'Participant' GROUP BY T1.participant_id")
    ctx, candidate, found = run(events, catalog, "How many events has each participant attended?", sql)
    assert len(candidate.result.rows) == 2
    assert len(found) == 1 and "WHERE" not in found[0].rewrite.upper()
    repaired, _ = shape_repair(ctx, candidate)
    assert sorted(repaired.result.rows) == [(1, 1), (2, 2), (3, 1), (4, 1)]


def test_other_conditions_are_kept(events, catalog) -> None:
    sql = ("SELECT participant_id FROM participants WHERE type_code = 'Participant' AND details != 'a'")
    _, _, found = run(events, catalog, "Which participants have details other than a?", sql)
    assert len(found) == 1 and "details <> 'a'" in found[0].rewrite.lower().replace("!=", "<>")


@pytest.mark.parametrize(("question", "sql"), [
    ("How many participants have the type 'Participant'?",
     "SELECT COUNT(*) FROM participants WHERE type_code = 'Participant'"),
    ("How many organizers are there?", "SELECT COUNT(*) FROM participants WHERE type_code = 'Organizer'"),
    ("How many participants are there?", "SELECT COUNT(*) FROM participants"),
])
def test_a_quoted_value_or_another_value_stays_silent(events, catalog, question, sql) -> None:
    _, _, found = run(events, catalog, question, sql)
    assert found == []
