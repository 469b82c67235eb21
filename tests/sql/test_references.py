"""Tables and columns extracted from SQL with sqlglot: aliases, subqueries, CTEs, stars, literals."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from groundsql.catalog import introspect
from groundsql.sql.references import sql_refs

CASES = yaml.safe_load((Path(__file__).parent / "fixtures" / "sql_refs.yaml").read_text())


@pytest.fixture(scope="module")
def schema(school_db):
    from groundsql.db import Database

    with Database(str(school_db)) as db:
        return introspect(db)


@pytest.mark.unit
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_sql_refs(case, schema):
    refs = sql_refs(case["sql"], schema)
    assert refs.ok
    assert {t: sorted(c) for t, c in refs.columns.items()} == {t: sorted(c) for t, c in case["refs"].items()}
    assert refs.unknown == []


@pytest.mark.unit
def test_unknown_names_are_reported_not_invented(schema):
    refs = sql_refs("SELECT s.nickname FROM student s JOIN dormitory d ON d.id = s.student_id", schema)
    assert "student" in refs.columns and "dormitory" not in refs.columns
    assert any("nickname" in name for name in refs.unknown)
    assert any("dormitory" in name for name in refs.unknown)


@pytest.mark.unit
@pytest.mark.parametrize("sql", ["SELEC name FRM", "SELECT FROM WHERE (", ""])
def test_unparsable_sql_references_nothing(schema, sql):
    refs = sql_refs(sql, schema)
    assert refs.ok is False and refs.columns == {}


@pytest.mark.integration
def test_every_spider_gold_query_resolves(spider_dir):
    """All 646 Spider dev gold queries resolve to known tables and columns only."""
    import json

    from groundsql.db import Database

    questions = json.loads((spider_dir / "dev.json").read_text())
    schemas = {}
    for q in questions:
        if q["db_id"] not in schemas:
            with Database(str(spider_dir / "database" / q["db_id"] / f"{q['db_id']}.sqlite")) as db:
                schemas[q["db_id"]] = introspect(db)
        refs = sql_refs(q["query"], schemas[q["db_id"]])
        assert refs.ok and refs.columns, q["query"]
        assert not refs.unknown, (q["query"], refs.unknown)


@pytest.mark.unit
@pytest.mark.parametrize("sql, misplaced", [
    ("SELECT title FROM student", {"student": {"title"}}),  # one table: the name was asked of it
    ("SELECT s.title, s.name FROM student AS s", {"student": {"title"}}),
    ("SELECT title AS t FROM student JOIN enrollment USING (student_id)", {"": {"title"}}),  # cannot tell which
    ("SELECT x.title FROM pupils AS x", {"pupils": {"title"}}),  # an unknown table keeps the draft's name
    ("SELECT country, count(*) AS n FROM student GROUP BY country ORDER BY n", {}),
])
def test_misplaced_columns_are_recorded_by_the_table_they_were_asked_of(schema, sql, misplaced):
    assert sql_refs(sql, schema).misplaced == misplaced
