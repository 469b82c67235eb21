"""AgentNLQ's orchestrator on a real SQLite database with scripted models: fast path, escalation, the attempt
budget, compression, a refused statement as feedback, malformed JSON, the ablations, and the ledgers' checks."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.context import Context
from groundsql.db import Database
from groundsql.generation.agents.feedback import expectation_findings, judge_sql
from groundsql.generation.agents.structured import validated
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

QUESTION = "How many singers are from France?"
GOOD = "SELECT count(*) FROM singer WHERE country = 'France'"
BAD_COLUMN = "SELECT count(*) FROM singer WHERE nation = 'France'"
BAD_TABLE = "SELECT count(*) FROM performer WHERE country = 'France'"
LEDGER = json.dumps({"sub_questions": ["count singers whose country is France"], "tables": ["singer"],
                     "columns": ["singer.country"], "filters": ["country = 'France'"], "measures": ["count(*)"],
                     "expected_rows": "one"})


def emit(sql: str) -> str:
    return json.dumps({"action": "emit", "sql": sql})


def generator_reply(sql: str) -> str:
    return f"Scratchpad: singer holds country.\n```sql\n{sql}\n```"


def run(db: Path, orchestrator: list, generator: list | None = None, **options):
    options.setdefault("draft", False)  # the paper's path unless a test asks for the plain draft first
    orch = ScriptedModel(orchestrator, name="orchestrator")
    gen = ScriptedModel(generator or [], name="generator")
    answer = ask(QUESTION, str(db), model=orch, models={"orchestrator": orch, "generator": gen},
                 preset="agentnlq", options=options)
    return answer, orch, gen


def stages(answer, stage: str) -> list[dict]:
    return [n for n in answer.trace.notes("agentnlq") if n["stage"] == stage]


def test_fast_path_answers_in_one_round(music_db):
    answer, orch, gen = run(music_db, [LEDGER, emit(GOOD)])
    assert answer.result.rows == [(2,)] and answer.confidence == pytest.approx(0.9)
    assert len(orch.calls) == 2 and not gen.calls
    assert stages(answer, "outcome")[0]["path"] == "fast"
    ledger = stages(answer, "task_ledger")[0]
    assert ledger["ledger"]["tables"] == ["singer"] and "Expected rows: one" in ledger["text"]
    assert stages(answer, "progress_ledger")[0]["ledger"]["attempts"][0]["outcome"] == "ok"
    assert stages(answer, "schema_context")[0]["mode"] == "full"
    json.dumps(answer.to_dict(include_trace=True))  # the trace, ledgers included, is plain JSON
    # the fast loop sees the fact sheet and only the tables it names; the question comes last
    prompt = orch.calls[1]["messages"]
    assert "Fact sheet" in prompt[1]["content"] and "CREATE TABLE song" not in prompt[1]["content"]
    assert prompt[-1]["content"].rstrip().endswith(QUESTION)


def test_two_failures_escalate_to_the_generator_with_full_metadata(music_db):
    answer, orch, gen = run(music_db, [LEDGER, emit(BAD_COLUMN), emit(BAD_TABLE)], [generator_reply(GOOD)],
                            )
    assert answer.result.rows == [(2,)] and answer.confidence == pytest.approx(0.75)
    assert [n["after"] for n in stages(answer, "escalate")] == [2]
    rounds = stages(answer, "round")
    assert [(r["loop"], r["action"], r["outcome"]) for r in rounds] == [
        ("fast", "emit", "no_such_column"), ("fast", "emit", "no_such_table"), ("slow", "escalate", "ok")]
    assert stages(answer, "outcome")[0]["path"] == "escalated"
    prompt = gen.calls[0]["messages"][-1]["content"]
    assert "CREATE TABLE song" in prompt  # the full schema, not the fact sheet's subset
    assert "Fact sheet" in prompt and "Tables: singer" in prompt
    assert BAD_COLUMN in prompt and BAD_TABLE in prompt and "no such table" in prompt.lower()
    assert prompt.rstrip().endswith(QUESTION)
    assert [c.role for c in answer.trace.events if getattr(c, "kind", "") == "model"] == \
        ["orchestrator", "orchestrator", "orchestrator", "generator"]


def test_exhausted_attempts_return_the_best_effort_with_low_confidence(music_db):
    answer, orch, gen = run(music_db, [LEDGER, emit(BAD_COLUMN), emit(BAD_TABLE), emit("SELECT name FROM singer "
                            "WHERE country = 'Mars'")], [generator_reply(BAD_TABLE)])
    rounds = stages(answer, "round")
    assert len(rounds) == 4 and [r["loop"] for r in rounds] == ["fast", "fast", "slow", "fast"]
    assert stages(answer, "outcome")[0]["path"] == "unsolved"
    assert answer.confidence < 0.5 and any("low confidence" in n for n in answer.notes)
    assert answer.sql.endswith("'Mars'") and answer.result.rows == []  # ran (empty) beats an error
    assert len(answer.candidates) == 4


def test_exact_slips_are_repaired_in_the_loop_without_a_model_call(music_db):
    answer, orch, _ = run(music_db, [LEDGER, emit("SELECT count(*) FROM singers WHERE country = 'France'")])
    rounds = stages(answer, "round")
    assert len(rounds) == 1 and rounds[0]["outcome"] == "ok" and "Repaired without a model call" in \
        rounds[0]["feedback"]
    assert answer.result.rows == [(2,)] and len(orch.calls) == 2
    assert any("repaired without a model call" in n for n in answer.notes)


def test_a_reproduced_empty_result_is_accepted_as_confirmed(music_db):
    empty = "SELECT name FROM singer WHERE age > 90"
    answer, orch, gen = run(music_db, [LEDGER, emit(empty), emit(empty.lower())])
    rounds = stages(answer, "round")
    assert [r["outcome"] for r in rounds] == ["empty_result", "confirmed"] and not gen.calls
    assert answer.result.rows == [] and answer.confidence == pytest.approx(0.6)
    assert stages(answer, "outcome")[0]["path"] == "fast" and not any("low confidence" in n for n in answer.notes)
    strict, *_ = run(music_db, [LEDGER, emit(empty), emit(empty)], [generator_reply(GOOD)], accept_repeated=False)
    assert [r["outcome"] for r in stages(strict, "round")] == ["empty_result", "empty_result", "ok"]


def test_compression_is_one_structured_message_after_each_failure(music_db):
    answer, orch, _ = run(music_db, [LEDGER, emit(BAD_COLUMN), emit(GOOD)])
    compressions = stages(answer, "compress")
    assert len(compressions) == 1
    text = compressions[0]["text"]
    assert QUESTION in text and BAD_COLUMN in text and "no_such_column" in text
    assert "no such column" in text.lower() and "Do not repeat" in text
    second = orch.calls[2]["messages"]
    history = [m for m in second[2:-1]]
    assert len(history) == 1 and history[0]["content"] == text
    assert second[-1]["content"].rstrip().endswith(QUESTION)


def test_without_compression_raw_turns_are_kept_and_pruned_near_the_budget(music_db):
    replies = [LEDGER, emit(BAD_COLUMN), emit(BAD_TABLE), emit(BAD_COLUMN + " "), emit(GOOD)]
    answer, orch, _ = run(music_db, replies, escalation=False, compression=False, history_budget=100)
    assert not stages(answer, "compress")
    last = orch.calls[-1]["messages"]
    turns = [m for m in last[2:-1] if m["role"] == "assistant"]
    assert len(turns) == 2  # first and latest of three failed attempts
    assert stages(answer, "prune") and answer.result.rows == [(2,)]


def test_a_refused_statement_is_feedback_not_a_crash(music_db):
    answer, orch, _ = run(music_db, [LEDGER, emit("DELETE FROM singer"), emit(GOOD)])
    rounds = stages(answer, "round")
    assert rounds[0]["outcome"] == "refused" and "refused" in rounds[0]["feedback"].lower()
    assert answer.result.rows == [(2,)]
    assert "refused" in orch.calls[2]["messages"][2]["content"].lower()
    assert sqlite3.connect(music_db).execute("SELECT count(*) FROM singer").fetchone() == (4,)


def test_malformed_json_is_reasked_then_falls_back(music_db):
    # ledger: prose, repair prose, re-ask prose, repair prose → an empty sheet; decision: prose with SQL → emit
    answer, orch, gen = run(music_db, ["I think singer.", "no", "still no", "nope",
                                       f"Let me write it: ```sql\n{GOOD}\n```", "bad", "bad", "bad"],
                            json_schema=True)
    assert stages(answer, "task_ledger")[0]["ledger"]["written_by_model"] is False
    assert stages(answer, "malformed") and stages(answer, "decision-fallback")[0]["action"] == "emit"
    assert answer.result.rows == [(2,)] and not gen.calls


def test_unparsable_decision_without_sql_delegates_to_the_generator(music_db):
    answer, orch, gen = run(music_db, [LEDGER, "{not json", "{still not"], [generator_reply(GOOD)],
                            json_schema=False)
    assert [r["action"] for r in stages(answer, "round")] == ["delegate"]
    assert answer.result.rows == [(2,)] and len(gen.calls) == 1
    assert orch.calls[2]["json_schema"] is None  # lenient parsing, then one re-ask


def test_the_executor_action_probes_the_data_without_spending_an_attempt(music_db):
    probe = json.dumps({"action": "execute", "sql": "SELECT DISTINCT country FROM singer"})
    answer, orch, _ = run(music_db, [LEDGER, probe, emit(GOOD)])
    assert stages(answer, "probe")[0]["outcome"] == "ok" and len(stages(answer, "round")) == 1
    assert "Netherlands" in orch.calls[2]["messages"][2]["content"]


def test_ablations_no_ledger_and_no_escalation(music_db):
    answer, orch, gen = run(music_db, [emit(BAD_COLUMN), emit(BAD_TABLE), emit(GOOD)], task_ledger=False,
                            escalation=False)
    assert not stages(answer, "task_ledger") and not stages(answer, "escalate") and not gen.calls
    assert "CREATE TABLE song" in orch.calls[0]["messages"][1]["content"]  # the schema instead of a sheet
    assert answer.result.rows == [(2,)] and answer.confidence == pytest.approx(0.9)


def test_the_budget_check_retrieves_columns_when_the_schema_does_not_fit(music_db):
    answer, *_ = run(music_db, [LEDGER, emit(GOOD)], schema_budget=10, vector_backend="lexical")
    context = stages(answer, "schema_context")[0]
    assert context["mode"] == "retrieved" and context["full_tokens"] > 10 and "singer" in context["tables"]
    assert answer.linked_schema is not None


def test_the_ledger_is_checked_against_the_schema_and_the_join_graph(music_db):
    sheet = json.dumps({"tables": ["song", "singers", "singer"], "columns": ["song.title", "singer.nation",
                                                                             "sales"], "expected_rows": "many"})
    answer, *_ = run(music_db, [sheet, emit("SELECT title FROM song")])
    ledger = stages(answer, "task_ledger")[0]["ledger"]
    assert ledger["unknown_tables"] == ["singers"]
    assert {c["name"]: c["exists"] for c in ledger["columns"]} == {"song.title": True, "singer.nation": False,
                                                                  "sales": True}
    assert ledger["joins"][0]["connected"] and "song.singer_id = singer.singer_id" in ledger["joins"][0]["on"]


def test_verbose_logging_shows_the_ledger_and_each_round(music_db, caplog):
    with caplog.at_level(logging.INFO, logger="groundsql"):
        run(music_db, [LEDGER, emit(BAD_COLUMN), emit(GOOD)])
    text = caplog.text
    assert "task ledger" in text and "Tables: singer" in text and "schema context: full" in text
    assert "attempt 1 · fast · emit → no_such_column" in text and "attempt 2 · fast · emit → ok" in text
    assert "history compressed" in text and "done: fast" in text


def test_result_heuristics(music_db):
    ctx = Context(question="List the song titles and their singers", db=Database(str(music_db)),
                  models={"default": ScriptedModel()})
    dup = judge_sql(ctx, "SELECT s.country FROM singer s JOIN song t ON t.singer_id = s.singer_id",
                    source="t", role="generator")
    assert dup.outcome == "suspicious" and "duplicates" in {f.check for f in dup.findings}
    nulls = judge_sql(ctx, "SELECT s.name, t.title FROM singer s LEFT JOIN song t ON t.singer_id = s.singer_id "
                           "AND t.sales > 100", source="t", role="generator")
    assert "null_columns" in {f.check for f in nulls.findings}
    assert judge_sql(ctx, "SELEC name FROM singer", source="t", role="generator").outcome == "syntax"
    one = judge_sql(ctx, "SELECT name FROM singer", source="t", role="generator", expected_rows="one")
    assert [f.check for f in one.findings] == ["row_count"]
    assert expectation_findings(one.candidate.result, "many") == []


def test_decision_validation():
    from groundsql.generation.agents.orchestrator import Decision

    assert validated('{"action": "emit", "sql": "SELECT 1"}', Decision)[0].sql == "SELECT 1"
    assert validated('{"action": "jump"}', Decision)[0] is None
    assert validated("no json here", Decision)[1] == "no JSON object found"


def test_a_failing_model_never_crashes_the_run_but_a_missing_one_stops_it(music_db):
    from groundsql.errors import ModelNotInstalled

    answer, orch, gen = run(music_db, [])  # every call fails: no reply left
    assert answer.sql == "" and answer.confidence == 0.0 and len(stages(answer, "round")) == 4

    class Missing(ScriptedModel):
        def _generate(self, *args, **kwargs):
            raise ModelNotInstalled("the weights are not installed")

    with pytest.raises(ModelNotInstalled):
        ask(QUESTION, str(music_db), model=Missing(), preset="agentnlq")


def test_the_evidence_reaches_the_ledger_and_the_generator_as_business_rules(music_db):
    orch = ScriptedModel([LEDGER, emit(BAD_COLUMN), emit(BAD_TABLE)], name="orchestrator")
    gen = ScriptedModel([generator_reply(GOOD)], name="generator")
    rule = "French singers are those with country = 'France'."
    ask(QUESTION, str(music_db), model=orch, models={"orchestrator": orch, "generator": gen}, preset="agentnlq",
        evidence=rule, options={"draft": False})
    assert rule in orch.calls[0]["messages"][-1]["content"]
    assert rule in gen.calls[0]["messages"][-1]["content"]


def test_the_plain_draft_comes_first_by_default(music_db):
    orch = ScriptedModel([], name="orchestrator")
    gen = ScriptedModel([f"```sql\n{GOOD}\n```"], name="generator")
    answer = ask(QUESTION, str(music_db), model=orch, models={"orchestrator": orch, "generator": gen},
                 preset="agentnlq")
    assert [c.step for c in answer.trace.model_calls()] == ["agentnlq:draft"] and not orch.calls
    assert answer.stages == {"draft": GOOD, "final": GOOD}


def test_a_draft_that_settles_is_the_answer_without_ledger_or_loops(music_db):
    """draft=true: one plain query first; it runs, returns rows and no check objects, so it is the answer."""
    answer, orch, gen = run(music_db, [], [f"```sql\n{GOOD}\n```"], draft=True)
    # the calibrated confidence of a one-call answer with one string literal and no finding
    from groundsql.selection.calibration import confidence, signals_for

    expected = confidence(signals_for(answer.candidates[0], question=QUESTION, dialect="sqlite", trace=answer.trace))
    assert answer.result.rows == [(2,)] and answer.confidence == pytest.approx(expected) and expected > 0.5
    assert not orch.calls and len(gen.calls) == 1 and answer.trace.model_calls()[0].step == "agentnlq:draft"
    assert answer.trace.notes("draft")[0]["kept"] and not stages(answer, "task_ledger")
    assert answer.stages == {"draft": GOOD, "final": GOOD}


def test_a_flagged_draft_goes_through_the_ledger_and_loops(music_db):
    """A draft that fails (or returns no rows, or a check objects) is not kept: the paper's path answers."""
    answer, orch, gen = run(music_db, [LEDGER, emit(GOOD)], [f"```sql\n{BAD_COLUMN}\n```"], draft=True)
    assert answer.result.rows == [(2,)] and not answer.trace.notes("draft")[0]["kept"]
    assert len(orch.calls) == 2 and stages(answer, "outcome")[0]["path"] == "fast"
    assert answer.stages == {"draft": BAD_COLUMN, "first_attempt": GOOD, "final": GOOD}
    listed = "SELECT name FROM singer WHERE country = 'France'"  # a list for 'how many': the count check objects
    answer, orch, _ = run(music_db, [LEDGER, emit(GOOD)], [f"```sql\n{listed}\n```"], draft=True)
    assert not answer.trace.notes("draft")[0]["kept"] and answer.result.rows == [(2,)] and len(orch.calls) == 2
