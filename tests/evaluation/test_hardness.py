"""Spider hardness from sqlglot matches the published criteria applied to Spider's own parse."""

from __future__ import annotations

import json

import pytest

from groundsql.evaluation.hardness import spider_hardness
from tests.evaluation.spider_reference import reference_hardness


@pytest.mark.unit
@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT count(*) FROM singer", "easy"),
    ("SELECT name FROM singer WHERE age > 20", "easy"),
    ("SELECT name, age FROM singer WHERE age > 20", "medium"),
    ("SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id ORDER BY T1.y LIMIT 1", "hard"),
    ("SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id WHERE T2.x = 1 ORDER BY T1.y LIMIT 1", "extra"),
    ("SELECT name FROM singer WHERE id NOT IN (SELECT singer_id FROM singer_in_concert)", "hard"),
    ("SELECT a FROM t WHERE b = 1 INTERSECT SELECT a FROM t WHERE b = 2", "hard"),
    ("SELECT a, count(*) FROM t JOIN u ON t.id = u.id JOIN v ON v.id = u.id GROUP BY a ORDER BY count(*) DESC "
     "LIMIT 1", "extra"),
    ("not sql at all (", "extra"),
])
def test_known_levels(sql, expected):
    assert spider_hardness(sql) == expected


@pytest.mark.integration
def test_agrees_with_spider_parse_on_every_open_question(spider_dir):
    questions = json.loads((spider_dir / "dev.json").read_text())
    differing = [(i, q["query"]) for i, q in enumerate(questions)
                 if spider_hardness(q["query"]) != reference_hardness(q["sql"])]
    assert differing == []
