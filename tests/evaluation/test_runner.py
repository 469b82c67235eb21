"""Runs on real Spider databases: the output contract, resuming, interruption, predictions mode, reports.

The model here is a scripted double that answers with the gold SQL (or a wrong query); the scoring, the
databases and the files are all real. The real model is exercised in test_e2e.py.
"""

from __future__ import annotations

import json

import pytest

from groundsql.errors import ConfigError
from groundsql.evaluation import EvalOptions, evaluate, load_dataset, run_evaluation
from groundsql.models import ScriptedModel
from groundsql.options import NoOptions

pytestmark = pytest.mark.integration

DB = ["concert_singer"]


@pytest.fixture(scope="module")
def spider(spider_dir):
    return load_dataset(spider_dir)


def oracle(spider, wrong_ids=()):
    """A model double that replies with each question's gold SQL (or a wrong query for `wrong_ids`)."""
    by_text = {q.question: q for q in spider.questions}

    def reply(messages):
        text = messages[-1]["content"].split("Question:", 1)[1].split("\n", 1)[0].strip()
        q = by_text[text]
        sql = "SELECT 1" if q.id in wrong_ids else q.gold_sql
        return f"```sql\n{sql}\n```"

    return ScriptedModel(default=reply, name="oracle")


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_writes_the_output_contract(spider, tmp_path):
    model = oracle(spider, wrong_ids={2})
    summary = evaluate(spider, preset="baseline", model=model, out=tmp_path, db=DB, limit=5)
    records = lines(tmp_path / "results.jsonl")
    assert [r["id"] for r in records] == [0, 1, 2, 3, 4]
    for record in records:
        assert {"id", "db_id", "sql", "correct", "error", "usage", "elapsed_s"} <= set(record)
        assert record["usage"]["llm_calls"] == 1 and record["usage"]["prompt_tokens"] > 0
    assert [r["correct"] for r in records] == [True, True, False, True, True]
    assert records[2]["failure"] == "wrong"
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["n"] == 5 and saved["ex"] == 80.0 == summary["ex"]
    assert set(saved["by_difficulty"]) <= {"easy", "medium", "hard", "extra"}
    assert saved["usage"]["total"]["llm_calls"] == 5 and saved["usage"]["per_question"]["llm_calls"] == 1
    assert {"p50", "p90", "p95"} <= set(saved["latency_s"])
    assert saved["failures"] == {"wrong": 1}
    for name in ("report.md", "accuracy_by_difficulty.png", "tokens_vs_accuracy.png", "latency.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "EX %" in (tmp_path / "report.md").read_text()


def test_interrupted_run_resumes_without_redoing_questions(spider, tmp_path):
    model = oracle(spider)

    def stop_after_two(record, finished, total):
        if finished == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(spider, model=model, out=tmp_path, db=DB, limit=6, progress=stop_after_two)
    assert len(lines(tmp_path / "results.jsonl")) == 2
    with (tmp_path / "results.jsonl").open("a") as handle:
        handle.write('{"id": 2, "db_id": "conc')  # a torn write from a crash
    calls_before = len(model.calls)
    summary = evaluate(spider, model=model, out=tmp_path, db=DB, limit=6)
    assert len(model.calls) - calls_before == 4
    assert summary["n"] == 6 and summary["ex"] == 100.0
    assert [r["id"] for r in lines(tmp_path / "results.jsonl")] == [0, 1, 2, 3, 4, 5]


def test_resuming_with_other_settings_is_refused(spider, tmp_path):
    evaluate(spider, model=oracle(spider), out=tmp_path, db=DB, limit=1)
    with pytest.raises(ConfigError, match="different settings"):
        evaluate(spider, preset="refine", model=oracle(spider), out=tmp_path, db=DB, limit=1)


def test_a_model_per_role_answers_that_role_and_names_the_run(spider, tmp_path):
    wrong = ScriptedModel(default="```sql\nSELECT 1\n```", name="wrong")
    generator = oracle(spider)
    summary = evaluate(spider, model=wrong, models={"generator": generator}, out=tmp_path, db=DB, limit=3)
    assert summary["ex"] == 100.0 and len(generator.calls) == 3 and not wrong.calls
    assert json.loads((tmp_path / "run.json").read_text())["models"] == {"generator": "scripted:oracle"}
    with pytest.raises(ConfigError, match="different settings.*models"):
        evaluate(spider, model=wrong, out=tmp_path, db=DB, limit=3)


def test_workers_run_questions_concurrently_with_the_same_results(spider, tmp_path):
    summary = evaluate(spider, model=oracle(spider), workers=3, out=tmp_path, db=DB, limit=8)
    assert summary["n"] == 8 and summary["ex"] == 100.0
    assert sorted(r["id"] for r in lines(tmp_path / "results.jsonl")) == list(range(8))


def test_predictions_mode_scores_given_sql_and_linked_schemas(spider, tmp_path):
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(p) for p in [
        {"id": 0, "sql": "SELECT count(*) FROM singer", "linked_schema": {"singer": ["Singer_ID"]}},
        {"id": 1, "sql": "SELECT count(*) FROM stadium", "linked_schema": {"stadium": []}},
    ]) + "\n")
    out = tmp_path / "run"
    summary = evaluate(spider, predictions=preds, out=out, ids=["0", "1", "2"])
    records = lines(out / "results.jsonl")
    assert [r["correct"] for r in records] == [True, False, False]
    assert records[2]["error"] == "no prediction for this question"
    assert summary["linking"]["table"]["srr"] == 50.0
    assert summary["linking"]["table"]["n"] == 2


