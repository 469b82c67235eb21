"""Conversations: follow-ups rewritten to standalone questions, answered with earlier SQL, stored and resumable."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import connect
from groundsql.conversations import ConversationStore, Turn, ask_in_conversation, standalone_question
from groundsql.models import ScriptedModel
from groundsql.runs import RunStore
from groundsql.server.testing import demo_model

REGION_SQL = ("SELECT r.region_name, COUNT(*) AS customers FROM customers AS c JOIN regions AS r "
              "ON r.region_id = c.region_id GROUP BY r.region_name")


@pytest.mark.integration
def test_follow_up_is_rewritten_answered_with_context_and_stored(demo_db: Path, tmp_path: Path) -> None:
    store = ConversationStore(RunStore(tmp_path / "runs.sqlite"))
    db = connect(str(demo_db))
    model = demo_model()
    conversation = store.create("demo")
    first, turn1 = ask_in_conversation(store, conversation.id, "How many customers per region?", db, model=model,
                                       preset="refine")
    assert turn1.standalone == "How many customers per region?" and len(model.calls) == 1  # no rewrite on turn 1
    assert first.result.row_count == 6 and turn1.preview and turn1.run_id is not None

    second, turn2 = ask_in_conversation(store, conversation.id, "and by country?", db, model=model, preset="refine")
    rewrite_prompt = model.calls[1]["messages"][-1]["content"]
    assert "How many customers per region?" in rewrite_prompt and "SQL: SELECT r.region_name" in rewrite_prompt
    assert turn2.question == "and by country?"
    assert turn2.standalone == "How many customers are there in each country?"
    generation_prompt = model.calls[2]["messages"][-1]["content"]
    assert "Earlier question: How many customers per region?" in generation_prompt  # earlier SQL as context
    assert second.question == turn2.standalone and "r.country" in second.sql
    assert [e.step for e in second.trace.events][0] == "rewrite_followup"

    # resumable: a fresh store on the same file sees both turns, and the runs were logged
    again = ConversationStore(RunStore(tmp_path / "runs.sqlite")).get(conversation.id)
    assert [t.question for t in again.turns] == ["How many customers per region?", "and by country?"]
    assert again.title == "How many customers per region?"
    assert store.runs.get(turn2.run_id)["question"] == turn2.standalone


@pytest.mark.unit
def test_rewrite_falls_back_to_the_question_when_the_model_fails() -> None:
    turns = [Turn(position=1, question="q", standalone="How many orders?", sql="SELECT COUNT(*) FROM orders")]
    assert standalone_question(turns, "only 2024", ScriptedModel([])) == "only 2024"
    assert standalone_question([], "  first  ", ScriptedModel([])) == "first"
    assert standalone_question(turns, "only 2024", ScriptedModel(['Standalone question: "How many orders in 2024?"'])) \
        == "How many orders in 2024?"


@pytest.mark.unit
def test_unknown_conversation_is_a_clear_error(tmp_path: Path) -> None:
    from groundsql.errors import ConfigError

    with pytest.raises(ConfigError, match="no conversation 'nope'"):
        ConversationStore(RunStore(tmp_path / "runs.sqlite")).get("nope")


@pytest.mark.e2e
@pytest.mark.slow
def test_real_model_rewrites_a_follow_up(music_db: Path, tmp_path: Path, local_model) -> None:
    """The 0.5B model turns "and how many of them are from France?" into a question about singers."""
    store = ConversationStore(RunStore(tmp_path / "runs.sqlite"))
    db = connect(str(music_db))
    conversation = store.create("music")
    ask_in_conversation(store, conversation.id, "How many singers are there?", db, model=local_model,
                        preset="baseline")
    answer, turn = ask_in_conversation(store, conversation.id, "and how many of them are from France?", db,
                                       model=local_model, preset="baseline")
    assert turn.standalone and "singer" in turn.standalone.lower()
    assert answer.sql.lower().startswith(("select", "with"))
    assert answer.trace.events[0].step == "rewrite_followup"
