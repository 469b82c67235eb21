"""Realization paths (keywords for tip retrieval) and the result validator."""

from __future__ import annotations

import pytest

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ModelError
from groundsql.generation.paths import operation_words, parse_paths, realization_paths
from groundsql.generation.validator import validate
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

REPLY = """Step 1: Find French singers
- Need: singers and their country
- Paths: country column; join with a country table
- Keywords: singer, country, filter, France
Step 2: Count them
- Need: number of rows
- Paths: COUNT(*); COUNT(DISTINCT singer_id)
- Keywords: count, aggregate
"""


def test_parse_paths():
    paths = parse_paths(REPLY)
    assert paths.steps == ["Find French singers", "Count them"]
    assert paths.keywords == ["singer", "country", "filter", "france", "count", "aggregate"]
    assert parse_paths("garbage").steps == []


def test_operation_words():
    assert operation_words("Rank singers by average sales, then join songs") == ["join", "average", "rank"]


def _ctx(music_db, replies, question="How many singers are from France?"):
    return Context(question=question, db=Database(str(music_db)), models={"default": ScriptedModel(replies)})


def test_realization_paths_with_a_model(music_db):
    ctx = _ctx(music_db, [REPLY])
    paths = realization_paths(ctx, "1. filter\n2. count", ["singer"])
    assert "count" in paths.keywords and paths.steps
    prompt = ctx.model().calls[0]["messages"][0]["content"]
    assert "1. filter" in prompt and "Tables: singer" in prompt


def test_realization_paths_fall_back_to_operation_words(music_db):
    class Broken(ScriptedModel):
        def _generate(self, *args, **kwargs):
            raise ModelError("down")

    ctx = Context(question="What is the average age of singers?", db=Database(str(music_db)),
                  models={"default": Broken()})
    paths = realization_paths(ctx, "", ["singer"])
    assert paths.keywords == ["average"] and paths.steps == []


def test_validator_reads_a_verdict(music_db):
    ctx = _ctx(music_db, ['{"valid": false, "columns_not_needed": ["age", "bogus"], "result_empty": false, '
                          '"suggest_fix": "return only names"}'], question="Names of French singers?")
    sql = "SELECT name, age FROM singer WHERE country = 'France'"
    verdict = validate(ctx, Candidate(sql=sql, result=ctx.db.execute(sql)))
    assert not verdict.valid and verdict.columns_not_needed == ["age"]
    assert "Drop the columns" in verdict.feedback() and "return only names" in verdict.feedback()
    prompt = ctx.model().calls[0]["messages"][0]["content"]
    assert "name (nulls 0), age (nulls 0)" in prompt and "rows: 2" in prompt


def test_validator_unreadable_reply_counts_as_valid(music_db):
    ctx = _ctx(music_db, ["yes looks fine", "still not json"])
    sql = "SELECT name FROM singer"
    assert validate(ctx, Candidate(sql=sql, result=ctx.db.execute(sql))).valid


def test_validator_marks_failures_invalid_without_a_call(music_db):
    ctx = _ctx(music_db, [])
    assert not validate(ctx, Candidate(sql="SELECT x", error="no such column: x")).valid
    assert ctx.model().calls == []


def test_result_digest(music_db):
    result = Database(str(music_db)).execute("SELECT name, NULL AS n FROM singer")
    digest = result.digest()
    assert "n (nulls 4)" in digest and "rows: 4" in digest and digest.count("\n") == 4