def test_a_run_holding_its_own_predictions_resumes_after_a_move(spider, tmp_path):
    """A predictions file inside the run directory counts by its name: a committed run made in one checkout
    resumes in another; a predictions file elsewhere still has to be the same path."""
    import shutil

    first = tmp_path / "checkout-a" / "run"
    first.mkdir(parents=True)
    preds = first / "preds.jsonl"
    preds.write_text(json.dumps({"id": 0, "sql": "SELECT count(*) FROM singer"}) + "\n")
    evaluate(spider, predictions=preds, out=first, ids=["0"])
    moved = tmp_path / "checkout-b" / "run"
    shutil.copytree(first, moved)
    shutil.rmtree(first)
    summary = evaluate(spider, predictions=moved / "preds.jsonl", out=moved, ids=["0", "1"])
    assert summary["n"] == 2 and [r["id"] for r in lines(moved / "results.jsonl")] == [0, 1]
    other = tmp_path / "elsewhere.jsonl"
    other.write_text((moved / "preds.jsonl").read_text())
    with pytest.raises(ConfigError, match=r"different settings \(predictions\)"):
        evaluate(spider, predictions=other, out=moved, ids=["0"])


def test_filters(spider):
    from groundsql.evaluation import select

    sample = select(spider.questions, sample=20, seed=3)
    assert len(sample) == 20 and sample == select(spider.questions, sample=20, seed=3)
    assert sample != select(spider.questions, sample=20, seed=4)
    assert [q.id for q in select(spider.questions, ids=["5", "7"])] == [5, 7]
    assert {q.db_id for q in select(spider.questions, db=["pets_1"])} == {"pets_1"}
    with pytest.raises(ConfigError, match="no question"):
        run_evaluation(spider, EvalOptions(db=["nowhere"]), None)


