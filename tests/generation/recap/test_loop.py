"""The recap loop and preset: control flow of the agents on a real SQLite database (scripted replies)."""

from __future__ import annotations

import logging

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.pipelines import DESCRIPTIONS, run
from groundsql.selection import WeightStore

from .script import FRENCH, AgentScript, act, plan

pytestmark = pytest.mark.integration

QUESTION = "Which singers are from France?"


def _run(music_db, script: AgentScript, **options):
    ctx = Context(question=QUESTION, db=Database(str(music_db)), models={"default": script.model},
                  options={"loop": "always", **options})  # the paper's loop on every draft: what these tests read
    return run(ctx, "recap"), ctx


def _turns(ctx: Context, agent: str) -> list[dict]:
    return [n for n in ctx.trace.notes("recap") if n.get("agent") == agent]


def _executed(ctx: Context) -> list[str]:
    return [e.sql for e in ctx.trace.events if e.kind == "query" and e.step.startswith("recap")]


def test_recap_is_registered_and_answers_in_one_step(music_db):
    assert "recap" in DESCRIPTIONS
    script = AgentScript()
    answer, ctx = _run(music_db, script)
    assert answer.preset == "recap" and answer.sql == FRENCH and sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    # the syntax notes' topics come from the question's and plan's words (no call) unless syntax_topics=model
    assert steps == ["recap:presql", "recap:plan", "recap:plan-critique", "recap:action", "recap:sql-critique",
                     "recap:validate"]
    _, paper = _run(music_db, AgentScript(), syntax_topics="model")
    assert "recap:syntax" in [e.step for e in paper.trace.events if e.kind == "model"]
    done = _turns(ctx, "done")[0]
    assert done["validated"] and done["steps"] == 1 and done["plan_versions"] == 1 and done["verdicts"] == [True]
    assert done["sql_revisions"] == []
    assert answer.confidence > 0 and answer.stages == {"first_query": FRENCH, "loop_first": FRENCH, "loop_last": FRENCH,
                                                   "final": FRENCH}


def test_stages_keep_the_presql_draft_and_the_loops_first_and_last_queries_apart(music_db):
    """The per-stage comparison reads where a right answer turned wrong: the PreSQL draft, the loop's first
    answer query, its last, and the final answer are recorded separately."""
    everyone = "SELECT name FROM singer"
    rejected = '{"valid_result": false, "reasons": ["only the French singers were asked"]}'
    script = AgentScript(presql=[f"```sql\n{everyone}\n```"], action=[act("run_sql", everyone), act("run_sql", FRENCH)],
                         validate=[rejected])
    answer, _ = _run(music_db, script)
    assert answer.stages == {"first_query": everyone, "loop_first": everyone, "loop_last": FRENCH, "final": FRENCH}


def test_plan_critique_rounds_revise_the_plan_until_accepted_or_the_limit(music_db):
    update = '{"reasons": ["filter on country"], "update_plan": true}'
    revisions = [plan(f"version {i}") for i in range(1, 6)]
    script = AgentScript(plan_critique=[update, update], plan=list(revisions))
    answer, ctx = _run(music_db, script)
    assert script.calls("plan-critique") == 3 and script.calls("plan") == 3
    assert [t["version"] for t in _turns(ctx, "plan")] == [1, 2, 3]
    assert "filter on country" in script.prompts["plan"][1] and "1. version 1" in script.prompts["plan"][1]
    script = AgentScript(plan_critique=[update] * 5, plan=list(revisions))
    answer, ctx = _run(music_db, script, plan_critique_rounds=2)
    assert script.calls("plan-critique") == 2 and script.calls("plan") == 3 and answer.sql == FRENCH


def test_plan_critique_stops_when_the_revision_changes_nothing(music_db):
    script = AgentScript(plan_critique=['{"reasons": ["looks fine"], "update_plan": true}'] * 3)
    answer, ctx = _run(music_db, script)
    assert script.calls("plan-critique") == 1 and script.calls("plan") == 2 and len(_turns(ctx, "plan")) == 1


def test_ablations_switch_agents_off(music_db):
    script = AgentScript()
    answer, ctx = _run(music_db, script, plan_critique=False, sql_critique=False, validator=False, syntax_help=False,
                       schema_linking="on_error")
    assert answer.sql == FRENCH
    assert [e.step for e in ctx.trace.events if e.kind == "model"] == ["recap:plan", "recap:action"]


