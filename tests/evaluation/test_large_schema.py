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