def test_candidates_give_ex_at_k_and_pass_at_k(spider, tmp_path, monkeypatch):
    from groundsql.answer import Answer, Candidate
    from groundsql.pipelines import registry

    def two_candidates(ctx, options):
        gold = next(q.gold_sql for q in spider.questions if q.question == ctx.question)
        return Answer(question=ctx.question, sql=gold, result=None, preset="", model="x", trace=ctx.trace,
                      candidates=[Candidate(sql=gold), Candidate(sql="SELECT 1")])

    monkeypatch.setitem(registry.INFO, "two_candidates", registry.PresetInfo("two_candidates", two_candidates, "",
                                                                             NoOptions, None))
    summary = evaluate(spider, preset="two_candidates", model=oracle(spider), samples=2, out=tmp_path, db=DB,
                       limit=3)
    assert summary["k"] == 2 and summary["ex_at_k"] == 50.0 and summary["pass_at_k"] == 100.0


def test_each_recorded_stage_is_scored_into_a_cumulative_ablation(spider, tmp_path, monkeypatch):
    from groundsql.answer import Answer
    from groundsql.pipelines import registry

    def staged(ctx, options):  # a wrong draft, repaired by the second stage; the third stage breaks it again
        gold = next(q.gold_sql for q in spider.questions if q.question == ctx.question)
        return Answer(question=ctx.question, sql=gold, result=None, preset="", model="x", trace=ctx.trace,
                      stages={"draft": "SELECT 1", "repair": gold, "vote": "SELECT nothing FROM singer",
                              "final": gold})

    monkeypatch.setitem(registry.INFO, "staged", registry.PresetInfo("staged", staged, "", NoOptions, None))
    summary = evaluate(spider, preset="staged", model=oracle(spider), out=tmp_path, db=DB, limit=2)
    assert summary["stages"] == {"draft": {"n": 2, "ex": 0.0}, "repair": {"n": 2, "ex": 100.0},
                                 "vote": {"n": 2, "ex": 0.0}, "final": {"n": 2, "ex": 100.0}}
    record = lines(tmp_path / "results.jsonl")[0]
    assert list(record["stages"]) == ["draft", "repair", "vote", "final"]
    assert record["stages"]["draft"] == {"sql": "SELECT 1", "correct": False}


def test_link_stage_scores_the_linked_schema(spider, tmp_path):
    summary = evaluate(spider, model=ScriptedModel(default="{}"), stage="link", linker="full", out=tmp_path, db=DB,
                       limit=4)
    assert summary["ex"] is None
    table = summary["linking"]["table"]
    assert table["srr"] == 100.0 and table["nsr"] == 100.0 and table["nsp"] < 100.0
    assert summary["linking"]["column"]["srr"] == 100.0
    record = lines(tmp_path / "results.jsonl")[0]
    assert record["correct"] is None and set(record["linked_schema"]) >= {"singer"}
    assert (tmp_path / "report.md").exists()


def test_unknown_names_fail_before_any_question(spider, tmp_path):
    with pytest.raises(ConfigError, match="unknown preset"):
        evaluate(spider, preset="nope", model=oracle(spider), out=tmp_path / "a", db=DB, limit=1)
    with pytest.raises(ConfigError, match="unknown linker"):
        evaluate(spider, model=oracle(spider), stage="link", linker="nope", out=tmp_path / "b", db=DB, limit=1)
    assert not (tmp_path / "a").exists()


def test_run_identity_comes_from_the_validated_options(spider, tmp_path):
    model = oracle(spider)
    evaluate(spider, preset="refine", model=model, out=tmp_path, db=DB, limit=1,
             options={"refine_rounds": "2"})  # the default, spelled as text
    config = json.loads((tmp_path / "run.json").read_text())
    settings = {"refine_rounds": 2, "tree_repair": True, "tree_repair_rounds": 3}
    assert config["options"] == {} and {k: config["settings"][k] for k in settings} == settings
    assert config["settings"]["catalog_context"] is True  # every preset takes the renderer's options
    # equal settings, spelled differently: the same run, resumed
    evaluate(spider, preset="refine", model=model, out=tmp_path, db=DB, limit=2)
    assert len(lines(tmp_path / "results.jsonl")) == 2
    with pytest.raises(ConfigError, match=r"different settings \(options\)"):
        evaluate(spider, preset="refine", model=model, out=tmp_path, db=DB, limit=2, options={"refine_rounds": 0})