def test_invalid_and_repeated_actions_are_not_executed(music_db):
    script = AgentScript(
        action=[act("fly", FRENCH), act("fly", FRENCH), act("run_sql", "DROP TABLE singer"),
                act("run_sql", "SELECT name, age FROM singer WHERE country = 'France'"),
                act("run_sql", "select name, age from singer where country='France'"), act("terminate")],
        validate=['{"valid_result": false, "columns_not_needed": ["age"]}', '{"valid_result": true}'],
    )
    answer, ctx = _run(music_db, script, max_steps=8, schema_linking="on_error", shape_checks=False)
    kinds = [t["action"] for t in _turns(ctx, "action")]
    # "fly" is outside the action enum: the provider asks once more, then the reply is refused
    assert kinds == ["invalid", "invalid", "run_sql", "repeated", "terminate"]
    reasons = [t["reason"] for t in _turns(ctx, "action")]
    assert reasons[0].startswith("unknown action 'fly'") and "one SELECT" in reasons[1]
    assert _executed(ctx) == ["SELECT name, age FROM singer WHERE country = 'France'"]  # once, nothing else ran
    assert "refused" in script.prompts["action"][-1] or "rejected" in script.prompts["action"][-1]
    # terminate accepts the last query that ran, although the validator had asked for a change
    assert answer.sql == "SELECT name, age FROM singer WHERE country = 'France'"
    assert _turns(ctx, "terminate")[0]["sql"] == answer.sql


def test_terminate_before_any_query_is_refused(music_db):
    script = AgentScript(action=[act("terminate")])
    answer, ctx = _run(music_db, script)
    assert [t["action"] for t in _turns(ctx, "action")] == ["terminate", "run_sql"]
    assert "run_sql first" in script.prompts["action"][1] and answer.sql == FRENCH


def test_not_found_error_relinks_the_schema_and_replans(music_db):
    script = AgentScript(action=[act("run_sql", "SELECT nme FROM singer WHERE country = 'France'")],
                         plan=[plan("select nme"), plan("filter singer on country", "select name")])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and _turns(ctx, "done")[0]["validated"]
    assert script.calls("link") == 1 and script.calls("plan") == 2 and "refine" not in script.prompts
    replan = script.prompts["plan"][1]
    assert "name:TEXT" in replan and "country:TEXT['France'" in replan and "no such column: nme" in replan
    assert "country:TEXT['France'" in script.prompts["action"][1]  # the action agent now sees the compact schema
    assert _turns(ctx, "schema-link")[-1]["relinks"] == 1


def test_relinked_schema_carries_descriptions_and_rules_to_the_planner(music_db):
    folder = music_db.with_name("music.sqlite.knowledge")
    folder.mkdir()
    (folder / "descriptions.csv").write_text("table,column,description\n"
                                             "singer,country,home country of the singer in English\n")
    (folder / "rules.yaml").write_text("rules:\n  - text: A French singer has country 'France'.\n"
                                       "    tables: [singer]\n")
    script = AgentScript(action=[act("run_sql", "SELECT nme FROM singer WHERE country = 'France'")],
                         plan=[plan("select nme"), plan("filter singer on country", "select name")])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and script.calls("link") == 1
    replans = [e for e in ctx.trace.events if e.kind == "model" and e.step == "recap:plan"]
    sent = "\n".join(m["content"] for m in replans[1].messages)  # the prompt recorded for the re-plan
    assert "singer(singer_id:INTEGER PK" in sent  # the compact form ...
    assert "  -- country: home country of the singer in English" in sent  # ... with the description under it
    assert "Rules and definitions for this database" in sent and "A French singer has country 'France'." in sent
    assert ctx.trace.notes("knowledge.render")[-1]["style"] == "compact"


def test_relinking_is_bounded(music_db):
    wrong = [act("run_sql", f"SELECT nme{i} FROM singer") for i in range(4)]
    script = AgentScript(action=wrong, refine=["```sql\nSELECT nme FROM singer\n```"] * 10)
    answer, ctx = _run(music_db, script, relink_limit=1, refine_rounds=1, max_steps=3, schema_linking="on_error")
    assert script.calls("link") == 1 and script.calls("refine") == 2  # later not-found errors go to the refiner
    assert answer.error and _turns(ctx, "done")[0]["steps"] == 3


def test_validator_fail_re_enters_the_loop_with_its_feedback(music_db):
    script = AgentScript(action=[act("run_sql", "SELECT name, age FROM singer WHERE country = 'France'")],
                         validate=['{"valid_result": false, "columns_not_needed": ["age"], '
                                   '"suggest_fix": "return names only"}'])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and [t["valid"] for t in _turns(ctx, "validate")] == [False, True]
    assert "Drop the columns the question does not ask for: age" in script.prompts["action"][1]
    assert "return names only" in script.prompts["action"][1]


