"""Targeted repair hints: a column put on the wrong table names the table that has it."""

from __future__ import annotations

import pytest

from groundsql.catalog import introspect
from groundsql.db import Database
from groundsql.generation.diagnosis import diagnose

pytestmark = pytest.mark.integration


def test_misplaced_column_hint(music_db):
    schema = introspect(Database(str(music_db)))
    verdict = diagnose("SELECT title FROM singer WHERE country = 'France'", None, "no such column: title", schema)
    assert verdict.kind == "no_such_column"
    assert "title is a column of song" in verdict.hint
    assert "singer: singer_id, name, country, age" in verdict.hint


def test_no_misplaced_hint_for_unknown_or_aliased_names(music_db):
    schema = introspect(Database(str(music_db)))
    verdict = diagnose("SELECT count(*) AS n, colour FROM singer ORDER BY n", None, "no such column: colour", schema)
    assert "Misplaced" not in verdict.hint
