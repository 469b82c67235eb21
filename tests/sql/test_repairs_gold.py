"""No rule fires on a correct query: every Spider dev and BIRD mini-dev gold query is left as it is, even when
the rules are told it failed (the strongest check that the evidence they act on is sound)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.catalog import introspect
from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
from groundsql.db import Database
from groundsql.generation.tree_repair import declared_join_graph
from groundsql.sql.repairs import RepairFacts, plan_repairs
from tests.conftest import DATA, spider_db_path

pytestmark = pytest.mark.integration
BIRD = DATA / "bird_minidev"


def _facts(schema: Schema) -> RepairFacts:
    return RepairFacts(schema=schema, joins=declared_join_graph(schema), dialect="sqlite",
                       error="no such column: x")


def test_no_rule_fires_on_spider_gold_queries(spider_dir: Path):
    questions = json.loads((spider_dir / "dev.json").read_text())
    facts: dict[str, RepairFacts] = {}
    fired = []
    for question in questions:
        db_id = question["db_id"]
        if db_id not in facts:
            db = Database(str(spider_db_path(db_id)))
            facts[db_id] = _facts(introspect(db))
            db.close()
        plan = plan_repairs(question["query"], facts[db_id])
        if plan.fixes:
            fired.append((question["query"], plan.sql))
    assert len(questions) > 600 and fired == []


def test_no_rule_fires_on_bird_gold_queries():
    if not (BIRD / "mini_dev_sqlite.json").exists():
        pytest.skip(f"BIRD mini-dev not found at {BIRD}")
    facts = {meta["db_id"]: _facts(bird_schema(meta)) for meta in json.loads((BIRD / "dev_tables.json").read_text())}
    questions = [q for q in json.loads((BIRD / "mini_dev_sqlite.json").read_text()) if q["db_id"] in facts]
    fired = [(q["SQL"], plan.sql) for q in questions if (plan := plan_repairs(q["SQL"], facts[q["db_id"]])).fixes]
    assert len(questions) > 200 and fired == []


def bird_schema(meta: dict) -> Schema:
    names, columns = meta["table_names_original"], meta["column_names_original"]
    tables = [Table(name=name) for name in names]
    for table_index, column in columns:
        if table_index >= 0:
            tables[table_index].columns.append(Column(column))
    for source, target in meta["foreign_keys"]:
        (ti, column), (ri, ref) = columns[source], columns[target]
        tables[ti].foreign_keys.append(ForeignKey([column], names[ri], [ref]))
    return Schema("sqlite", tables)
