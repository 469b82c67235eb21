"""Examples chosen by question skeleton: the domain is masked with each database's own names, so questions of
the same shape on other databases are found, the asked database's own questions never are, and the first prompt
of `auto` shows them only when the switch is on."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.generation.structure_examples import load_bank, schema_words, similar_structure, skeleton
from groundsql.models import ScriptedModel
from groundsql.pipelines.auto import AutoOptions, auto


def _db(path: Path, ddl: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.commit()
    conn.close()


@pytest.fixture()
def bank(tmp_path: Path) -> Path:
    _db(tmp_path / "ships" / "ships.sqlite", "CREATE TABLE ship (ship_id INTEGER PRIMARY KEY, name TEXT, flag TEXT);")
    _db(tmp_path / "zoo" / "zoo.sqlite", "CREATE TABLE keeper (keeper_id INTEGER PRIMARY KEY, name TEXT);"
                                          "CREATE TABLE animal (animal_id INTEGER PRIMARY KEY, keeper_id INTEGER);")
    _db(tmp_path / "shop" / "shop.sqlite", "CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, country TEXT);")
    records = [
        {"db_id": "ships", "question": "How many ships are from Norway?",
         "query": "SELECT count(*) FROM ship WHERE flag = 'Norway'"},
        {"db_id": "zoo", "question": "List the names of keepers that do not have any animal.",
         "query": "SELECT name FROM keeper WHERE keeper_id NOT IN (SELECT keeper_id FROM animal)"},
        {"db_id": "shop", "question": "How many customers are from France?",
         "query": "SELECT count(*) FROM customer WHERE country = 'France'"},
    ]
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(records))
    load_bank.cache_clear()
    return path


def test_skeleton_masks_the_domain_and_keeps_the_structure() -> None:
    names = schema_words({"singer": ["Singer_ID", "Country"], "concert": ["Concert_ID", "Year"]})
    assert skeleton("How many singers are from France?", names) == ["how", "many", "NAME", "are", "from", "VALUE"]
    assert "not" in skeleton("Which singers did not sing in 2014?", names)


def test_the_nearest_skeletons_come_from_other_databases(bank: Path) -> None:
    examples = load_bank(str(bank))
    names = schema_words({"singer": ["singer_id", "country"]})
    found = similar_structure("How many singers are from France?", names, examples, 2, exclude_db="shop")
    assert [e.db_id for e in found][0] == "ships"
    assert all(e.db_id != "shop" for e in found)
    negated = similar_structure("Show the names of singers that do not have any concert.", names, examples, 1)
    assert negated[0].db_id == "zoo"


def test_a_missing_bank_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_bank(str(tmp_path / "nope.json"))


@pytest.mark.integration
def test_auto_shows_the_examples_only_when_switched_on(bank: Path, tmp_path: Path) -> None:
    path = tmp_path / "singers.sqlite"
    _db(path, "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT);"
              "INSERT INTO singer VALUES (1, 'A', 'France'), (2, 'B', 'Spain');")
    prompts = []
    for options in (AutoOptions(), AutoOptions(structure_examples=2, examples_bank=str(bank))):
        model = ScriptedModel(["SELECT count(*) FROM singer WHERE country = 'France'"] * 6)
        ctx = Context(question="How many singers are from France?", db=Database(str(path)),
                      models={"default": model}, options=options)
        answer = auto(ctx, options)
        assert answer.result.rows == [(1,)]
        prompts.append(model.calls[0]["messages"][-1]["content"])
    assert "Norway" not in prompts[0]
    assert "How many ships are from Norway?" in prompts[1] and "SELECT count(*) FROM ship" in prompts[1]
    assert prompts[1].index("Norway") < prompts[1].index("Question: How many singers are from France?")
