"""baseline and refine presets: control flow with a scripted model, accuracy with the real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.models import ScriptedModel
from groundsql.sql.extract import extract_sql


@pytest.mark.unit
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("```sql\nSELECT count(*) FROM singer;\n```", "SELECT count(*) FROM singer"),
        ("Here you go:\nSELECT name FROM singer WHERE age > 30;\nThis lists names.", "SELECT name FROM singer WHERE age > 30"),
        ("```\nWITH t AS (SELECT 1 AS x) SELECT x FROM t\n```\nDone.", "WITH t AS (SELECT 1 AS x) SELECT x FROM t"),
        ("```python\nprint(1)\n```\n```sql\nSELECT 2\n```", "SELECT 2"),
        ("I cannot answer that.", ""),
    ],
)
def test_extract_sql(reply: str, expected: str) -> None:
    assert extract_sql(reply) == expected


@pytest.mark.integration
def test_baseline_prompt_holds_schema_samples_and_evidence(concert_singer: Path) -> None:
    model = ScriptedModel(["```sql\nSELECT count(*) FROM singer WHERE Country = 'France'\n```"])
    answer = ask("How many French singers?", str(concert_singer), model=model, preset="baseline",
                 evidence="French means Country = 'France'")
    prompt = model.calls[0]["messages"][-1]["content"]
    assert "CREATE TABLE singer" in prompt and "example rows" in prompt and "'Joe Sharp'" in prompt
    assert "Country = 'France'" in prompt and "How many French singers?" in prompt
    assert answer.result.rows == [(4,)]
    usage = answer.trace.usage()
    assert usage.llm_calls == 1 and usage.db_queries >= 1 and usage.prompt_tokens > 0


@pytest.mark.integration
def test_refine_repairs_an_error_with_the_real_columns(concert_singer: Path) -> None:
    model = ScriptedModel([
        "SELECT count(*) FROM singer AS s WHERE s.nationality = 'France'",
        "SELECT count(*) FROM singer AS s WHERE s.Country = 'France'",
    ])
    answer = ask("How many singers are from France?", str(concert_singer), model=model, preset="refine")
    assert answer.result.rows == [(4,)] and answer.error is None
    repair_prompt = model.calls[1]["messages"][-1]["content"]
    assert "no such column" in repair_prompt
    assert "singer (alias s): Singer_ID, Name, Country" in repair_prompt
    payload = answer.to_dict()
    assert payload["usage"]["llm_calls"] == 2 and payload["rows"] == [[4]]
    json.dumps(payload)


@pytest.mark.integration
def test_refine_stops_after_its_rounds_and_keeps_the_error(concert_singer: Path) -> None:
    model = ScriptedModel(["SELECT nope FROM singer", "SELECT nope2 FROM singer", "SELECT nope3 FROM singer"])
    answer = ask("?", str(concert_singer), model=model, preset="refine")
    assert answer.error is not None and "no such column" in answer.error
    assert len(model.calls) == 3  # first try + 2 repair rounds


@pytest.mark.integration
def test_model_written_writes_never_run(tmp_path: Path, concert_singer: Path) -> None:
    model = ScriptedModel(["```sql\nDROP TABLE singer\n```", "```sql\nDELETE FROM singer;\n```",
                           "```sql\nUPDATE singer SET Name = 'x'\n```"])
    answer = ask("Remove all singers", str(concert_singer), model=model, preset="refine")
    assert answer.result is None and "refused" in answer.error
    check = ask("count", str(concert_singer), model=ScriptedModel(["SELECT count(*) FROM singer"]),
                preset="baseline")
    assert check.result.rows == [(6,)]
