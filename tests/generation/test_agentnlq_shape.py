"""AgentNLQ's fact sheet against the question's words (count or list, LIMIT or not), the shape checks in its
execution feedback, and metadata generation as a preset option; scripted models on a real SQLite database."""

from __future__ import annotations

import json

import pytest

from groundsql.api import ask
from groundsql.generation.agents.task_ledger import FactSheet, TaskLedger, shape_facts, with_shape_facts
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

LIST_QUESTION = "Which singers are from France?"
COUNT_QUESTION = "How many singers are from France?"
NAMES = "SELECT name FROM singer WHERE country = 'France'"
COUNT = "SELECT count(*) FROM singer WHERE country = 'France'"
#: The misleading sheet the 1.5B wrote for list questions: a count, one row.
COUNTING_LEDGER = json.dumps({"sub_questions": ["count singers from France"], "tables": ["singer"],
                              "columns": ["singer.name", "singer.country"], "filters": ["country = 'France'"],
                              "measures": ["COUNT(*)"], "expected_rows": "one"})
LISTING_LEDGER = json.dumps({"tables": ["singer"], "columns": ["singer.name"], "group_by": ["singer.country"],
                             "expected_rows": "many"})


def emit(sql: str) -> str:
    return json.dumps({"action": "emit", "sql": sql})


def run(db, question: str, orchestrator: list, generator: list | None = None, **options):
    options.setdefault("draft", False)  # the paper's path unless a test asks for the plain draft first
    orch = ScriptedModel(orchestrator, name="orchestrator")
    gen = ScriptedModel(generator or [], name="generator")
    answer = ask(question, str(db), model=orch, models={"orchestrator": orch, "generator": gen},
                 preset="agentnlq", options=options)
    return answer, orch, gen


def ledger_note(answer) -> dict:
    return next(n for n in answer.trace.notes("agentnlq") if n["stage"] == "task_ledger")


@pytest.mark.unit
@pytest.mark.parametrize(("question", "first", "expected"), [
    ("How many singers are from France?", "One number: a COUNT", "one"),
    ("What is the average age of singers?", "One number: one computed value", "one"),
    ("Which singers are from France?", "A list of rows", "unknown"),
    ("List the names of all singers.", "A list of rows", "unknown"),
    ("How many singers are there in each country?", "One row per group", None),
])
def test_shape_facts_read_count_or_list_from_the_words(question, first, expected):
    facts, rows = shape_facts(question)
    assert facts[0].startswith(first) and rows == expected


@pytest.mark.unit
def test_shape_facts_say_when_a_limit_belongs():
    assert "LIMIT 3" in " ".join(shape_facts("Which are the 3 oldest singers?")[0])
    assert "no LIMIT" in " ".join(shape_facts("Which singers are from France?")[0])
    assert "superlative" in " ".join(shape_facts("Which singer is the oldest?")[0])


@pytest.mark.unit
def test_a_count_measure_on_a_list_question_is_dropped():
    sheet = FactSheet.model_validate_json(COUNTING_LEDGER)
    ledger = TaskLedger(sheet=sheet, tables=("singer",), unknown_tables=(), columns=(), joins=())
    fixed = with_shape_facts(ledger, LIST_QUESTION)
    assert fixed.sheet.measures == [] and fixed.sheet.expected_rows == "unknown"
    assert any("COUNT(*)" in c for c in fixed.corrections)
    kept = with_shape_facts(ledger, "Which singers are from France, with the number of their songs?")
    assert kept.sheet.measures == ["COUNT(*)"]  # the question asks for a number beside each item


def test_the_fact_sheet_no_longer_tells_a_list_question_to_count(music_db):
    answer, orch, _ = run(music_db, LIST_QUESTION, [COUNTING_LEDGER, emit(NAMES)])
    text = ledger_note(answer)["text"]
    assert text.startswith("Answer shape (from the question's words): A list of rows")
    assert "Measures" not in text and "Expected rows: one" not in text
    assert "A list of rows" in orch.calls[1]["messages"][1]["content"]  # the orchestrator sees the shape first
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)] and answer.confidence == pytest.approx(0.9)


