"""ReCAP's exact parts: PreSQL schema linking before planning, the question-shape checks ahead of the model
critics, and the shape repair of the chosen query; each switchable (scripted replies, real SQLite)."""

from __future__ import annotations

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.options import OptionsError
from groundsql.pipelines import run

from .script import FRENCH, AgentScript, act

pytestmark = pytest.mark.integration

QUESTION = "Which singers are from France?"
LIMITED = FRENCH + " LIMIT 1"


def _run(music_db, script: AgentScript, question: str = QUESTION, **options):
    ctx = Context(question=question, db=Database(str(music_db)), models={"default": script.model},
                  options={"loop": "always", **options})  # the paper's loop on every draft: what these tests read
    return run(ctx, "recap"), ctx


def _steps(ctx: Context) -> list[str]:
    return [e.step for e in ctx.trace.events if e.kind == "model"]


def _turns(ctx: Context, agent: str) -> list[dict]:
    return [n for n in ctx.trace.notes("recap") if n.get("agent") == agent]


def test_presql_draft_links_the_schema_the_planner_and_actor_see(music_db):
    script = AgentScript()
    answer, ctx = _run(music_db, script)
    assert _steps(ctx)[0] == "recap:presql" and answer.sql == FRENCH
    plan_prompt = script.prompts["plan"][0]
    assert "singer(singer_id:INTEGER PK" in plan_prompt and "song" not in plan_prompt  # the draft read singer only
    assert "A first draft of the query (PreSQL)" in script.prompts["action"][0]
    link = _turns(ctx, "schema-link")[0]
    assert link["mode"] == "presql" and link["sql"] == FRENCH


def test_schema_linking_on_error_keeps_the_full_schema_until_a_not_found_error(music_db):
    script = AgentScript()
    answer, ctx = _run(music_db, script, schema_linking="on_error")
    assert "recap:presql" not in _steps(ctx) and answer.sql == FRENCH
    assert "CREATE TABLE song" in script.prompts["plan"][0]  # the full schema, as DDL
    assert _turns(ctx, "schema-link") == []


def test_a_draft_that_reads_no_table_keeps_the_full_schema(music_db):
    script = AgentScript(presql=["I do not know."])
    answer, ctx = _run(music_db, script)
    assert "CREATE TABLE song" in script.prompts["plan"][0] and answer.sql == FRENCH
    assert "no usable draft" in _turns(ctx, "schema-link")[0]["schema"]


def test_an_unasked_limit_is_critiqued_exactly_without_the_model_critic(music_db):
    script = AgentScript(action=[act("run_sql", LIMITED)])
    answer, ctx = _run(music_db, script, shape_repair=False)
    assert "recap:sql-critique" not in _steps(ctx)  # the shape check spoke first
    critique = _turns(ctx, "sql-critique")[0]
    assert critique["exact"] and "drop the LIMIT" in critique["reasoning"] and "LIMIT" not in critique["revised"]
    assert answer.sql == critique["revised"] and sorted(answer.result.rows) == [("Ann",), ("Joe",)]


def test_without_shape_checks_the_model_critic_and_validator_pass_the_limit(music_db):
    script = AgentScript(action=[act("run_sql", LIMITED)])
    answer, ctx = _run(music_db, script, shape_checks=False, shape_repair=False)
    assert "recap:sql-critique" in _steps(ctx) and answer.sql == LIMITED


def test_shape_repair_fixes_the_chosen_query_after_the_loop(music_db):
    script = AgentScript(action=[act("run_sql", LIMITED)])
    answer, ctx = _run(music_db, script, shape_checks=False)
    assert "LIMIT" not in answer.sql and ctx.trace.notes("shape-repair")[0]["check"] == "unasked_limit"
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    assert answer.candidates[-1].repairs[-1]["rule"] == "shape:unasked_limit"


def test_a_list_for_how_many_is_turned_into_the_count_exactly(music_db):
    question = "How many singers are from France?"
    script = AgentScript(action=[act("run_sql", FRENCH)], presql=[f"```sql\n{FRENCH}\n```"])
    answer, ctx = _run(music_db, script, question)
    assert answer.result.rows == [(2,)] and "COUNT(*)" in answer.sql.upper()
    assert _turns(ctx, "sql-critique")[0]["exact"] and "recap:sql-critique" not in _steps(ctx)


def test_a_list_for_how_many_fails_the_validator_without_the_model(music_db):
    """With the SQL critic off, the validator's exact checks reject the list and run the count."""
    question = "How many singers are from France?"
    script = AgentScript(action=[act("run_sql", FRENCH)])
    answer, ctx = _run(music_db, script, question, sql_critique=False, shape_repair=False)
    verdicts = _turns(ctx, "validate")
    assert verdicts[0]["valid"] is False and "count" in verdicts[0]["feedback"].lower()
    assert answer.result.rows == [(2,)] and _turns(ctx, "check-rewrite")


def test_recap_options_are_typed(music_db):
    with pytest.raises(OptionsError, match="schema_linking"):
        _run(music_db, AgentScript(), schema_linking="always")


def test_an_idle_join_is_caught_by_the_exact_critique_before_the_model(music_db):
    joined = "SELECT s.name FROM singer s JOIN song g ON g.singer_id = s.singer_id WHERE s.age > 30"
    script = AgentScript(action=[act("run_sql", joined)])
    answer, ctx = _run(music_db, script, "Which singers are older than 30?")
    critique = _turns(ctx, "sql-critique")[0]
    assert critique["exact"] and "song" not in critique["revised"].lower()
    assert "recap:sql-critique" not in _steps(ctx) and "song" not in answer.sql.lower()
    assert sorted(answer.result.rows) == [("Bo",), ("Cy",), ("Joe",)]
