"""Tip library: every retrieval rule is exercised by a fixture case; retrieval is deterministic and bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from groundsql.errors import ConfigError
from groundsql.generation.tips import TipQuery, library, load_tips, matching_rules, render_tips, retrieve

pytestmark = pytest.mark.unit

CASES = yaml.safe_load((Path(__file__).parent / "fixtures" / "tip_cases.yaml").read_text())
TIPS = {tip.id: tip for tip in library()}


def _query(case: dict) -> TipQuery:
    return TipQuery(question=case["question"], evidence=case.get("evidence", ""), plan=case.get("plan", ""),
                    keywords=case.get("keywords", []), schema_names=case.get("schema_names", []),
                    dialect=case.get("dialect", "sqlite"))


def _fired(case: dict) -> set[str]:
    query = _query(case)
    return {f"{tip.id}#{index}" for tip in library() for index in matching_rules(tip, query)}


@pytest.mark.parametrize("case", CASES, ids=[c["question"][:40] for c in CASES])
def test_case(case):
    fired = _fired(case)
    missing = [rule for rule in case.get("fires", []) if rule not in fired]
    assert not missing, f"expected rules did not fire: {missing}; fired: {sorted(fired)}"
    for silent in case.get("silent", []):
        assert not any(rule == silent or rule.startswith(silent + "#") for rule in fired), silent


def test_every_rule_has_a_case():
    covered = {rule for case in CASES for rule in case.get("fires", [])}
    every = {f"{tip.id}#{i}" for tip in library() for i in range(len(tip.rules))}
    assert every - covered == set()
    assert covered - every == set(), "a case names a rule that does not exist"


def test_library_shape():
    tips = library()
    assert 45 <= len(tips) <= 70
    assert len({t.category for t in tips}) == 15
    assert {t.id for t in tips if t.universal} == {"OC01", "SG01", "SY01", "PF01"}


def test_retrieve_universal_first_and_bounded():
    query = TipQuery(question="Show the name and age of the oldest singer from France in each country?")
    tips = retrieve(query, limit=8)
    assert [t.id for t in tips[:4]] == ["OC01", "SG01", "SY01", "PF01"]
    assert len(tips) == 8
    assert len({t.category for t in tips[4:]}) == 4  # round-robin over categories
    assert retrieve(query, limit=8) == tips


def test_retrieve_keeps_universal_even_with_tiny_limit():
    assert len(retrieve(TipQuery(question="x"), limit=1)) == 4


def test_render_tips_is_a_bullet_list():
    text = render_tips([TIPS["OC01"], TIPS["SG01"]])
    assert text.count("\n- ") == 1 and text.startswith("- ")


@pytest.mark.parametrize("bad, message", [
    ({"categories": {"a": ""}, "tips": [{"id": "X", "category": "b", "title": "t", "text": "t", "universal": True}]},
     "unknown category"),
    ({"categories": {"a": ""}, "tips": [{"id": "X", "category": "a", "title": "t", "text": "t"}]}, "needs"),
    ({"categories": {"a": ""}, "tips": [{"id": "X", "category": "a", "title": "t", "text": "t",
                                         "when": [{"sql": {"any": ["x"]}}]}]}, "unknown field"),
    ({"categories": {"a": ""}, "tips": [{"id": "X", "category": "a", "title": "t", "text": "t",
                                         "when": [{"question": {"near": ["x"]}}]}]}, "unknown test"),
])
def test_load_rejects_malformed_tips(bad, message):
    with pytest.raises(ConfigError, match=message):
        load_tips(bad)
