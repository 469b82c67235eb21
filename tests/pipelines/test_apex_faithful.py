"""The `apex` preset as the paper describes it: its linking by default, budget profiles, generation ablations,
reward-model selection, and the switchable steps for small models (tree repair in the trajectory, confirmation
checked against the data, diverse schema views). Real SQLite file; a scripted model for control flow."""

from __future__ import annotations

import pytest

from groundsql.budgets import PROFILES
from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.exploration import Budget
from groundsql.models import ScriptedModel
from groundsql.pipelines import preset_options, run
from groundsql.pipelines.apex import ApexOptions

pytestmark = pytest.mark.integration

FRENCH = "SELECT name FROM singer WHERE country = 'France'"
ALL = "SELECT name FROM singer"


def _replier(table: dict[str, list[str]], default: str = "SELECT 1"):
    def reply(messages):
        text = "\n".join(m["content"] for m in messages)
        for phrase, queue in table.items():
            if phrase in text and queue:
                return queue.pop(0)
        return default
    return reply


def _steps(ctx: Context) -> list[str]:
    return [e.step for e in ctx.trace.events if e.kind == "model"]


def test_apex_links_a_small_schema_by_default_and_takes_it_whole_only_when_asked(music_db):
    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "samples": 1, "max_actions": 1})
    run(ctx, "apex")
    steps = _steps(ctx)
    assert "link.plan" in steps and "link.prune_delete" in steps and "link.semantic" in steps
    assert ctx.trace.notes("link")[-1]["linker"] == "apex"

    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "samples": 1, "max_actions": 1, "link_full_budget": 4000})
    run(ctx, "apex")
    assert not [s for s in _steps(ctx) if s.startswith("link.")]
    assert ctx.trace.notes("link")[-1]["linker"] == "full"


def test_budget_profiles_and_the_run_identity():
    small, paper = Budget.from_options(ApexOptions()), Budget.from_options(ApexOptions(budget="paper"))
    assert (small.actions, small.tokens, small.force_actions, small.force_tokens) == (6, 12000, 5, 10200)
    assert (paper.actions, paper.tokens, paper.force_actions, paper.force_tokens) == (40, 56000, 38, 52000)
    assert paper.keep_observations is None and PROFILES["paper"].samples == 8
    mixed = Budget.from_options(ApexOptions(budget="paper", max_actions=10))
    assert (mixed.actions, mixed.force_actions, mixed.tokens) == (10, 9, 56000)
    # the profile is one entry of the run identity (eval's run.json and summary)
    assert preset_options("apex", {"budget": "paper"}).identity() == {"budget": "paper"}
    assert preset_options("apex", {}).identity() == {}


def test_paper_budget_samples_eight_trajectories(music_db):
    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "budget": "paper", "linker": "full", "paths": False})
    answer = run(ctx, "apex")
    assert len(answer.candidates) == 8
    budget = ctx.trace.notes("apex.budget")[0]
    assert budget["profile"] == "paper" and budget["samples"] == 8 and budget["exploration"]["actions"] == 40


def test_without_exploration_each_trajectory_is_one_query_then_refinement(music_db):
    model = ScriptedModel(default=f"```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "exploration": False, "samples": 2, "paths": False})
    answer = run(ctx, "apex")
    assert answer.sql == FRENCH
    steps = _steps(ctx)
    assert steps == ["generate:0", "generate:1"] and not ctx.trace.notes("explore_step")


def test_guidance_and_paths_switches(music_db):
    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "tips": 0, "paths": False, "samples": 1, "max_actions": 1})
    run(ctx, "apex")
    assert "paths" not in _steps(ctx) and ctx.trace.notes("tips")[0]["ids"] == []
    assert "Tips:" not in model.calls[0]["messages"][1]["content"]
    # the paper profile retrieves every matched tip, the small one eight
    question = ("What is the average age and the total number of singers from France or with 'an' in their name, "
                "for each country with more than 2 singers, ordered by the highest percentage of songs?")
    counts = {}
    for budget in ("small", "paper"):
        model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
        ctx = Context(question=question, db=Database(str(music_db)), models={"default": model},
                      options={"draft": False, "linker": "full", "budget": budget, "samples": 1, "max_actions": 1, "paths": False})
        run(ctx, "apex")
        counts[budget] = len(ctx.trace.notes("tips")[0]["ids"])
    assert counts["small"] == 8 and counts["paper"] > 8


def _two_results_model() -> ScriptedModel:
    """The first trajectory answers FRENCH, every later one ALL (one action each)."""
    answers = [FRENCH]
    return ScriptedModel(default=lambda messages: f"[SQL]\n```sql\n{answers.pop(0) if answers else ALL}\n```")


