"""Action parsing for the exploration loop: tags, repairs of malformed replies, statement splitting."""

from __future__ import annotations

import pytest

from groundsql.generation.actions import parse_action, split_queries

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("reply, kind, queries", [
    ("[EXPLORE]\n```sql\n-- look\nSELECT DISTINCT a FROM t LIMIT 5;\nSELECT count(*) FROM t;\n```", "EXPLORE",
     ["SELECT DISTINCT a FROM t LIMIT 5", "SELECT COUNT(*) FROM t"]),
    ("[SQL]\n```sql\nSELECT a FROM t WHERE b = 'x'\n```", "SQL", ["SELECT a FROM t WHERE b = 'x'"]),
    ("**SQL**: SELECT a FROM t", "SQL", ["SELECT a FROM t"]),
    ("[confirm] it counts rows", "CONFIRM", []),
    ("[REFINE]\n### Findings\n- b holds codes\n### Plan\n- filter on b", "REFINE", []),
    ("Sure! Here it is:\n```sql\nSELECT a FROM t\n```", "SQL", ["SELECT a FROM t"]),
    ("I think we should look at table t first.", "REFINE", []),
    ("", "INVALID", []),
    ("[EXPLORE] nothing to run", "INVALID", []),
    ("[SQL] I am not sure", "INVALID", []),
])
def test_parse_action(reply, kind, queries):
    action = parse_action(reply)
    assert action.kind == kind
    assert action.queries == queries


def test_repairs_are_labelled():
    assert "untagged" in parse_action("SELECT 1").repaired
    assert parse_action("[SQL]\n```sql\nSELECT 1\n```").repaired == ""


def test_first_tag_wins_and_later_tags_are_cut():
    action = parse_action("[REFINE] plan: filter by b\n[SQL]\n```sql\nSELECT 1\n```")
    assert action.kind == "REFINE"
    assert "[SQL]" not in action.body


def test_code_fence_language_is_not_a_tag():
    assert parse_action("```sql\nSELECT a FROM t\n```").kind == "SQL"


def test_explore_keeps_at_most_three_queries():
    body = "[EXPLORE]\n" + "\n".join(f"SELECT {i};" for i in range(5))
    assert len(parse_action(body).queries) == 3


def test_split_queries_drops_non_queries_and_survives_garbage():
    assert split_queries("DELETE FROM t; SELECT 1") == ["SELECT 1"]
    assert isinstance(split_queries("SELECT FROM WHERE ((;"), list)  # never raises


@pytest.mark.parametrize("reply, kind", [
    ("[REFINE]", "INVALID"),
    ("[REFINE] then, in a few lines, what you learned and the updated plan", "INVALID"),
    ("[REFINE]\n```sql\nSELECT a FROM t\n```", "SQL"),
    ("[REFINE] The country column stores full names like 'France'.", "REFINE"),
])
def test_refine_repairs(reply, kind):
    assert parse_action(reply).kind == kind


def test_unterminated_quotes_do_not_raise():
    # sqlglot raises TokenError (not ParseError) here; a real 0.5B reply once crashed the loop this way
    assert parse_action("[EXPLORE]\n```sql\nSELECT `a FROM t\n```").kind == "INVALID"
    assert parse_action("[SQL] SELECT `a FROM t").kind == "SQL"
