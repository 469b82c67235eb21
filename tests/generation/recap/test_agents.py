"""Each recap agent on its own, on a real SQLite database, with a scripted model for the replies."""

from __future__ import annotations

import pytest

from groundsql.answer import Candidate
from groundsql.catalog import Catalog, profile_table, render
from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ModelError
from groundsql.generation.recap.action import ActionReply, check_action, next_action, normalized
from groundsql.generation.recap.knowledge import retrieve_knowledge
from groundsql.generation.recap.plan_critique import critique_plan
from groundsql.generation.recap.planner import Plan, fallback_plan, make_plan
from groundsql.generation.recap.replies import ask_json
from groundsql.generation.recap.schema_linker import compact_text, relink
from groundsql.generation.recap.self_refiner import needs_refinement, self_refine
from groundsql.generation.recap.sql_critique import critique_sql, parse_critique
from groundsql.generation.recap.state import RecapState
from groundsql.generation.recap.syntax import dialect_notes, retrieve_syntax
from groundsql.generation.recap.validator import validate_result
from groundsql.generation.refinement import execute_candidate
from groundsql.linking.subset import SchemaSubset
from groundsql.models import ScriptedModel

from .script import FRENCH, AgentScript, act, plan

pytestmark = pytest.mark.integration


def _ctx(music_db, model, **kwargs) -> Context:
    return Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                   **kwargs)


def _state(ctx: Context, the_plan: Plan | None = None) -> RecapState:
    state = RecapState(schema_text="singer(singer_id, name, country, age)", plan=fallback_plan(ctx))
    state.set_plan(the_plan or Plan(steps=["filter by country"], expected_columns=[{"name": "name"}]))
    return state


# -- structured replies --------------------------------------------------------------------------------------


def test_malformed_json_is_repaired_or_re_asked_and_then_given_up_without_crashing(music_db):
    script = AgentScript(plan=["not json at all", plan("one step")])
    assert make_plan(_ctx(music_db, script.model), "schema", knowledge=[]).steps == ["one step"]  # the repair
    script = AgentScript(plan=['{"steps": []}', '{"steps": [" "]}', plan("two steps")])
    ctx = _ctx(music_db, script.model)
    assert make_plan(ctx, "schema", knowledge=[]).steps == ["two steps"]  # JSON that fails validation: re-asked
    assert "That reply is not usable (steps" in script.model.calls[-1]["messages"][-1]["content"]
    script = AgentScript(plan=['{"steps": []}'] * 4)
    ctx = _ctx(music_db, script.model)
    assert make_plan(ctx, "schema", knowledge=[]) is None  # an empty plan never validates
    assert ctx.trace.notes("recap")[-1]["malformed"]
    script = AgentScript(plan=["no", "still no", plan("never asked")])
    ctx = _ctx(music_db, script.model)
    assert make_plan(ctx, "schema", knowledge=[]) is None and script.calls("plan") == 2  # not JSON: no third try


def test_a_failing_model_reads_as_no_reply(music_db):
    class Broken(ScriptedModel):
        def _generate(self, *args, **kwargs):
            raise ModelError("down")

    ctx = _ctx(music_db, Broken())
    assert ask_json(ctx, "recap:plan", "You plan how", Plan) is None
    assert critique_plan(ctx, fallback_plan(ctx), "schema") is None


# -- knowledge, planner, critique, syntax ----------------------------------------------------------------------


def test_knowledge_snippets_are_ranked_by_the_question(music_db):
    ctx = _ctx(music_db, ScriptedModel(), evidence="Age is in years. French singers have country = 'France'. "
                                                   "Sales are in millions.")
    ctx.question = "Which singers are from France?"
    assert retrieve_knowledge(ctx, top_k=1) == ["French singers have country = 'France'."]
    assert retrieve_knowledge(ctx, top_k=0) == []
    ctx.evidence = None
    assert retrieve_knowledge(ctx) == []


def test_planner_returns_steps_and_expected_format_and_revises_on_critique(music_db):
    script = AgentScript(plan=[plan("find French singers", "list names", columns=("name", "age"))])
    ctx = _ctx(music_db, script.model, evidence="France means country = 'France'.")
    first = make_plan(ctx, "singer(name, country)", knowledge=["France means country = 'France'."])
    assert first.steps == ["find French singers", "list names"]
    assert first.format_text() == "name (TEXT), age (TEXT)"
    assert "France means country" in script.prompts["plan"][0]
    make_plan(ctx, "schema", knowledge=[], previous=first, critique=["drop the age column"])
    assert "drop the age column" in script.prompts["plan"][1] and "1. find French singers" in script.prompts["plan"][1]


def test_plan_critique_verdict_and_a_change_without_reasons(music_db):
    script = AgentScript(plan_critique=['{"update_plan": true, "reasons": ["no filter on country"]}',
                                        '{"update_plan": true, "reasons": []}'])
    ctx = _ctx(music_db, script.model)
    verdict = critique_plan(ctx, Plan(steps=["list singers"]), "schema")
    assert verdict.update_plan and verdict.reasons == ["no filter on country"]
    assert not critique_plan(ctx, Plan(steps=["list singers"]), "schema").update_plan