def test_reward_model_selects_and_without_one_the_vote_does(music_db):
    reward = ScriptedModel(default=lambda m: '{"score": 9}' if "country = 'France'" in m[0]["content"]
                           else '{"score": 2}', name="reward")
    generator = _two_results_model()
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": generator, "reward": reward},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 2, "max_actions": 1})
    answer = run(ctx, "apex")
    assert answer.sql == FRENCH
    note = ctx.trace.notes("selection")[0]
    assert note["method"] == "reward" and note["reward_model"] == "scripted:reward"
    assert sorted(s for s in note["scores"] if s is not None) == [2.0, 9.0]
    assert len(reward.calls) == 2 and "judge" not in _steps(ctx)

    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": _two_results_model()},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 2, "max_actions": 1, "judge": False})
    run(ctx, "apex")
    note = ctx.trace.notes("selection")[0]
    assert note["method"] == "vote" and "no reward model" in note["reason"]
    assert "reward" not in _steps(ctx)


def test_exploration_tree_repairs_a_failing_query_inside_the_trajectory(music_db):
    broken = "SELECT s.name FROM singer AS s JOIN song AS t ON s.singer_id = t.singer_id WHERE t.country = 'France'"

    def model(explore_repair: bool) -> tuple[Context, ScriptedModel]:
        scripted = ScriptedModel(default=_replier({"Every reply is exactly one of": [
            f"[SQL]\n```sql\n{broken}\n```", "[CONFIRM]"]}))
        ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                      models={"default": scripted},
                      options={"draft": False, "linker": "full", "paths": False, "samples": 1, "max_actions": 2, "repair_rounds": 0,
                               "explore_repair": explore_repair})
        return ctx, scripted

    ctx, scripted = model(True)
    answer = run(ctx, "apex")
    assert ctx.trace.notes("explore_repair") and answer.candidates[0].ok
    second = scripted.calls[1]["messages"][1]["content"]
    assert "repaired from the schema" in second and "s.country" in second
    assert ctx.trace.notes("explore_step")[-1].get("confirmed") is True

    ctx, _ = model(False)
    run(ctx, "apex")
    assert not ctx.trace.notes("explore_repair")
    # the tree repair still runs after the trajectory, whatever repair_rounds says
    assert ctx.trace.notes("tree_repair") and "refine" not in _steps(ctx)


def test_confirmation_is_checked_against_the_data(music_db):
    listing = "SELECT name FROM singer WHERE country = 'France'"

    def scripted():
        return ScriptedModel(default=_replier({"Every reply is exactly one of": [
            f"[SQL]\n```sql\n{listing}\n```", "[CONFIRM]", "[CONFIRM]"]}))

    model = scripted()
    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 1, "max_actions": 4})
    run(ctx, "apex")
    assert ctx.trace.notes("confirm_checks")[0]["findings"]
    third = model.calls[2]["messages"][1]["content"]
    assert "Checked against the data before confirming" in third
    assert ctx.trace.notes("explore_step")[-1]["confirmed"] is True  # a second CONFIRM keeps the model's word

    model = scripted()
    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 1, "max_actions": 4, "confirm_checks": False})
    run(ctx, "apex")
    assert not ctx.trace.notes("confirm_checks") and ctx.trace.notes("explore_step")[1]["confirmed"] is True


def test_diverse_views_give_each_trajectory_another_framing(music_db):
    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 4, "max_actions": 1})
    answer = run(ctx, "apex")
    samples = ctx.trace.notes("apex.sample")
    assert [s["view"] for s in samples] == ["linked", "direct", "compact", "whole"]
    assert [s["temperature"] for s in samples] == [0.0] * 4
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    assert steps == ["explore:0", "generate:1", "explore:2", "explore:3"]  # the direct framing is one call
    direct = next(c for c in model.calls if "Every reply is exactly one of" not in c["messages"][0]["content"])
    assert "Tips" not in direct["messages"][1]["content"]  # the baseline's prompt: no tips, no plan
    compact = model.calls[2]["messages"][1]["content"]
    assert "CREATE TABLE" not in compact and compact != model.calls[0]["messages"][1]["content"]
    assert len(answer.candidates) == 4 and answer.sql == FRENCH

    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 3, "max_actions": 1, "diverse_views": False})
    run(ctx, "apex")
    samples = ctx.trace.notes("apex.sample")
    assert [s["view"] for s in samples] == ["linked"] * 3 and [s["temperature"] for s in samples] == [0.0, 0.7, 0.7]


