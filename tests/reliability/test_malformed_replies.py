"""Every parser of a model's reply, fed the replies models really send when they go wrong: fenced blocks, SQL
where text was asked, empty, cut off, prose around JSON, other languages. None may raise; each returns what it
promises or its 'nothing usable' value, so the caller takes its safe path."""

from __future__ import annotations

import pytest
import sqlglot

from groundsql.conversations import Turn, parse_rewrite, standalone_question
from groundsql.generation.actions import parse_action
from groundsql.generation.exploration import _parse as parse_exploration
from groundsql.generation.paths import parse_paths
from groundsql.generation.recap.sql_critique import parse_critique
from groundsql.models import ScriptedModel
from groundsql.models.base import parse_json
from groundsql.selection.judge import parse_choice
from groundsql.sql.extract import extract_sql
from groundsql.trace import Trace

pytestmark = pytest.mark.unit

MALFORMED: dict[str, str] = {
    "fenced sql": "```sql\nSELECT COUNT(*) FROM orders WHERE order_date >= '2024-01-01'\n```",
    "fenced sql, never closed": "```sql\nSELECT COUNT(*) FROM orders WHERE",
    "fenced text": "```\nHow many orders were placed in 2024?\n```",
    "a lone fence": "```",
    "nested fences": "````\n```sql\nSELECT 1\n```\n````",
    "bare sql": "SELECT COUNT(*) FROM orders WHERE strftime('%Y', order_date) = '2024'",
    "sql cut off": "SELECT c.name, COUNT(o.order_id) FROM customers c JOIN orders o ON o.customer_id = c.",
    "writing sql": "DELETE FROM orders; DROP TABLE customers;",
    "empty": "",
    "blank": "   \n\t  \n",
    "json cut off": '{"tables": ["orders", "custo',
    "prose around json": 'Sure! Here is the JSON you asked for:\n{"choice": 2, "reason": "it filters"}\nHope it helps.',
    "json of the wrong shape": '["orders", "customers"]',
    "json without the field": '{"answer": 42}',
    "spanish": "¿Cuántos pedidos se hicieron en 2024?",
    "chinese": "2024年有多少订单？",
    "russian": "Сколько заказов было в 2024 году?",
    "thinking, never closed": "<think>\nThe user wants the orders of 2024, so I should",
    "a refusal": "I'm sorry, but I can't help with that request.",
    "a heading only": "# Answer",
    "a runaway paragraph": "the orders " * 300,
    "control characters": "SELECT\x00 1\x07;\x1b[0m",
    "only punctuation": "?!.;:",
}


def _parses(sql: str) -> bool:
    try:
        return len([p for p in sqlglot.parse(sql, read="sqlite") if p is not None]) == 1
    except Exception:  # noqa: BLE001 - any parser failure means 'does not parse'
        return False


# -- the follow-up rewrite ------------------------------------------------------------------------------

HISTORY = [Turn(position=1, question="orders?", standalone="How many orders are there?",
                sql="SELECT COUNT(*) FROM orders")]


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_rewrite_reply_that_does_not_fit_is_never_the_question(name: str) -> None:
    reply = MALFORMED[name]
    question, problem = parse_rewrite(reply)
    assert "```" not in question and not _parses_as_query(question)
    assert len(question) <= 400
    if problem is not None:
        assert question == ""
    trace = Trace()
    asked = standalone_question(HISTORY, "only 2024", ScriptedModel([reply]), trace=trace)
    assert "```" not in asked and not _parses_as_query(asked)
    if asked == "only 2024" and reply.strip():
        assert trace.notes("rewrite_followup.fallback"), "a fallback says so on the trace"


def _parses_as_query(text: str) -> bool:
    return text.upper().startswith(("SELECT", "WITH", "DELETE", "DROP")) and _parses(text.rstrip(";"))


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT COUNT(*) FROM orders WHERE order_date >= '2024-01-01'\n```",
    "```\nHow many orders were placed in 2024?\n```",
    "How many orders in 2024?\n```sql\nSELECT COUNT(*) FROM orders\n```",
    "```sql",
])
def test_a_fenced_rewrite_reply_never_becomes_the_question(reply: str) -> None:
    trace = Trace()
    assert standalone_question(HISTORY, "only 2024", ScriptedModel([reply]), trace=trace) == "only 2024"
    [note] = trace.notes("rewrite_followup.fallback")
    assert note["reason"] == "a fenced block, not a question" and note["question"] == "only 2024"


