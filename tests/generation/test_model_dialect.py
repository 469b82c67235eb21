"""`model_dialect`: the model asked for SQLite-flavoured SQL on any engine (the default), transpiled by groundsql;
SQLite databases get the same prompt whatever the option says."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

#: SQLite habits DuckDB reads otherwise: LIKE ignoring case, integer division.
SQLITE_REPLY = "```sql\nSELECT name, age / 10 FROM singer WHERE name LIKE 'j%'\n```"


@pytest.fixture()
def music_duckdb(tmp_path: Path) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "music.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)")
    conn.execute("INSERT INTO singer VALUES (1, 'Joe', 'France', 52), (2, 'Ann', 'France', 29), "
                 "(3, 'Bo', 'Netherlands', 41), (4, 'Cy', 'United States', 33)")
    conn.close()
    return path


def _system_prompt(model: ScriptedModel) -> str:
    return model.calls[0]["messages"][0]["content"]


def test_sqlite_flavoured_drafts_are_transpiled_for_the_engine(music_duckdb: Path) -> None:
    model = ScriptedModel([SQLITE_REPLY])
    answer = ask("Singers whose name starts with j, and their age in decades?", f"duckdb:///{music_duckdb}",
                 model=model, preset="baseline", options={"model_dialect": "sqlite"})
    assert "SQLite" in _system_prompt(model) and "DuckDB" not in _system_prompt(model)
    assert answer.error is None and [tuple(r) for r in answer.result.rows] == [("Joe", 5)]
    [note] = answer.trace.notes("model_dialect")
    assert "ILIKE" in note["engine"] and "//" in note["engine"]


def test_sqlite_is_the_default_and_the_engines_dialect_is_asked_on_request(music_duckdb: Path) -> None:
    model = ScriptedModel([SQLITE_REPLY])
    answer = ask("Singers whose name starts with j?", f"duckdb:///{music_duckdb}", model=model, preset="baseline")
    assert "SQLite" in _system_prompt(model) and "DuckDB" not in _system_prompt(model)
    assert [tuple(r) for r in answer.result.rows] == [("Joe", 5)] and answer.trace.notes("model_dialect")
    assert "name TEXT" in model.calls[0]["messages"][1]["content"]  # the schema as SQLite reads it
    model = ScriptedModel([SQLITE_REPLY])
    answer = ask("Singers whose name starts with j?", f"duckdb:///{music_duckdb}", model=model, preset="baseline",
                 options={"model_dialect": "engine"})
    assert "DuckDB" in _system_prompt(model)
    assert "name VARCHAR" in model.calls[0]["messages"][1]["content"]  # the engine's own types
    assert answer.result is not None and answer.result.row_count == 0  # DuckDB's LIKE keeps case
    assert not answer.trace.notes("model_dialect")


def test_sqlite_databases_get_the_same_prompt_either_way(music_db: Path) -> None:
    prompts = []
    for options in ({}, {"model_dialect": "sqlite"}, {"model_dialect": "engine"}):
        model = ScriptedModel([SQLITE_REPLY])
        answer = ask("Singers whose name starts with j?", str(music_db), model=model, preset="baseline",
                     options=options)
        assert [tuple(r) for r in answer.result.rows] == [("Joe", 5)]
        assert answer.sql == SQLITE_REPLY.split("\n")[1]
        prompts.append(model.calls[0]["messages"])
    assert prompts[0] == prompts[1] == prompts[2]


def test_auto_asks_every_draft_in_sqlite_and_agrees_on_the_engine(music_duckdb: Path) -> None:
    model = ScriptedModel(default=SQLITE_REPLY)
    answer = ask("Singers whose name starts with j, and their age in decades?", f"duckdb:///{music_duckdb}",
                 model=model, preset="auto", options={"model_dialect": "sqlite"})
    assert answer.error is None and [tuple(r) for r in answer.result.rows] == [("Joe", 5)]
    systems = [call["messages"][0]["content"] for call in model.calls]
    assert len(systems) >= 2 and all("SQLite" in s and "DuckDB" not in s for s in systems)