IDLE_JOIN = "SELECT s.name FROM singer AS s JOIN song AS t ON s.singer_id = t.singer_id WHERE s.age > 30"


@pytest.mark.parametrize("question, options, rewritten", [
    ("What are the names of singers older than 30?", {}, True),
    ("What are the names of singers older than 30?", {"check_rewrites": False}, False),
    ("What are the names of singers older than 30 who have a song?", {}, False),  # the question names the table
])
def test_check_rewrites_drop_an_idle_join(music_db, question, options, rewritten):
    model = ScriptedModel(default=f"[SQL]\n```sql\n{IDLE_JOIN}\n```")
    ctx = Context(question=question, db=Database(str(music_db)), models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 1, "max_actions": 1, **options})
    answer = run(ctx, "apex")
    if rewritten:
        assert "JOIN" not in answer.sql.upper() and sorted(answer.result.rows) == [("Bo",), ("Cy",), ("Joe",)]
        assert ctx.trace.notes("apex.rewrite")[0]["check"] == "extra_join"
        assert answer.stages["repaired"] == IDLE_JOIN and answer.stages["rewritten"] == answer.sql
    else:
        assert answer.sql == IDLE_JOIN and not ctx.trace.notes("apex.rewrite")


def test_eval_record_carries_the_trajectories(music_db, tmp_path):
    import json

    from groundsql.evaluation import evaluate

    root = tmp_path / "spider"
    (root / "database" / "music").mkdir(parents=True)
    import shutil
    shutil.copy(music_db, root / "database" / "music" / "music.sqlite")
    (root / "dev.json").write_text(json.dumps([{"db_id": "music", "question": "Which singers are from France?",
                                                "query": FRENCH}]))
    (root / "tables.json").write_text("[]")
    model = ScriptedModel(default=f"[SQL]\n```sql\n{FRENCH}\n```")
    summary = evaluate(root, preset="apex", model=model, out=tmp_path / "run",
                       options={"draft": False, "budget": "paper", "samples": 1, "max_actions": 1, "linker": "full"})
    assert summary["run"]["options"]["budget"] == "paper"
    record = json.loads((tmp_path / "run" / "results.jsonl").read_text().splitlines()[0])
    assert record["apex"]["profile"] == "paper" and record["apex"]["samples"][0]["sql"] == FRENCH
    assert record["apex"]["samples"][0]["steps"][0]["action"] == "SQL"
    assert record["apex"]["selection"] == "vote"


def test_link_only_stage_scores_the_apex_linker(music_db, tmp_path):
    import json
    import shutil

    from groundsql.evaluation import evaluate
    from groundsql.evaluation.report import run_label

    root = tmp_path / "spider"
    (root / "database" / "music").mkdir(parents=True)
    shutil.copy(music_db, root / "database" / "music" / "music.sqlite")
    (root / "dev.json").write_text(json.dumps([{"db_id": "music", "question": "Which singers are from France?",
                                                "query": FRENCH}]))
    (root / "tables.json").write_text("[]")
    model = ScriptedModel(default='{"relevant_tables": ["singer"], "irrelevant_tables": ["song"], "tables": '
                                  '[{"table": "singer", "role": "target"}], "relevant": true}')
    summary = evaluate(root, preset="apex", model=model, out=tmp_path / "run", stage="link", linker="apex",
                       options={"planning": False})
    assert summary["run"]["stage"] == "link" and summary["run"]["linker"] == "apex"
    assert summary["linking"]["table"]["srr"] == 100.0
    steps = [c["messages"][-1]["content"] for c in model.calls]
    assert steps and not any("abstract steps" in s for s in steps)  # planning=false reached the linker
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_label(config).startswith("link:apex") and "planning=False" in run_label(config)


def test_vote_checks_keep_flagged_results_out_of_the_vote(music_db):
    count = "SELECT count(*) FROM singer WHERE country = 'France'"

    def scripted():
        answers = [FRENCH, FRENCH, count]  # two trajectories list the singers, one counts them
        return ScriptedModel(default=lambda m: f"[SQL]\n```sql\n{answers.pop(0) if answers else count}\n```")

    options = {"draft": False, "linker": "full", "paths": False, "samples": 3, "max_actions": 1, "judge": False,
               "diverse_views": False, "check_rewrites": False}  # else the count rewrite fixes the listings
    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": scripted()}, options=options)
    answer = run(ctx, "apex")
    assert answer.sql == count and answer.result.rows == [(2,)]
    note = ctx.trace.notes("apex.vote_checks")[0]
    assert "shape" in note["flagged"][FRENCH] and note["voting"] == 1
    assert len(answer.candidates) == 3  # the flagged ones stay on the answer

    ctx = Context(question="How many singers are from France?", db=Database(str(music_db)),
                  models={"default": scripted()}, options={"draft": False, **options, "vote_checks": False})
    assert run(ctx, "apex").sql == FRENCH  # the majority, as in the paper


