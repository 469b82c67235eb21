"""SQL extraction from model replies, including the malformed fences small models write."""

from __future__ import annotations

import pytest

from groundsql.sql.extract import extract_sql

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("reply, expected", [
    ("```sql\nSELECT a FROM t\n```", "SELECT a FROM t"),
    ("Here:\n```sql\nSELECT a FROM t;\n```\nThis selects a.", "SELECT a FROM t"),
    ("SELECT a FROM t WHERE b = 'x'\n```", "SELECT a FROM t WHERE b = 'x'"),  # stray closing fence
    ("[SQL]\nSELECT a FROM t\n``` and more", "SELECT a FROM t"),
    ("The answer is SELECT count(*) FROM t; done", "SELECT count(*) FROM t"),
    ("no query here", ""),
    ("SELECT `a FROM t", "SELECT `a FROM t"),  # untokenizable: returned for the guard to refuse, never raised
])
def test_extract_sql(reply, expected):
    assert extract_sql(reply) == expected