def test_runs_recorded_before_validation_still_resume(spider, tmp_path):
    model = oracle(spider)
    evaluate(spider, preset="refine", model=model, out=tmp_path, db=DB, limit=1)
    config = json.loads((tmp_path / "run.json").read_text())
    # earlier runs recorded every option given, defaults included
    (tmp_path / "run.json").write_text(json.dumps({**config, "options": {"refine_rounds": 2}}))
    evaluate(spider, preset="refine", model=model, out=tmp_path, db=DB, limit=2)
    assert len(lines(tmp_path / "results.jsonl")) == 2


def test_unknown_options_are_refused_before_the_first_question(spider, tmp_path):
    with pytest.raises(ConfigError, match="unknown option 'validat' for preset 'ssev' \\(did you mean 'validate'"):
        evaluate(spider, preset="ssev", model=oracle(spider), out=tmp_path, db=DB, limit=1, options={"validat": 0})
    assert not (tmp_path / "results.jsonl").exists()
    with pytest.raises(ConfigError, match="unknown option 'tips' for linker 'full'"):
        evaluate(spider, preset="ssev", model=oracle(spider), db=DB, limit=1, stage="link", options={"tips": 0})


def test_evaluation_gives_presets_the_question_s_database_and_gold_sql(spider, monkeypatch):
    from groundsql.answer import Answer
    from groundsql.pipelines import registry

    seen = []

    def spy(ctx, options):
        seen.append((ctx.db_id, ctx.gold_sql, ctx.column_descriptions))
        return Answer(question=ctx.question, sql=ctx.gold_sql, result=None, preset="", model="x", trace=ctx.trace)

    monkeypatch.setitem(registry.INFO, "spy", registry.PresetInfo("spy", spy, "", NoOptions, None))
    evaluate(spider, preset="spy", model=oracle(spider), db=DB, limit=1)
    gold = next(q.gold_sql for q in spider.questions if q.db_id == DB[0])
    assert seen == [("concert_singer", gold, None)]


@pytest.mark.unit
def test_agentnlq_paths_and_recap_rounds_are_summarized():
    from groundsql.evaluation import summarize
    from groundsql.evaluation.runner import _recap_counts

    done = {"agent": "done", "steps": 3, "validated": True, "plan_versions": 2, "plan_critique_rounds": 2,
            "refine_rounds": 1, "relinks": 0, "verdicts": [False, True], "sql_revisions": [True, False, False],
            "sql": "SELECT 1"}
    counts = _recap_counts(done)
    assert counts == {"steps": 3, "validated": True, "plan_versions": 2, "plan_critique_rounds": 2,
                      "refine_rounds": 1, "relinks": 0, "validator_rejections": 1, "sql_revisions": 3,
                      "sql_revisions_adopted": 1}
    unvalidated = _recap_counts({"steps": 1, "validated": False, "verdicts": []})
    records = [{"id": 1, "correct": True, "agentnlq_path": "fast"},
               {"id": 2, "correct": False, "agentnlq_path": "escalated"},
               {"id": 3, "correct": True, "agentnlq_path": "fast"},
               {"id": 4, "correct": True, "recap": counts}, {"id": 5, "correct": False, "recap": unvalidated},
               {"id": 6, "correct": False, "recap": {"steps": 5, "validated": False}}]  # written before the SQL count
    summary = summarize(records)
    assert summary["agentnlq_paths"] == {"fast": {"n": 2, "correct": 2}, "escalated": {"n": 1, "correct": 0},
                                         "unsolved": {"n": 0, "correct": 0}}
    assert summary["recap"] == {"n": 3, "validated": 1, "steps": 3.0, "plan_critique_rounds": 0.67,
                                "plan_versions": 0.67, "refine_rounds": 0.33, "relinks": 0.0,
                                "validator_rejections": 0.33, "sql_revisions": 1.5, "sql_revisions_adopted": 0.5}