def test_check_rewrites_drop_two_idle_joins_one_through_the_other(music_db):
    import sqlite3

    conn = sqlite3.connect(music_db)
    conn.executescript("CREATE TABLE award (award_id INTEGER PRIMARY KEY, song_id INTEGER REFERENCES song(song_id));"
                       "INSERT INTO award VALUES (1, 1), (2, 3);")
    conn.commit()
    conn.close()
    chained = ("SELECT DISTINCT s.name, s.age FROM singer AS s JOIN song AS t ON s.singer_id = t.singer_id "
               "JOIN award AS a ON t.song_id = a.song_id")
    model = ScriptedModel(default=f"[SQL]\n```sql\n{chained}\n```")
    ctx = Context(question="What is the name and age of every singer?", db=Database(str(music_db)),
                  models={"default": model},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 1, "max_actions": 1})
    answer = run(ctx, "apex")
    assert "JOIN" not in answer.sql.upper() and len(answer.result.rows) == 4
    assert [n["taken"] for n in ctx.trace.notes("apex.rewrite")] == [True, True]


def test_selection_reward_without_a_reward_model_scores_with_the_generator(music_db):
    answers = [FRENCH]

    def reply(messages):
        text = messages[0]["content"]
        if "reward model for text-to-SQL" in text:
            return '{"score": 8}' if "country = 'France'" in text else '{"score": 1}'
        return f"[SQL]\n```sql\n{answers.pop(0) if answers else ALL}\n```"

    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": ScriptedModel(default=reply)},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 2, "max_actions": 1, "selection": "reward",
                           "diverse_views": False})
    answer = run(ctx, "apex")
    note = ctx.trace.notes("selection")[0]
    assert answer.sql == FRENCH and note["method"] == "reward" and note["reward_model"] == "scripted:scripted"


@pytest.mark.parametrize("tie_break, expected", [("direct", ALL), ("judge", FRENCH)])
def test_a_tie_goes_to_the_direct_framing_or_to_the_judge(music_db, tie_break, expected):
    def reply(messages):
        text = "\n".join(m["content"] for m in messages)
        if "Every reply is exactly one of" in text:
            return f"[SQL]\n```sql\n{FRENCH}\n```"
        if "return different results" in text:  # the judge names the exploration's query
            first = text.split("Candidate 1:")[1].split("Candidate 2:")[0]
            return "1" if "country" in first else "2"
        return f"```sql\n{ALL}\n```"

    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": ScriptedModel(default=reply)},
                  options={"draft": False, "linker": "full", "paths": False, "samples": 2, "max_actions": 1, "tie_break": tie_break,
                           "vote_checks": False, "check_rewrites": False})
    answer = run(ctx, "apex")
    assert [c.source for c in answer.candidates] == ["explore", "direct"]
    assert answer.sql == expected
    assert ctx.trace.notes("selection")[0]["tie_break"] == tie_break


def test_a_draft_that_settles_is_the_answer_and_a_flagged_one_runs_the_papers_path(music_db):
    """draft=true: one plain query first. A draft that runs, returns rows and passes every exact check is the
    answer (one call, no linking or exploration); one that returns nothing goes through linking and exploration."""
    model = ScriptedModel(default=f"```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)), models={"default": model},
                  options={"samples": 1, "max_actions": 1, "draft": True})
    answer = run(ctx, "apex")
    assert _steps(ctx) == ["apex:draft"] and ctx.trace.notes("draft")[0]["kept"]
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)] and answer.stages == {"draft": FRENCH, "vote": FRENCH}
    assert 0.5 < answer.confidence <= 1.0

    nobody = "SELECT name FROM singer WHERE country = 'Atlantis'"
    replies = _replier({"Question: Which singers": [f"```sql\n{nobody}\n```"]}, default=f"[SQL]\n```sql\n{FRENCH}\n```")
    ctx = Context(question="Which singers are from France?", db=Database(str(music_db)),
                  models={"default": ScriptedModel(default=replies)},
                  options={"samples": 1, "max_actions": 1, "draft": True})
    answer = run(ctx, "apex")
    steps = _steps(ctx)
    assert steps[0] == "apex:draft" and not ctx.trace.notes("draft")[0]["kept"]
    assert "link.plan" in steps and answer.stages["draft"] == nobody and "exploration" in answer.stages
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)]