@pytest.mark.parametrize(("reply", "expected"), [
    ("How many orders were placed in 2024?", "How many orders were placed in 2024?"),
    ('Standalone question: "How many orders in 2024?"', "How many orders in 2024?"),
    ("Sure, here is the rewritten question:\n\nHow many orders in 2024?", "How many orders in 2024?"),
    ("**How many orders in 2024?**", "How many orders in 2024?"),
    ("“How many orders in 2024?”", "How many orders in 2024?"),
    ("<think>They want 2024.</think>\nHow many orders in 2024?", "How many orders in 2024?"),
    ('{"question": "How many orders in 2024?"}', "How many orders in 2024?"),
    ('Here it is: {"standalone_question": "How many orders in 2024?"}', "How many orders in 2024?"),
])
def test_a_plain_question_is_taken_from_the_usual_wrappings(reply: str, expected: str) -> None:
    assert parse_rewrite(reply) == (expected, None)


@pytest.mark.parametrize(("reply", "reason"), [
    ("SELECT COUNT(*) FROM orders", "SQL where a question was asked"),
    ("", "empty reply"),
    ('{"answer": 42}', "JSON without a question"),
    ("I'm sorry, I cannot do that.", "a refusal, not a question"),
    ("<think>The user wants", "the reply was cut at its token limit"),
])
def test_each_refusal_names_its_reason(reply: str, reason: str) -> None:
    question, problem = parse_rewrite(reply)
    assert question == "" and problem.startswith(reason)


def test_a_reply_cut_at_the_token_limit_or_in_another_script_falls_back() -> None:
    assert parse_rewrite("How many orders were placed in", truncated=True)[0] == ""
    trace = Trace()
    asked = standalone_question(HISTORY, "only 2024", ScriptedModel(["2024年有多少订单？"]), trace=trace)
    assert asked == "only 2024"
    assert trace.notes("rewrite_followup.fallback")[0]["reason"] == "the reply is in another language than the question"
    # a question asked in another language may be rewritten in it
    assert standalone_question(HISTORY, "只看2024年", ScriptedModel(["2024年有多少订单？"])) == "2024年有多少订单？"


# -- SQL extraction, JSON decisions, choices, plans, critiques, actions ------------------------------------


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_extract_sql_returns_text_without_fences(name: str) -> None:
    sql = extract_sql(MALFORMED[name])
    assert isinstance(sql, str) and "```" not in sql
    if name in {"empty", "blank", "spanish", "chinese", "russian", "a refusal", "a heading only",
                "only punctuation", "json cut off", "prose around json", "json of the wrong shape"}:
        assert sql == ""
    if name in {"fenced sql", "bare sql"}:
        assert _parses(sql)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_parse_json_returns_a_value_or_a_problem(name: str) -> None:
    value, problem = parse_json(MALFORMED[name], {"type": "object"})
    assert (value is None) != (problem is None)
    if name == "prose around json":
        assert value == {"choice": 2, "reason": "it filters"}
    if name in {"json cut off", "json of the wrong shape", "empty", "fenced sql"}:
        assert value is None


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_parse_choice_is_in_range_or_none(name: str) -> None:
    choice = parse_choice(MALFORMED[name], 3)
    assert choice is None or 0 <= choice < 3
    if name in {"chinese", "russian", "spanish"}:  # '2024' is no candidate's number
        assert choice is None


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_parse_paths_never_fails(name: str) -> None:
    paths = parse_paths(MALFORMED[name])
    assert isinstance(paths.steps, list) and all(isinstance(k, str) and len(k) <= 60 for k in paths.keywords)


ORIGINAL = "SELECT COUNT(*) FROM orders"


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_critique_revises_only_with_a_query_that_parses(name: str) -> None:
    for text in (MALFORMED[name], f"[Reasoning] looks fine\n[SQL]\n{MALFORMED[name]}"):
        critique = parse_critique(text, ORIGINAL, "sqlite")
        assert len(critique.reasoning) <= 600
        assert critique.revised_sql == "" or _parses(critique.revised_sql)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_an_action_is_known_and_a_sql_action_has_a_query(name: str) -> None:
    for reply in (MALFORMED[name], f"[SQL]\n{MALFORMED[name]}", f"[EXPLORE]\n{MALFORMED[name]}"):
        action = parse_exploration(reply, "sqlite")
        assert action.kind in {"SQL", "EXPLORE", "REFINE", "CONFIRM", "INVALID"}
        if action.kind == "SQL":
            assert action.queries and all("```" not in q for q in action.queries)
        if action.kind == "EXPLORE":
            assert action.queries
    assert parse_action(MALFORMED["empty"]).kind == "INVALID"
