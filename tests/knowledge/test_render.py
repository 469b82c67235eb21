"""The one renderer: what reaches the prompt actually sent, within budget, stable per database."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.catalog import estimate_tokens, introspect, render_schema_ddl
from groundsql.context import Context
from groundsql.db import Database
from groundsql.knowledge import render_context
from groundsql.models import ScriptedModel
from groundsql.trace import ModelCall

pytestmark = pytest.mark.integration

PLAIN = {"catalog_context": False, "knowledge": False, "dialect_notes": False}


def ctx_for(db_path: Path, question: str, **options) -> Context:
    return Context(question=question, db=Database(str(db_path)), models={}, options=options)


def sent_prompts(answer) -> list[str]:
    return [m["content"] for e in answer.trace.events if isinstance(e, ModelCall) for m in e.messages]


@pytest.fixture()
def music_knowledge(music_db: Path) -> Path:
    root = music_db.with_name("music.sqlite.knowledge")
    root.mkdir()
    (root / "rules.yaml").write_text("- text: A veteran singer is older than 45.\n  tables: [singer]\n")
    (root / "glossary.yaml").write_text("- term: hit\n  means: a song with sales above 5\n")
    (root / "descriptions.yaml").write_text("tables:\n  song:\n    description: One row per recorded song.\n"
                                            "    columns:\n      sales: Copies sold in thousands\n")
    return root


def test_all_switches_off_gives_exactly_the_plain_schema(demo_db: Path) -> None:
    ctx = ctx_for(demo_db, "How many orders?", **PLAIN)
    db = Database(str(demo_db))
    assert render_context(ctx).text() == render_schema_ddl(introspect(db), db, sample_limit=3)
    assert ctx.catalog is None  # nothing is profiled for the plain schema


def test_the_catalog_block_is_rich_and_stable_across_questions(demo_db: Path) -> None:
    first = ctx_for(demo_db, "How many orders were delivered in 2023?")
    second = ctx_for(demo_db, "Which region has the most customers in the education segment?")
    a, b = render_context(first), render_context(second)
    assert a.schema == b.schema  # the KV-cache prefix: same text for every question about the database
    assert a.knowledge != b.knowledge
    assert "status TEXT,  -- dimension; values 'D', 'S', 'P', 'X'" in a.schema
    assert "stored as '%Y-%m-%d' or '%d/%m/%Y'" in a.schema  # mixed text date formats are spelled out
    assert "FOREIGN KEY (tag_id) REFERENCES tags(tag_id)  -- inferred" in a.schema
    assert "example rows from orders" in a.schema
    assert "SQLite syntax notes:" in a.knowledge and "strftime" in a.knowledge
    assert "-- customers.segment: 'education'" in b.knowledge  # the stored spelling of a literal
    note = first.trace.notes("knowledge.render")[0]
    assert note["catalog"] and note["items"][0]["source"] == "dialect:sqlite/dates"


def test_over_budget_the_schema_fits_keeps_keys_and_records_the_cut(demo_db: Path) -> None:
    ctx = ctx_for(demo_db, "What is the total quantity of each product ordered?", schema_budget_tokens=300)
    context = render_context(ctx)
    assert estimate_tokens(context.schema) <= 300
    assert "CREATE TABLE order_lines" in context.schema and "PRIMARY KEY (order_id, line_no)" in context.schema
    note = ctx.trace.notes("knowledge.render")[0]
    assert note["schema_over_budget"] and note["tables_cut"] and "tags" in note["tables_cut"]


def test_a_linked_subset_shows_linked_columns_plus_keys(demo_db: Path) -> None:
    ctx = ctx_for(demo_db, "Status of orders", schema_budget_tokens=2000)
    text = render_context(ctx, linked={"orders": ["status"], "customers": ["full_name"]}).schema
    assert "coupon_code" not in text and "shipping_fee" not in text
    assert "customer_id INTEGER" in text and "FOREIGN KEY (customer_id) REFERENCES customers(customer_id)" in text
    assert "CREATE TABLE products" not in text


def test_knowledge_items_over_their_budget_are_cut_and_recorded(demo_db: Path, tmp_path: Path) -> None:
    from groundsql.knowledge import load_knowledge

    root = tmp_path / "k"
    root.mkdir()
    (root / "rules.yaml").write_text("".join(f"- Orders rule number {i}, orders with status D count as delivered "
                                             f"for report {i}.\n" for i in range(6))
                                     + "".join(f"- Tag rule {i}, tag names are lower case.\n" for i in range(6)))
    ctx = ctx_for(demo_db, "How many delivered orders?", knowledge_budget_tokens=60, dialect_notes=False)
    ctx.knowledge = load_knowledge(root)
    context = render_context(ctx)
    assert estimate_tokens(context.knowledge) <= 60 + 20  # headers are small and not counted per item
    note = ctx.trace.notes("knowledge.render")[0]
    assert note["items"] and note["cut_items"]
    assert all({"kind", "source", "score"} <= set(i) for i in note["items"] + note["cut_items"])


def test_descriptions_and_rules_reach_the_prompt_actually_sent(music_db: Path, music_knowledge: Path) -> None:
    model = ScriptedModel(["SELECT count(*) FROM singer WHERE age > 45"])
    answer = ask("How many veteran singers are there?", str(music_db), model=model, preset="baseline")
    prompt = "\n".join(sent_prompts(answer))
    assert "A veteran singer is older than 45." in prompt
    assert "-- One row per recorded song." in prompt and "Copies sold in thousands" in prompt
    assert answer.result.rows == [(1,)]
    assert answer.trace.notes("knowledge.loaded")[0]["rules"] == 1


@pytest.mark.parametrize(("preset", "options"), [
    ("refine", {}),
    ("ssev", {"validate": False, "samples": 1}),
    ("apex", {"paths": False, "tips": 0, "max_actions": 1, "samples": 1}),
])
def test_every_preset_gets_the_same_grounding(music_db: Path, music_knowledge: Path, preset: str,
                                              options: dict) -> None:
    model = ScriptedModel(default="SELECT count(*) FROM singer WHERE age > 45")
    answer = ask("How many veteran singers?", str(music_db), model=model, preset=preset, options=options)
    generation = [m["content"] for e in answer.trace.events if isinstance(e, ModelCall)
                  and not e.step.startswith("link") for m in e.messages]
    assert any("A veteran singer is older than 45." in p and "One row per recorded song" in p for p in generation)


def test_bird_descriptions_reach_an_eval_prompt(tmp_path: Path, music_db: Path) -> None:
    from groundsql.evaluation import evaluate

    root = tmp_path / "bird"
    folder = root / "dev_databases" / "music"
    folder.mkdir(parents=True)
    shutil.copy(music_db, folder / "music.sqlite")
    (folder / "database_description").mkdir()
    (folder / "database_description" / "song.csv").write_text(
        "original_column_name,column_name,column_description,data_format,value_description\n"
        "sales,sales,number of copies sold,real,measured in thousands of copies\n", encoding="utf-8")
    (root / "dev.json").write_text(json.dumps([{"question_id": 1, "db_id": "music", "question": "Total sales?",
                                                "evidence": "sales are in thousands", "SQL": "SELECT sum(sales) FROM song",
                                                "difficulty": "simple"}]))
    model = ScriptedModel(default="SELECT sum(sales) FROM song")
    summary = evaluate(root, preset="baseline", model=model)
    prompt = model.calls[0]["messages"][-1]["content"]
    assert "number of copies sold" in prompt and "measured in thousands of copies" in prompt
    assert "sales are in thousands" in prompt  # the evidence too
    assert summary["ex"] == 100.0
    linked = evaluate(root, model=model, stage="link", linker="vector", options={"knowledge": False})
    assert linked["linking"]["table"]["n"] == 1  # the knowledge switches are accepted by link-only runs too


def test_ask_without_catalog_shows_the_plain_schema(music_db: Path) -> None:
    model = ScriptedModel(["SELECT count(*) FROM singer"])
    answer = ask("How many singers?", str(music_db), model=model, preset="baseline", catalog=False,
                 options={"dialect_notes": False})
    db = Database(str(music_db))
    assert render_schema_ddl(introspect(db), db) in sent_prompts(answer)[-1]
    assert answer.trace.notes("catalog") == []


def test_a_changed_database_is_profiled_again(music_db: Path) -> None:
    ask("How many singers?", str(music_db), model=ScriptedModel(["SELECT 1"]), preset="baseline")
    conn = sqlite3.connect(music_db)
    conn.execute("CREATE TABLE label (label_id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()
    answer = ask("How many labels?", str(music_db), model=ScriptedModel(["SELECT 1"]), preset="baseline")
    assert "CREATE TABLE label" in sent_prompts(answer)[-1]


def test_prompts_about_one_database_share_the_schema_prefix(demo_db: Path) -> None:
    import os

    model = ScriptedModel(default="SELECT 1")
    ask("How many orders were delivered?", str(demo_db), model=model, preset="baseline")
    ask("Which customers are in the education segment?", str(demo_db), model=model, preset="baseline")
    first, second = ("\n".join(m["content"] for m in call["messages"]) for call in model.calls)
    shared = os.path.commonprefix([first, second])
    assert "CREATE TABLE tags" in shared and shared.rstrip().endswith("*/")  # through the last table's rows
    assert "Stored values" not in shared and "syntax notes" not in shared


def test_the_cli_profiles_a_new_database_once_behind_a_progress_bar(music_db: Path) -> None:
    from groundsql.cli.progress import catalog_with_progress

    first = catalog_with_progress(Database(str(music_db)), quiet=True)
    assert not first.from_cache and first.table("song") is not None
    assert catalog_with_progress(Database(str(music_db)), quiet=True) is first  # reused, not profiled again


def test_a_repair_prompt_gets_the_notes_its_failing_query_needs(music_db: Path) -> None:
    model = ScriptedModel(["SELECT count(song_id) / count(DISTINCT singer_id) FROM song WHERE genre = 'pop'",
                           "SELECT 1.0 * count(song_id) / count(DISTINCT singer_id) FROM song"])
    answer = ask("Songs and singers", str(music_db), model=model, preset="refine", options={"tree_repair": False})
    repair = model.calls[1]["messages"][-1]["content"]
    assert "SQLite syntax notes:" in repair and "An integer divided by an integer is truncated" in repair
    assert answer.trace.notes("knowledge.draft_notes")[0]["topics"] == ["division"]
    plain = ScriptedModel(["SELECT count(song_id) / 2 FROM song WHERE genre = 'pop'", "SELECT 1"])
    ask("Songs per singer", str(music_db), model=plain, preset="refine",
        options={"tree_repair": False, "dialect_notes": False})
    assert "syntax notes" not in plain.calls[1]["messages"][-1]["content"]


def test_a_stage_that_draws_its_own_schema_gets_the_knowledge_block(music_db: Path, music_knowledge: Path) -> None:
    from groundsql.knowledge import knowledge_text

    ctx = ctx_for(music_db, "How many veteran singers are there?")
    text = knowledge_text(ctx, tables=["singer"])
    assert "A veteran singer is older than 45." in text and "CREATE TABLE" not in text
    assert ctx.trace.notes("knowledge.render")[0]["schema"] == "drawn by the stage"


def test_descriptions_given_on_the_context_reach_the_prompt_without_a_folder(music_db: Path) -> None:
    ctx = Context(question="Total sales?", db=Database(str(music_db)), models={},
                  column_descriptions={"song": {"sales": "copies sold, in thousands"}})
    assert "-- copies sold, in thousands" in render_context(ctx).schema  # e.g. BIRD databases loaded elsewhere