def test_knowledge_retriever_reads_the_knowledge_folder_beside_the_database(music_db):
    folder = music_db.parent / f"{music_db.name}.knowledge"
    folder.mkdir()
    (folder / "rules.yaml").write_text("- text: A French singer is one whose country is 'France'.\n"
                                       "- text: Sales are counted in thousands of units.\n")
    ctx = _ctx(music_db, ScriptedModel(), evidence="Age is in years.")
    found = retrieve_knowledge(ctx, top_k=2)
    assert found[0] == "A French singer is one whose country is 'France'." and len(found) == 2
    assert ctx.trace.notes("knowledge.retrieve")


def test_syntax_retriever_asks_the_model_and_takes_notes_from_groundsql(music_db):
    script = AgentScript(syntax=['{"needed": false, "topics": ["dates"]}',
                                 '{"needed": true, "topics": ["Dates", "poetry", "dates", "nulls"]}'])
    ctx = _ctx(music_db, script.model)
    assert retrieve_syntax(ctx, Plan(steps=["x"])) == {}
    notes = retrieve_syntax(ctx, Plan(steps=["x"]))
    assert list(notes) == ["dates", "nulls"] and "strftime" in notes["dates"]
    assert "DATEDIFF" in dialect_notes("mysql", ["dates"])["dates"]
    assert set(dialect_notes("postgres", ["concat", "quoting"])) == {"concat", "quoting"}


# -- action agent ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reply, kind", [
    (ActionReply(action="fly", sql=FRENCH), "invalid"),
    (ActionReply(action="run_sql", sql=""), "invalid"),
    (ActionReply(action="run_sql", sql="DELETE FROM singer"), "invalid"),
    (ActionReply(action="RUN SQL", sql=FRENCH), "run_sql"),
    (ActionReply(action="explore", sql="SELECT DISTINCT country FROM singer"), "inspect"),
    (ActionReply(action="terminate"), "terminate"),
])
def test_actions_are_checked_before_they_run(music_db, reply, kind):
    ctx = _ctx(music_db, ScriptedModel())
    assert check_action(reply, _state(ctx), "sqlite").kind == kind


def test_a_repeated_action_is_refused_however_it_is_spelled(music_db):
    ctx = _ctx(music_db, ScriptedModel())
    state = _state(ctx)
    state.done.add(("run_sql", normalized(FRENCH, "sqlite")))
    again = check_action(ActionReply(action="run_sql", sql="select name from singer  where country='France'"),
                         state, "sqlite")
    assert again.kind == "repeated" and not again.executable
    assert check_action(ActionReply(action="inspect", sql=FRENCH), state, "sqlite").kind == "inspect"


def test_action_prompt_carries_step_feedback_observation_and_notes(music_db):
    script = AgentScript(action=["{not json", act("inspect", "SELECT DISTINCT country FROM singer")])
    ctx = _ctx(music_db, script.model)
    state = _state(ctx, Plan(steps=["look at countries", "filter"]))
    state.critique, state.observation, state.syntax = "drop age", "columns: country", {"text": "use ||"}
    action = next_action(ctx, state)
    assert action.kind == "inspect"
    prompt = script.prompts["action"][0]
    for part in ("Current step: look at countries", "drop age", "columns: country", "use ||"):
        assert part in prompt


# -- SQL critique, self-refiner, schema linker, validator ----------------------------------------------------------


def test_sql_critique_parses_reasoning_and_a_revision(music_db):
    assert parse_critique("[Reasoning] fine\n[SQL] no change", FRENCH, "sqlite").revised_sql == ""
    same = parse_critique("[Reasoning] ok\n[SQL]\n```sql\nselect name  from singer where country = 'France';\n```", FRENCH,
                          "sqlite")
    assert same.revised_sql == ""  # the same query is no revision
    assert parse_critique("just prose", FRENCH, "sqlite").reasoning == "just prose"
    script = AgentScript(sql_critique=["[Reasoning] the filter is missing\n[SQL]\n```sql\n" + FRENCH + "\n```"])
    ctx = _ctx(music_db, script.model)
    plain = execute_candidate(ctx, "SELECT name FROM singer", source="recap")
    critique = critique_sql(ctx, plain, Plan(steps=["filter"]))
    assert critique.reasoning == "the filter is missing" and critique.revised_sql == FRENCH
    assert "rows: 4" in script.prompts["sql-critique"][0]


def test_self_refiner_uses_the_taxonomy_critique_and_expected_format(music_db):
    script = AgentScript()
    ctx = _ctx(music_db, script.model)
    state = _state(ctx)
    state.critique = "keep only French singers"
    empty = execute_candidate(ctx, "SELECT name FROM singer WHERE country = 'france'", source="recap")
    assert needs_refinement(ctx, empty) == "empty_result"
    fixed = self_refine(ctx, empty, state, rounds=2)
    assert fixed.sql == FRENCH and fixed.result.row_count == 2 and state.refine_rounds == 1
    prompt = script.prompts["refine"][0]
    assert "returned no rows" in prompt and "keep only French singers" in prompt and "name (TEXT)" in prompt
    assert self_refine(ctx, fixed, state, rounds=2) is fixed  # nothing to repair


