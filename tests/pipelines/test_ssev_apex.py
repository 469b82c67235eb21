"""The `ssev` and `apex` presets end to end on a real SQLite file (scripted model for control flow)."""

from __future__ import annotations

import json

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.models import ScriptedModel
from groundsql.pipelines import DESCRIPTIONS, run
from groundsql.selection import WeightStore

pytestmark = pytest.mark.integration

FRENCH = "SELECT name FROM singer WHERE country = 'France'"


def _replier(table: dict[str, list[str]], default: str = "SELECT 1"):
    """Reply by the kind of prompt: each key is a phrase of the prompt; replies are consumed in order."""
    def reply(messages):
        text = "\n".join(m["content"] for m in messages)
        for phrase, queue in table.items():
            if phrase in text and queue:
                return queue.pop(0)
        return default
    return reply


def test_presets_are_registered():
    assert {"ssev", "apex"} <= set(DESCRIPTIONS)


def test_ssev_two_rounds_refine_and_vote(music_db):
    model = ScriptedModel(default=_replier({
        "Write a corrected": [f"```sql\n{FRENCH}\n```"],
        "that matter for the question": [f"```sql\n{FRENCH}\n```"],
        "Here is the schema": ["```sql\nSELECT nme FROM singer WHERE country = 'France'\n```"],
        "Reply with JSON only": ['{"valid": true}'],
    }))
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model})
    answer = run(ctx, "ssev")
    assert answer.preset == "ssev" and answer.sql == FRENCH
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    assert [c.source for c in answer.candidates] == ["presql", "postsql"]
    assert answer.candidates[0].rounds == 1  # the PreSQL error was repaired
    assert answer.confidence == 1.0
    # linked from the draft and the repaired PreSQL; the misspelt column of the draft is dropped
    assert answer.linked_schema == {"singer": ["country", "name"]}
    steps = [e.step for e in ctx.trace.events if getattr(e, "kind", "") == "model"]
    assert steps == ["presql", "refine", "postsql", "validate"]
    # the answer after each stage, for the per-stage ablation of the benchmark
    assert answer.stages == {"presql": "SELECT nme FROM singer WHERE country = 'France'", "presql_repaired": FRENCH,
                             "postsql": FRENCH, "postsql_repaired": FRENCH, "vote": FRENCH, "validate": FRENCH}


def test_ssev_with_two_experts_learns_weights(music_db, tmp_path):
    good = ScriptedModel(default=f"```sql\n{FRENCH}\n```", name="good")
    bad = ScriptedModel(default=_replier({"Write a corrected": ["```sql\nSELECT name FROM singer\n```"]},
                                         default="```sql\nSELECT nothing FROM singer\n```"), name="bad")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": good, "expert:a": good, "expert:b": bad},
                  options={"validate": False, "epsilon": 0.5}, gold_sql=FRENCH)
    answer = run(ctx, "ssev")
    assert answer.sql == FRENCH
    assert {c.expert for c in answer.candidates} == {"scripted:good", "scripted:bad"}
    pool = WeightStore().load(["scripted:good", "scripted:bad"])
    assert pool.experts == {"scripted:good": 1.0, "scripted:bad": 0.5}
    assert ctx.trace.notes("weights")[0]["source"] == "gold"


def test_ssev_low_confidence_asks_back_when_told(music_db):
    model = ScriptedModel(default=_replier({
        "that matter for the question": ["```sql\nSELECT name FROM singer\n```"],
        "Here is the schema": [f"```sql\n{FRENCH}\n```"],
        "Reply with the candidate number only": ["1"],
        "Ask the user one short question": ["Do you mean singers born in France or living there?"],
    }))
    ctx = Context(question="French singers?", db=Database(str(music_db)), models={"default": model},
                  options={"validate": False, "clarify": True, "confidence_threshold": 0.9})
    answer = run(ctx, "ssev")
    assert answer.clarification == "Do you mean singers born in France or living there?"
    assert answer.sql == "" and answer.result is None and len(answer.candidates) == 2
    assert any("low confidence" in note for note in answer.notes)
    data = answer.to_dict()
    assert data["clarification"] and data["notes"]