def test_sql_critique_revision_replaces_the_query(music_db):
    script = AgentScript(action=[act("run_sql", "SELECT name FROM singer")],
                         sql_critique=["[Reasoning] no country filter\n[SQL]\n```sql\n" + FRENCH + "\n```"])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and answer.candidates[0].source == "recap-critique"
    assert _turns(ctx, "sql-critique")[0]["revised"] == FRENCH
    assert _turns(ctx, "done")[0]["sql_revisions"] == [True]


def test_a_sql_revision_that_fails_is_counted_but_not_adopted(music_db):
    script = AgentScript(action=[act("run_sql", FRENCH)],
                         sql_critique=["[Reasoning] wrong column\n[SQL]\n```sql\nSELECT nom FROM singer\n```"])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and _turns(ctx, "done")[0]["sql_revisions"] == [False]


def test_execution_error_goes_to_the_self_refiner(music_db):
    script = AgentScript(action=[act("run_sql", "SELECT name FROM singer WHERE country = ")])
    answer, ctx = _run(music_db, script)
    assert answer.sql == FRENCH and script.calls("refine") == 1 and "link" not in script.prompts
    assert "Running it failed" in script.prompts["refine"][0] and "name (TEXT)" in script.prompts["refine"][0]


def test_step_limit_ends_the_loop_without_an_answer(music_db):
    script = AgentScript(action=[act("fly")] * 10)
    answer, ctx = _run(music_db, script, max_steps=3, schema_linking="on_error")
    assert len(_turns(ctx, "action")) == 3 and _executed(ctx) == []
    assert "Now use run_sql" in script.prompts["action"][-1]  # after a refusal, and on the last step
    assert [t["forced"] for t in _turns(ctx, "action")] == [False, True, True]
    assert answer.sql == "" and answer.error and answer.confidence == 0.0


def test_best_query_is_kept_when_nothing_validates(music_db):
    script = AgentScript(action=[act("run_sql", "SELECT name FROM singer"), act("run_sql", FRENCH + " AND age > 99")],
                         validate=['{"valid_result": false}'] * 4, refine=["no sql here"] * 10)
    answer, ctx = _run(music_db, script, max_steps=2)
    assert answer.sql == "SELECT name FROM singer"  # rows beat an empty result
    assert not _turns(ctx, "done")[0]["validated"] and answer.confidence <= 0.5


def test_experts_vote_by_wma_and_learn_weights(music_db):
    good, bad = AgentScript(name="good"), AgentScript(name="bad", action=[act("run_sql", "SELECT name FROM singer")] * 9,
                                                      validate=['{"valid_result": false}'] * 20,
                                                      refine=["nothing"] * 20)
    ctx = Context(question=QUESTION, db=Database(str(music_db)),
                  models={"default": good.model, "expert:a": good.model, "expert:b": bad.model},
                  options={"max_steps": 2, "epsilon": 0.5, "loop": "always"}, gold_sql=FRENCH)
    answer = run(ctx, "recap")
    assert answer.sql == FRENCH and {c.expert for c in answer.candidates} == {"scripted:good", "scripted:bad"}
    assert ctx.trace.notes("vote")[0]["method"] == "wma"
    assert WeightStore().load(["scripted:good", "scripted:bad"]).experts == {"scripted:good": 1.0, "scripted:bad": 0.5}


def test_each_agent_turn_is_logged_for_verbose(music_db, caplog):
    script = AgentScript(plan_critique=['{"update_plan": true, "reasons": ["add a filter"]}'])
    with caplog.at_level(logging.INFO, logger="groundsql"):
        _run(music_db, script)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recap ")]
    agents = [line.split(" ·")[0].removeprefix("recap ") for line in lines]
    assert agents == ["knowledge", "schema-link", "plan", "plan-critique", "syntax", "action",
                      "observation", "sql-critique", "validate", "done"]
    assert any("update: add a filter" in line for line in lines)


def test_tree_repair_fixes_exact_slips_before_relinking_or_the_model(music_db):
    slip = "SELECT T2.name FROM singer AS T1 JOIN song AS T2 ON T1.singer_id = T2.singer_id WHERE T2.title = 'Hey'"
    script = AgentScript(action=[act("run_sql", slip)])
    answer, ctx = _run(music_db, script, schema_linking="on_error", shape_checks=False)
    assert answer.result.rows == [("Joe",)] and "T1.name" in answer.sql
    assert "link" not in script.prompts and "refine" not in script.prompts
    assert _turns(ctx, "tree-repair")[0]["rules"] == ["qualifier"]
    assert any("repaired without a model call" in n for n in answer.notes)