def test_ledger_shape_false_keeps_the_models_sheet(music_db):
    answer, orch, _ = run(music_db, LIST_QUESTION, [COUNTING_LEDGER, emit(NAMES), emit(NAMES)],
                          ledger_shape=False, shape_checks=False)
    text = ledger_note(answer)["text"]
    assert "Answer shape" not in text and "Measures: COUNT(*)" in text and "Expected rows: one" in text


def test_a_count_question_expects_one_row_and_drops_the_grouping(music_db):
    answer, orch, _ = run(music_db, COUNT_QUESTION, [LISTING_LEDGER, emit(COUNT)])
    note = ledger_note(answer)
    assert note["ledger"]["sheet"]["expected_rows"] == "one" and note["ledger"]["sheet"]["group_by"] == []
    assert "One number: a COUNT" in note["text"] and answer.result.rows == [(2,)]


def test_a_list_for_how_many_is_feedback_from_the_shape_check(music_db):
    answer, orch, _ = run(music_db, COUNT_QUESTION, [LISTING_LEDGER, emit(NAMES), emit(COUNT)],
                          ledger_shape=False)
    rounds = [n for n in answer.trace.notes("agentnlq") if n["stage"] == "round"]
    assert rounds[0]["outcome"] == "suspicious" and "how many" in rounds[0]["feedback"].lower()
    assert answer.result.rows == [(2,)]


def test_enrich_describes_the_schema_before_the_context_is_built(music_db):
    described = [json.dumps({"table": "People who sing", "columns": {"country": "Home country of the singer"}}),
                 json.dumps({"table": "Recorded songs", "columns": {"sales": "Copies sold, in millions"}})]
    answer, orch, gen = run(music_db, COUNT_QUESTION, [LISTING_LEDGER, emit(COUNT)], described, enrich=True)
    steps = [e.step for e in answer.trace.events if e.kind == "model"]
    assert steps[:2] == ["agentnlq:enrich", "agentnlq:enrich"] and len(gen.calls) == 2
    assert next(n for n in answer.trace.notes("agentnlq") if n["stage"] == "enrich")["written"] >= 2
    ledger_prompt = orch.calls[0]["messages"][-1]["content"]
    assert "Home country of the singer" in ledger_prompt


def test_enrich_is_off_by_default(music_db):
    answer, orch, gen = run(music_db, COUNT_QUESTION, [LISTING_LEDGER, emit(COUNT)])
    assert "agentnlq:enrich" not in [e.step for e in answer.trace.events if e.kind == "model"] and not gen.calls
    assert not [n for n in answer.trace.notes("agentnlq") if n["stage"] == "enrich"]


@pytest.mark.parametrize(("shape_checks", "outcome"), [(True, "suspicious"), (False, "ok")])
def test_shape_checks_switch_the_unasked_limit_feedback(music_db, shape_checks, outcome):
    limited = NAMES + " LIMIT 1"
    answer, orch, _ = run(music_db, LIST_QUESTION, [COUNTING_LEDGER, emit(limited), emit(NAMES)],
                          shape_checks=shape_checks)  # the corrected sheet expects no row count
    rounds = [n for n in answer.trace.notes("agentnlq") if n["stage"] == "round"]
    assert rounds[0]["outcome"] == outcome
    if shape_checks:
        assert "drop the LIMIT" in rounds[0]["feedback"] and sorted(answer.result.rows) == [("Ann",), ("Joe",)]


def test_agentnlq_options_are_typed(music_db):
    from groundsql.options import OptionsError

    with pytest.raises(OptionsError, match="enrich"):
        run(music_db, LIST_QUESTION, [], enrich="sometimes")
    with pytest.raises(OptionsError, match="ledger_shap"):
        run(music_db, LIST_QUESTION, [], ledger_shapes=False)