def _apex_model() -> ScriptedModel:
    return ScriptedModel(default=_replier({
        "For each step of the plan": ["Step 1: filter singers\n- Keywords: singer, filter, country"],
        "Every reply is exactly one of": [
            "[EXPLORE]\n```sql\nSELECT DISTINCT country FROM singer\n```",
            f"[SQL]\n```sql\n{FRENCH}\n```",
            "[CONFIRM]",
            f"[SQL]\n```sql\n{FRENCH.replace('name', 'singer.name')}\n```",
            "[CONFIRM]",
        ],
    }))


def test_apex_explores_and_votes(music_db):
    model = _apex_model()
    seen = []
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "diverse_views": False},  # two explorations of the same prompt
                  on_step=lambda event, data: seen.append(data["action"]) if event == "explore_step" else None)
    answer = run(ctx, "apex")
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    assert len(answer.candidates) == 2 and answer.confidence == 1.0
    assert seen == ["EXPLORE", "SQL", "CONFIRM", "SQL", "CONFIRM"]
    assert ctx.cache.provisional is not None  # the first working answer was announced while the rest ran
    assert answer.stages == {"exploration": FRENCH, "repaired": FRENCH, "rewritten": FRENCH, "vote": answer.sql}
    tips = ctx.trace.notes("tips")[0]["ids"]
    assert tips[:4] == ["OC01", "SG01", "SY01", "PF01"] and "SM03" in tips
    prompt = next(c for c in model.calls if "Every reply is exactly one of" in c["messages"][0]["content"])["messages"][1]["content"]
    assert "Tips:" in prompt and "Step 1: filter singers" in prompt
    json.dumps(answer.to_dict(include_trace=True), default=str)


def test_apex_survives_a_model_that_never_follows_the_format(music_db):
    model = ScriptedModel(default="I am a small model and I like turtles.")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "max_actions": 3})
    answer = run(ctx, "apex")
    assert answer.sql == "" and answer.confidence == 0.0
    assert answer.error and any("low confidence" in n for n in answer.notes)


def test_ablation_switches(music_db):
    model = ScriptedModel(default=f"```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"postsql": False, "validate": False})
    assert [c.source for c in run(ctx, "ssev").candidates] == ["presql"]

    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "tips": 0, "paths": False, "samples": 1, "max_actions": 1})
    answer = run(ctx, "apex")
    assert answer.sql == FRENCH and len(model.calls) == 1  # no paths call, one forced SQL action
    assert "Tips:" not in model.calls[0]["messages"][1]["content"]
    assert "last turn" in model.calls[0]["messages"][1]["content"]


def test_ssev_invalid_verdict_earns_a_round_that_takes_over_the_votes(music_db):
    both = "SELECT name, age FROM singer WHERE country = 'France'"
    model = ScriptedModel(default=_replier({
        "Write a corrected": [f"```sql\n{FRENCH}\n```"],
        "Reply with JSON only": ['{"valid": false, "columns_not_needed": ["age"], "suggest_fix": "names only"}'],
    }, default=f"```sql\n{both}\n```"))
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model})
    answer = run(ctx, "ssev")
    assert answer.sql == FRENCH and answer.confidence == 1.0
    assert [c.source for c in answer.candidates] == ["validated", "validated"]
    revise_prompt = model.calls[-1]["messages"][1]["content"]
    assert "Drop the columns the question does not ask for: age" in revise_prompt


