"""Tree repair rules on BIRD mini-dev metadata (no database files there: the rules alone, on the real schema)."""

from __future__ import annotations

import json

import pytest

from groundsql.generation.tree_repair import declared_join_graph
from groundsql.sql.repairs import RepairFacts, plan_repairs
from tests.conftest import DATA
from tests.sql.test_repairs_gold import bird_schema

pytestmark = pytest.mark.unit
TABLES = DATA / "bird_minidev" / "dev_tables.json"


@pytest.fixture(scope="module")
def california() -> RepairFacts:
    if not TABLES.exists():
        pytest.skip(f"BIRD mini-dev metadata not found at {TABLES}")
    meta = next(d for d in json.loads(TABLES.read_text()) if d["db_id"] == "california_schools")
    schema = bird_schema(meta)
    return RepairFacts(schema=schema, joins=declared_join_graph(schema), dialect="sqlite", error="no such column")


def test_spelling_with_underscores_for_spaces(california):
    plan = plan_repairs("SELECT school_name FROM frpm WHERE county_name = 'Alameda'", california)
    assert plan.sql == "SELECT \"School Name\" FROM frpm WHERE \"County Name\" = 'Alameda'"


def test_qualifier_and_join_on_bird_keys(california):
    plan = plan_repairs("SELECT T1.Phone FROM frpm AS T1 JOIN schools AS T2 ON T1.CDSCode = T2.CDSCode", california)
    assert plan.sql.startswith("SELECT T2.Phone") and [f.rule for f in plan.fixes] == ["qualifier"]
    plan = plan_repairs("SELECT NumTstTakr FROM frpm WHERE \"County Name\" = 'Alameda'", california)
    assert [f.rule for f in plan.fixes] == ["join"]
    assert "JOIN schools ON frpm.CDSCode = schools.CDSCode" in plan.sql
    assert "JOIN satscores ON schools.CDSCode = satscores.cds" in plan.sql


def test_no_rule_guesses_an_unrelated_name(california):
    plan = plan_repairs("SELECT school_nam FROM frpm", california)
    assert not plan.fixes and plan.sql == "SELECT school_nam FROM frpm"
