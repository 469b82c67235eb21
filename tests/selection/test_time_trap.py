"""The `time_trap` check on a real SQLite file: date functions over values SQLite does not read as dates."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.refinement import execute_candidate
from groundsql.models import ScriptedModel
from groundsql.selection.checks import CHECKS, sanity_check, settles
from tests.conftest import sqlite_from_script

EVENTS = """
CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT, founded INT, season TEXT, played INT, held TEXT,
                   opened TEXT, stamp INT, day REAL);
INSERT INTO club VALUES
  (1, 'Ash', 1831, '2014', 20130107, '03/15/2019', '2019-03-15', 1552608000, 2458557.5),
  (2, 'Elm', 1857, '2015', 20160611, '11/02/2020', '2020-11-02 10:30:00', 1604312400, 2459155.5),
  (3, 'Oak', 1901, '2015', 20160703, '01/20/2021', '2021-01-20', 1611100800, 2459234.5);
CREATE TABLE member (id INTEGER PRIMARY KEY, club_id INTEGER REFERENCES club(id), joined TEXT);
INSERT INTO member VALUES (1, 1, '2019-04-01'), (2, 2, '2020-12-01'), (3, 3, '2021-02-01');
"""


@pytest.fixture()
def clubs(tmp_path: Path) -> Database:
    return Database(str(sqlite_from_script(tmp_path / "clubs.sqlite", EVENTS)))


def findings(db: Database, sql: str, question: str = "Which clubs?") -> list:
    ctx = Context(question=question, db=db, models={"default": ScriptedModel([])})
    candidate = execute_candidate(ctx, sql, source="test")
    assert candidate.ok, candidate.error
    return [f for f in sanity_check(ctx, candidate) if f.check == "time_trap"]


@pytest.mark.integration
@pytest.mark.parametrize("sql", [
    "SELECT strftime('%Y', founded) AS year, COUNT(*) FROM club GROUP BY strftime('%Y', founded)",
    "SELECT COUNT(*) FROM club WHERE strftime('%Y', season) IN ('2014', '2015')",
    "SELECT name FROM club WHERE strftime('%Y', CAST(played AS TEXT)) = '2016'",
    "SELECT name FROM club WHERE date(held) > '2020-01-01'",
    "SELECT name FROM club WHERE datetime(stamp) > '2020-01-01'",
    "SELECT name FROM club WHERE id IN (SELECT id FROM club WHERE strftime('%Y', founded) = '1857')",
])
def test_a_date_function_over_values_sqlite_cannot_read_as_dates_is_a_time_trap(clubs: Database, sql: str) -> None:
    found = findings(clubs, sql)
    assert len(found) == 1, found
    assert "SQLite reads none of its values as a date" in found[0].message
    assert "Julian day" in found[0].hint


@pytest.mark.integration
@pytest.mark.parametrize("sql", [
    "SELECT name FROM club WHERE strftime('%Y', opened) = '2020'",
    "SELECT name FROM club WHERE datetime(stamp, 'unixepoch') > '2020-01-01'",
    "SELECT name FROM club WHERE date(day) > '2020-01-01'",
    "SELECT name FROM club WHERE founded < 1900",
    "SELECT c.name FROM club AS c JOIN member AS m ON m.club_id = c.id WHERE strftime('%Y', m.joined) = '2021'",
])
def test_dates_sqlite_reads_and_values_used_as_stored_are_quiet(clubs: Database, sql: str) -> None:
    assert findings(clubs, sql) == []


@pytest.mark.integration
def test_a_time_trap_keeps_a_query_from_settling_and_can_be_switched_off(clubs: Database) -> None:
    ctx = Context(question="How many clubs were founded in each year?", db=clubs, models={"default": ScriptedModel([])})
    wrong = execute_candidate(ctx, "SELECT strftime('%Y', founded), COUNT(*) FROM club GROUP BY 1", source="test")
    right = execute_candidate(ctx, "SELECT founded, COUNT(*) FROM club GROUP BY founded", source="test")
    assert wrong.ok and {row[0] for row in wrong.result.rows} == {"-4707", "-4708"}  # Julian days, no error
    assert "time_trap" in CHECKS
    assert not settles(ctx, wrong) and settles(ctx, right)
    off = tuple(c for c in CHECKS if c != "time_trap")
    assert [f.check for f in sanity_check(ctx, wrong, checks=off)] == []
