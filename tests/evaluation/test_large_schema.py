"""Gold SQL rewritten to prefixed table names keeps its meaning."""

from __future__ import annotations

import pytest

from groundsql.evaluation.large_schema import rewrite_gold


@pytest.mark.unit
@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT count(*) FROM singer", 'SELECT COUNT(*) FROM "db__singer" AS singer'),
    ("SELECT singer.name FROM singer JOIN concert AS T2 ON singer.id = T2.sid",
     'SELECT singer.name FROM "db__singer" AS singer JOIN "db__concert" AS T2 ON singer.id = T2.sid'),
    ("WITH x AS (SELECT a FROM t) SELECT a FROM x", 'WITH x AS (SELECT a FROM "db__t" AS t) SELECT a FROM x'),
])
def test_rewrite(sql, expected):
    assert rewrite_gold(sql, "db") == expected


@pytest.mark.unit
def test_twin_databases_are_those_that_answer_the_same_query():
    from groundsql.evaluation.large_schema import twin_databases

    schema = {"a__singer": ["Name", "Age", "Country"], "b__Singer": ["name", "age"], "c__singer": ["name"],
              "d__artist": ["name", "age"], "a__concert": ["id"], "c__concert": ["id"]}
    gold_columns = {("a__singer", "name"), ("a__singer", "age")}
    assert twin_databases({"a__singer"}, gold_columns, schema) == ["b"]  # c lacks age, d has no singer table
    assert twin_databases({"a__singer", "a__concert"}, gold_columns, schema) == []  # b has no concert table, c no age
    assert twin_databases({"singer"}, set(), {"singer": ["name"]}) == []  # not a combined schema
