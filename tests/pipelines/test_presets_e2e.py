"""`ssev` and `apex` with the real embedded model on a tiny database: they finish and return working SQL."""

from __future__ import annotations

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.pipelines import run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.mark.parametrize("preset, options", [
    ("ssev", {"validate": False, "refine_rounds": 1}),
    ("apex", {"linker": "full", "samples": 1, "max_actions": 3}),
])
def test_preset_with_the_local_model(local_model, music_db, preset, options):
    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": local_model}, options=options)
    answer = run(ctx, preset)
    assert answer.candidates and answer.confidence is not None
    assert answer.trace.usage().llm_calls >= 2
    if answer.result is not None:  # the small model usually gets this one; the shape is what we check
        assert answer.result.columns