def test_ssev_repair_retries_when_the_model_echoes_its_query(music_db):
    broken = "SELECT nme FROM singer WHERE country = 'France'"
    model = ScriptedModel([f"```sql\n{broken}\n```",  # PreSQL
                           f"```sql\n{broken}\n```",  # greedy repair echoes the query
                           f"```sql\n{FRENCH}\n```"],  # sampled retry
                          default=f"```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"validate": False})
    answer = run(ctx, "ssev")
    assert answer.candidates[0].sql == FRENCH and answer.candidates[0].rounds == 1
    assert [c["temperature"] for c in model.calls[1:3]] == [0.0, 0.7]
    hint = model.calls[1]["messages"][1]["content"]
    assert "no such column" in hint and "singer: singer_id, name, country, age" in hint


@pytest.mark.parametrize("flags, shown", [(["--verbose"], True), ([], False)])
def test_cli_ask_verbose_shows_the_exploration_steps(music_db, monkeypatch, caplog, flags, shown):
    import logging

    from click.testing import CliRunner

    from groundsql.cli import commands
    from groundsql.cli.app import cli

    monkeypatch.setattr(commands, "load_model", lambda spec: _apex_model())
    try:
        result = CliRunner().invoke(cli, ["ask", "Which singers are from France?", "--db", str(music_db),
                                          "--preset", "apex", "--linker", "full", "--no-record",
                                          "--option", "diverse_views=false", "--option", "draft=false", *flags],
                                    catch_exceptions=False)
    finally:
        logging.getLogger("groundsql").setLevel(logging.WARNING)
    assert result.exit_code == 0 and "Ann" in result.output, result.output
    steps = [r.getMessage() for r in caplog.records if r.getMessage().startswith("explore ")]
    assert bool(steps) is shown
    if shown:
        assert [s.split("[")[1].split("]")[0] for s in steps] == ["EXPLORE", "SQL", "CONFIRM", "SQL", "CONFIRM"]


def test_apex_repairs_a_trajectory_that_ends_in_an_error(music_db):
    broken = "SELECT s.name FROM singer AS s JOIN song AS t ON s.singer_id = t.singer_id WHERE t.country = 'France'"
    model = ScriptedModel(default=_replier({
        "For each step of the plan": ["Step 1: filter singers"],
        "Every reply is exactly one of": [f"[SQL]\n```sql\n{broken}\n```"] * 2,
        "This query was written for the question": [f"```sql\n{FRENCH}\n```"] * 2,
    }))
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "max_actions": 1,  # one action: each trajectory ends in the error
                           "tree_repair": False, "diverse_views": False})  # the model's repair is tested here (tree repair would fix it)
    answer = run(ctx, "apex")
    assert answer.stages == {"exploration": broken, "repaired": FRENCH, "rewritten": FRENCH, "vote": FRENCH}
    assert all(c.ok for c in answer.candidates) and answer.confidence == 1.0
    prompts = ["\n".join(m["content"] for m in call["messages"]) for call in model.calls]
    repair = next(text for text in prompts if "This query was written for the question" in text)
    assert "no such column: t.country" in repair
    assert "song (alias t): song_id, singer_id, title, sales" in repair  # the real columns behind the alias
    assert "country is a column of singer" in repair
    assert ctx.trace.notes("refine")[0]["kind"] == "no_such_column"

    unrepaired = Context(question="Which singers are from France?", db=Database(str(music_db)),
                         models={"default": ScriptedModel(default=_replier({
                             "Every reply is exactly one of": [f"[SQL]\n```sql\n{broken}\n```"] * 2}))},
                         options={"draft": False, "linker": "full", "max_actions": 1, "repair_rounds": 0})
    answer = run(unrepaired, "apex")
    # no model repair, but the tree repair runs inside apex whatever repair_rounds says: the misplaced
    # qualifier is fixed without a model call, in the trajectory (explore_repair) and nowhere a `refine` step
    assert answer.candidates[0].ok and answer.stages["repaired"] == answer.candidates[0].sql
    assert "refine" not in [e.step for e in unrepaired.trace.events if e.kind == "model"]
    assert unrepaired.trace.notes("explore_repair")

    untouched = Context(question="Which singers are from France?", db=Database(str(music_db)),
                        models={"default": ScriptedModel(default=_replier({
                            "Every reply is exactly one of": [f"[SQL]\n```sql\n{broken}\n```"] * 2}))},
                        options={"draft": False, "linker": "full", "max_actions": 1, "repair_rounds": 0, "tree_repair": False})
    answer = run(untouched, "apex")
    assert not answer.candidates[0].ok and answer.stages["repaired"] == broken