def test_ask_preset_recap_verbose_shows_each_agent(music_db, monkeypatch, caplog):
    from click.testing import CliRunner

    from groundsql.cli import cli, commands

    script = AgentScript()
    monkeypatch.setattr(commands, "load_model", lambda spec: script.model)
    result = CliRunner().invoke(cli, ["ask", QUESTION, "--db", str(music_db), "--preset", "recap", "--verbose",
                                      "--option", "loop=always", "--no-record"], catch_exceptions=False)
    assert result.exit_code == 0 and "France" in result.stdout and "Joe" in result.stdout
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recap ")]
    assert any(line.startswith("recap plan · v1: filter singer by country") for line in lines)
    assert any(line.startswith("recap action · step 1 run_sql: SELECT name") for line in lines)
    assert any(line == "recap validate · pass" for line in lines)


def test_an_agent_stuck_on_inspecting_is_made_to_answer(music_db):
    count = "SELECT count(*) FROM singer WHERE country = 'France'"
    script = AgentScript(action=[act("inspect", count)] * 2 + [act("run_sql", count)])
    answer, ctx = _run(music_db, script, shape_checks=False)  # the count would fail the exact list check
    assert [t["action"] for t in _turns(ctx, "action")] == ["inspect", "repeated", "run_sql"]
    assert answer.sql == count and answer.result.rows == [(2,)]
    forced = [c for c in script.model.calls if "one action at a time" in c["messages"][-1]["content"]][-1]
    assert forced["json_schema"]["properties"]["action"]["enum"] == ["run_sql"]  # the grammar allows nothing else


def test_unreadable_actions_leave_a_serializable_trace(music_db):
    import json

    script = AgentScript(action=["garbage"] * 6)
    answer, ctx = _run(music_db, script, max_steps=2)
    assert [t["reason"] for t in _turns(ctx, "action")] == ["the reply was not a valid action"] * 2
    assert json.loads(json.dumps(answer.to_dict(include_trace=True)))["trace"]


def test_an_idle_join_is_rejected_and_the_checks_rewrite_is_run_and_validated(music_db):
    joined = "SELECT s.name FROM singer s JOIN song g ON g.singer_id = s.singer_id WHERE s.age > 30"
    script = AgentScript(action=[act("run_sql", joined)])
    answer, ctx = _run(music_db, script, shape_checks=False)  # the join check alone, in the validator
    assert sorted(answer.result.rows) == [("Bo",), ("Cy",), ("Joe",)] and "song" not in answer.sql
    verdicts = _turns(ctx, "validate")
    assert [t["valid"] for t in verdicts] == [False, True] and "3 without" in verdicts[0]["feedback"]
    assert _turns(ctx, "check-rewrite")[0]["sql"] == answer.sql
    assert script.calls("validate") == 1  # the rejection came from the check, the pass from the model
    assert _turns(ctx, "done")[0]["validated"]


def test_flagged_loop_keeps_a_clean_presql_draft_without_planning_or_acting(music_db):
    """loop=flagged: a PreSQL draft that runs, returns rows and passes every exact check is the answer; no plan,
    action, critique or validation call is made."""
    script = AgentScript()
    answer, ctx = _run(music_db, script, loop="flagged")
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    assert steps == ["recap:presql"]
    assert answer.sql == FRENCH and sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    assert answer.stages == {"first_query": FRENCH, "final": FRENCH}
    assert _turns(ctx, "draft-kept")[0]["sql"] == FRENCH and _turns(ctx, "done")[0]["validated"]


@pytest.mark.parametrize("draft", ["SELECT name FROM singer WHERE country = 'Atlantis'",  # no rows
                                   "SELECT name FROM singers WHERE country = 'France'"])  # an error
def test_flagged_loop_runs_the_agents_when_the_draft_fails_or_returns_nothing(music_db, draft):
    script = AgentScript(presql=[f"```sql\n{draft}\n```"])
    answer, ctx = _run(music_db, script, loop="flagged")
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    assert "recap:plan" in steps and "recap:action" in steps and not _turns(ctx, "draft-kept")
    assert answer.sql == FRENCH


def test_flagged_loop_runs_the_agents_when_an_exact_check_objects_to_the_draft(music_db):
    """'How many …' answered with a list: the count check's finding sends the draft through the agents."""
    listed = "SELECT name FROM singer WHERE country = 'France'"
    counted = "SELECT COUNT(*) FROM singer WHERE country = 'France'"
    script = AgentScript(presql=[f"```sql\n{listed}\n```"], action=[act("run_sql", counted)])
    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": script.model}, options={"loop": "flagged"})
    answer = run(ctx, "recap")
    assert not _turns(ctx, "draft-kept") and "recap:action" in [e.step for e in ctx.trace.events if e.kind == "model"]
    assert answer.result.rows == [(2,)]
