"""The exploration loop against a real SQLite file with scripted replies: actions, budgets, repairs."""

from __future__ import annotations

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ModelError
from groundsql.generation.exploration import Budget, explore
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

SCHEMA = "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);"


def _ctx(path, replies, **options) -> tuple[Context, ScriptedModel]:
    model = ScriptedModel(replies)
    ctx = Context(question="How many singers are from France?", db=Database(str(path)), models={"default": model},
                  options=options)
    return ctx, model


def test_explore_refine_sql_confirm(music_db):
    ctx, model = _ctx(music_db, [
        "[EXPLORE]\n```sql\nSELECT DISTINCT country FROM singer LIMIT 10;\n```",
        "[REFINE]\nFindings: country holds 'France'.\nPlan: count rows with country = 'France'.",
        "[SQL]\n```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```",
        "[CONFIRM] counts the French singers",
    ])
    candidate = explore(ctx, SCHEMA, tips="- tip", plan="1. count singers")
    assert candidate.ok and candidate.result.rows == [(2,)]
    assert candidate.source == "explore" and "count rows" in candidate.strategy
    # the observation of the exploratory query reached the next prompt, the plan was not repeated
    second = model.calls[1]["messages"][1]["content"]
    assert "Netherlands" in second and second.count("1. count singers") == 1
    steps = [n["action"] for n in ctx.trace.notes("explore_step")]
    assert steps == ["EXPLORE", "REFINE", "SQL", "CONFIRM"]
    assert ctx.trace.notes("explore_done")[0]["confirmed"] is True


def test_sql_error_feeds_back_a_targeted_hint(music_db):
    ctx, model = _ctx(music_db, [
        "[SQL]\n```sql\nSELECT count(*) FROM singer AS s WHERE s.nation = 'France'\n```",
        "[SQL]\n```sql\nSELECT count(*) FROM singer AS s WHERE s.country = 'France'\n```",
        "[CONFIRM]",
    ])
    candidate = explore(ctx, SCHEMA)
    assert candidate.result.rows == [(2,)]
    feedback = model.calls[1]["messages"][1]["content"]
    assert "no such column" in feedback and "singer (alias s): singer_id, name, country, age" in feedback


def test_sql_is_forced_on_the_last_action(music_db):
    ctx, model = _ctx(music_db, [
        "[EXPLORE]\n```sql\nSELECT * FROM singer LIMIT 2\n```",
        "[EXPLORE]\n```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```",
    ])
    candidate = explore(ctx, SCHEMA, budget=Budget(actions=2))
    assert "last turn" in model.calls[1]["messages"][1]["content"]
    assert candidate.result.rows == [(2,)]  # the exploratory query on the last turn became the answer
    assert "read as [SQL]" in ctx.trace.notes("explore_step")[-1]["repaired"]


def test_token_budget_forces_sql_early(music_db):
    ctx, model = _ctx(music_db, ["[REFINE] think", "[SQL] SELECT count(*) FROM singer", "[CONFIRM]"])
    explore(ctx, SCHEMA, budget=Budget(actions=6, tokens=10))
    assert "last turn" in model.calls[1]["messages"][1]["content"]


def test_malformed_replies_never_crash(music_db):
    ctx, model = _ctx(music_db, ["", "[EXPLORE] no query here", "still nothing", "[CONFIRM]", "DROP TABLE singer",
                                 "[SQL] SELECT name FROM singer WHERE age > 40"])
    candidate = explore(ctx, SCHEMA, budget=Budget(actions=5))
    assert candidate.ok and sorted(candidate.result.rows) == [("Bo",), ("Joe",)]
    assert "no action" in model.calls[1]["messages"][1]["content"]
    assert "Write the EXPLORE query now" in model.calls[2]["messages"][-1]["content"]  # one follow-up, then on
    assert "no working query" in model.calls[4]["messages"][1]["content"]


def test_write_statements_are_refused_not_run(music_db):
    ctx, _ = _ctx(music_db, ["[SQL]\n```sql\nDELETE FROM singer\n```"])
    candidate = explore(ctx, SCHEMA, budget=Budget(actions=1))
    assert not candidate.ok and candidate.error
    assert Database(str(music_db)).execute("SELECT count(*) FROM singer").rows == [(4,)]


def test_model_failure_ends_the_trajectory_gracefully(music_db):
    class Broken(ScriptedModel):
        def _generate(self, *args, **kwargs):
            raise ModelError("server gone")

    ctx = Context(question="q", db=Database(str(music_db)), models={"default": Broken()})
    candidate = explore(ctx, SCHEMA)
    assert not candidate.ok and "without a query" in candidate.error


def test_listener_sees_every_step(music_db):
    seen = []
    ctx, _ = _ctx(music_db, ["[SQL] SELECT 1", "[CONFIRM]"])
    explore(ctx, SCHEMA, listener=lambda event, data: seen.append(data["action"]))
    assert seen == ["SQL", "CONFIRM"]


def test_large_exploration_results_are_compressed(music_db):
    ctx, model = _ctx(music_db, [
        "[EXPLORE]\n```sql\nWITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) "
        "SELECT i FROM n\n```",
        "[SQL] SELECT 1", "[CONFIRM]",
    ])
    explore(ctx, SCHEMA)
    prompt = model.calls[1]["messages"][1]["content"]
    assert "60 rows; first 10" in prompt and "column statistics" in prompt


def test_a_bare_tag_is_completed_by_a_follow_up(music_db):
    ctx, model = _ctx(music_db, ["[EXPLORE]", "```sql\nSELECT DISTINCT country FROM singer\n```",
                                 "[SQL]", "SELECT count(*) FROM singer WHERE country = 'France'", "[CONFIRM]"])
    candidate = explore(ctx, SCHEMA)
    assert candidate.result.rows == [(2,)]
    assert model.calls[1]["messages"][-1]["content"].startswith("Write the EXPLORE query now")
    assert model.calls[1]["messages"][-2] == {"role": "assistant", "content": "[EXPLORE]"}
    assert [n["action"] for n in ctx.trace.notes("explore_step")] == ["EXPLORE", "SQL", "CONFIRM"]


def test_untokenizable_sql_is_refused_not_raised(music_db):
    ctx, _ = _ctx(music_db, ["[SQL] SELECT `name FROM singer", "[SQL] SELECT name FROM singer", "[CONFIRM]"])
    candidate = explore(ctx, SCHEMA)
    assert candidate.ok
    assert any(not q.ok and "refused" in q.error for q in ctx.trace.events if q.kind == "query")


def test_turns_without_progress_force_sql(music_db):
    probe = "[EXPLORE]\n```sql\nSELECT DISTINCT country FROM singer\n```"
    ctx, model = _ctx(music_db, [probe, probe, probe, "[SQL] SELECT count(*) FROM singer WHERE country = 'France'",
                                 "[CONFIRM]"])
    candidate = explore(ctx, SCHEMA)
    assert candidate.result.rows == [(2,)]
    assert "last turn" in model.calls[3]["messages"][1]["content"]  # two repeats in a row: SQL is forced
    assert "last turn" not in model.calls[2]["messages"][1]["content"]
