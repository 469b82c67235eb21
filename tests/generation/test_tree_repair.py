"""The tree repair stage inside the presets: it runs before any model repair, is recorded on the trace, said on
the answer and shown by `ask --verbose`; an option turns it off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsql.api import ask
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

#: The Chinook slip of the issue: Quantity asked of Track (T1) while only InvoiceLine (T3) has it.
CHINOOK_SLIP = (
    "SELECT T2.Name, SUM(T1.UnitPrice * T1.Quantity) AS revenue FROM Track AS T1 "
    "JOIN Genre AS T2 ON T1.GenreId = T2.GenreId JOIN InvoiceLine AS T3 ON T3.TrackId = T1.TrackId "
    "GROUP BY T2.Name ORDER BY revenue DESC LIMIT 3"
)
QUESTION = "Which 3 music genres earned the most revenue?"


def test_refine_fixes_the_chinook_slip_without_a_repair_call(chinook_path: Path) -> None:
    model = ScriptedModel([CHINOOK_SLIP])
    answer = ask(QUESTION, str(chinook_path), model=model, preset="refine")
    assert answer.error is None and answer.result.rows[0][0] == "Rock"
    assert "T3.Quantity" in answer.sql
    assert answer.trace.usage().llm_calls == 1  # the generation only: no model repair
    [note] = answer.trace.notes("tree_repair")
    assert note["rule"] == "qualifier" and note["before"] == CHINOOK_SLIP and note["ran"] is True
    assert any("repaired without a model call (qualifier)" in n for n in answer.notes)
    payload = answer.to_dict()
    assert payload["candidates"][0]["repairs"][0]["rule"] == "qualifier"


def test_refine_without_tree_repair_asks_the_model(chinook_path: Path) -> None:
    fixed = CHINOOK_SLIP.replace("T1.Quantity", "T3.Quantity")
    model = ScriptedModel([CHINOOK_SLIP, fixed])
    answer = ask(QUESTION, str(chinook_path), model=model, preset="refine", options={"tree_repair": False})
    assert answer.error is None and answer.trace.usage().llm_calls == 2
    assert not answer.trace.notes("tree_repair") and not answer.notes


def test_rule_hints_reach_the_model_repair(music_db: Path) -> None:
    # country is in singer only, but the query reads song twice: nothing to fix exactly, the model is told
    model = ScriptedModel(["SELECT a.title FROM song AS a JOIN song AS b ON a.song_id = b.song_id "
                           "WHERE a.colour = 'red'", "SELECT title FROM song"])
    answer = ask("Titles of red songs?", str(music_db), model=model, preset="refine")
    assert answer.error is None and answer.trace.usage().llm_calls == 2
    assert "no such column" in model.calls[1]["messages"][-1]["content"]


def test_ambiguous_join_hint_goes_to_the_model(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "trips.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE city (city_id INTEGER PRIMARY KEY, city_name TEXT);
        CREATE TABLE trip (trip_id INTEGER PRIMARY KEY, origin_id INTEGER REFERENCES city(city_id),
                           destination_id INTEGER REFERENCES city(city_id), fare REAL);
        INSERT INTO city VALUES (1, 'Lyon'), (2, 'Oslo');
        INSERT INTO trip VALUES (1, 1, 2, 90.0);
    """)
    conn.close()
    model = ScriptedModel(["SELECT city_name, fare FROM trip",
                           "SELECT c.city_name, t.fare FROM trip AS t JOIN city AS c ON c.city_id = t.origin_id"])
    answer = ask("Fares by origin city", str(path), model=model, preset="refine")
    repair_prompt = model.calls[1]["messages"][-1]["content"]
    assert "trip.origin_id = city.city_id" in repair_prompt and "trip.destination_id = city.city_id" in repair_prompt
    assert answer.result.rows == [("Lyon", 90.0)]


def test_baseline_runs_tree_repair_only_when_asked(chinook_path: Path) -> None:
    plain = ask(QUESTION, str(chinook_path), model=ScriptedModel([CHINOOK_SLIP]), preset="baseline")
    assert plain.error and "Quantity" in plain.error
    repaired = ask(QUESTION, str(chinook_path), model=ScriptedModel([CHINOOK_SLIP]), preset="baseline",
                   options={"baseline_tree_repair": True})
    assert repaired.error is None and repaired.trace.usage().llm_calls == 1
    assert repaired.result.rows[0][0] == "Rock"


def test_ask_verbose_shows_the_repair(chinook_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     caplog: pytest.LogCaptureFixture) -> None:
    from groundsql.cli import cli, commands

    monkeypatch.setattr(commands, "load_model", lambda spec: ScriptedModel([CHINOOK_SLIP]))
    result = CliRunner().invoke(cli, ["ask", QUESTION, "--db", str(chinook_path), "--preset", "refine", "--verbose",
                                      "--no-record"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    # --verbose logs at INFO to stderr (under pytest the records go to caplog instead)
    assert any("tree repair (qualifier): T1.Quantity → T3.Quantity" in r.getMessage() and "before:" in r.getMessage()
               for r in caplog.records)
    assert "repaired without a model call" in result.stderr


def test_eval_records_which_rules_fired(spider_dir: Path, tmp_path: Path) -> None:
    from groundsql.evaluation import evaluate

    model = ScriptedModel(default="SELECT count(*) FROM singers")  # question 0: "How many singers do we have?"
    summary = evaluate(spider_dir, preset="baseline", model=model, out=tmp_path, db=["concert_singer"], limit=1,
                       options={"baseline_tree_repair": True}, report=False)
    record = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert record["tree_repairs"] == ["spelling"] and record["correct"] is True
    assert summary["ex"] == 100.0 and record["usage"]["llm_calls"] == 1