def test_schema_linker_relinks_in_compact_form_with_values(music_db):
    script = AgentScript(link=['{"tables": [{"name": "singer", "columns": ["country", "nonsense"]}, '
                               '{"name": "ghost"}]}'])
    ctx = _ctx(music_db, script.model)
    bad = execute_candidate(ctx, "SELECT title FROM singer", source="recap")
    subset, text = relink(ctx, bad.sql, bad.error)
    assert set(subset.tables) == {"singer", "song"}  # the model's pick, plus the owner of the missing column
    assert subset.as_mapping()["singer"] == ["country"]
    assert "singer(" in text and "country:TEXT['France'" in text and "song(" in text
    assert compact_text(ctx, subset) == text  # rendered once per run


def test_compact_schema_comes_from_the_one_renderer_with_descriptions(music_db):
    folder = music_db.with_name("music.sqlite.knowledge")
    folder.mkdir()
    (folder / "descriptions.csv").write_text("table,column,description\nsinger,,People who record songs\n"
                                             "singer,country,home country of the singer in English\n")
    subset = SchemaSubset(linker="recap")
    subset.add("singer", "country")
    ctx = _ctx(music_db, AgentScript().model)
    text = compact_text(ctx, subset)
    lines = text.splitlines()
    assert lines[0].startswith("singer(singer_id:INTEGER PK[1,2,3], country:TEXT['France'")
    assert lines[0].endswith(" -- People who record songs; 4 rows")
    assert lines[1] == "  -- country: home country of the singer in English"
    rendered = ctx.trace.notes("knowledge.render")[-1]
    assert rendered["style"] == "compact" and rendered["catalog"] and rendered["tables"] == 1


def test_compact_schema_without_catalog_context_is_unchanged(music_db):
    """All knowledge switches off: byte for byte the compact text recap drew from the catalog renderer before."""
    options = {"catalog_context": False, "knowledge": False, "dialect_notes": False}
    ctx = _ctx(music_db, AgentScript().model, options=options)
    subset = SchemaSubset(linker="recap")
    subset.add("singer", "country")
    subset.add("song")
    profiles = [profile_table(ctx.db, ctx.schema.table(n)).profile for n in ("singer", "song")]
    before = render(Catalog(schema=ctx.schema, tables=profiles), tables=["singer", "song"], style="compact",
                    linked=subset.as_mapping(), group=False)
    assert compact_text(ctx, subset) == before
    assert ctx.trace.notes("knowledge.render")[-1]["profiled"] == ["singer", "song"]


def test_validator_checks_result_and_expected_format(music_db):
    script = AgentScript(validate=['{"valid_result": false, "columns_not_needed": ["age", "zzz"], '
                                   '"suggest_fix": "only names"}'] + ["{}"] * 4)
    ctx = _ctx(music_db, script.model)
    the_plan = Plan(steps=["x"], expected_columns=[{"name": "name"}])
    both = execute_candidate(ctx, "SELECT name, age FROM singer WHERE country = 'France'", source="recap")
    verdict = validate_result(ctx, both, the_plan)
    assert not verdict.valid and verdict.columns_not_needed == ["age"] and "only names" in verdict.feedback()
    assert "2 column(s); the plan expected 1: name (TEXT)" in script.prompts["validate"][0]
    assert validate_result(ctx, both, the_plan).valid  # an unreadable verdict passes
    script.queues["validate"] = ['{"valid_result": true, "columns_not_needed": ["age"]}',
                                 '{"valid_result": true, "columns_not_needed": ["name", "age"]}']
    assert not validate_result(ctx, both, the_plan).valid  # a column not needed fails a "valid" result
    assert validate_result(ctx, both, the_plan).valid  # … unless it would drop every column
    calls = script.calls("validate")
    empty = execute_candidate(ctx, "SELECT name FROM singer WHERE age > 100", source="recap")
    assert validate_result(ctx, empty, the_plan).result_empty and script.calls("validate") == calls
    broken = Candidate(sql="SELECT", error="syntax error")
    assert not validate_result(ctx, broken, the_plan).valid


@pytest.mark.parametrize(("text", "topics"), [
    ("How many singers are there?", []),
    ("Which concerts were held in 2014 or later?", ["dates"]),
    ("What percentage of pets are dogs, and what is the full name of the oldest owner?", ["concat", "division"]),
    ("List the names that start with 'A' and whose country is missing", ["nulls", "regex"]),
])
def test_keyword_topics_come_from_the_words_of_the_question_and_plan(text, topics):
    from groundsql.generation.recap.syntax import keyword_topics

    assert keyword_topics(text) == topics


def test_keyword_syntax_notes_need_no_model_call(music_db):
    script = AgentScript()
    ctx = _ctx(music_db, script.model)
    notes = retrieve_syntax(ctx, Plan(steps=["count songs by release year"]), mode="keywords")
    assert list(notes) == ["dates"] and not script.model.calls
