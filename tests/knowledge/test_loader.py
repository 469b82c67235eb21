"""Loading a knowledge folder: every file kind, and clear errors (file and line) for what cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.db import Database
from groundsql.errors import KnowledgeError
from groundsql.knowledge import discover_folder, load_knowledge

pytestmark = pytest.mark.integration


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "music.sqlite.knowledge"
    write(root, "rules.yaml", """\
rules:
  - text: A veteran singer is older than 45.
    tables: [singer]
    columns: [singer.age]
  - Sales are in thousands of copies.
""")
    write(root, "glossary.yaml", """\
terms:
  - term: French
    synonyms: [from France]
    means: singer.country = 'France'
""")
    write(root, "examples.yaml", """\
examples:
  - question: How many songs did Joe sing?
    sql: SELECT count(*) FROM song JOIN singer USING (singer_id) WHERE singer.name = 'Joe'
""")
    write(root, "docs/guide.md", "# Charts\nIntro words.\n## Sales\nSales count physical copies only.\n")
    write(root, "docs/notes.txt", "First paragraph here.\n\nSecond paragraph.\n")
    write(root, "descriptions.yaml", "tables:\n  song:\n    description: One row per recorded song.\n"
                                     "    columns:\n      sales: {description: Copies sold, values: thousands}\n")
    return root


def test_every_file_kind_loads(folder: Path, music_db: Path) -> None:
    knowledge = load_knowledge(folder, Database(str(music_db)))
    assert [r.text for r in knowledge.rules] == ["A veteran singer is older than 45.", "Sales are in thousands of copies."]
    assert knowledge.rules[0].tables == ("singer",) and knowledge.rules[0].source == "rules.yaml:2"
    assert knowledge.rules[1].source == "rules.yaml:5"
    assert knowledge.terms[0].synonyms == ("from France",) and knowledge.terms[0].means == "singer.country = 'France'"
    assert knowledge.examples[0].source == "examples.yaml:2"
    titles = [(c.title, c.text, c.source) for c in knowledge.chunks]
    assert ("Charts > Sales", "Sales count physical copies only.", "docs/guide.md:3") in titles
    assert ("", "Second paragraph.", "docs/notes.txt:3") in titles
    assert knowledge.descriptions.table("song") == "One row per recorded song."
    assert knowledge.descriptions.column("song", "sales").values == "thousands"
    kinds = [i.kind for i in knowledge.items()]
    assert kinds.count("rule") == 2 and kinds.count("term") == 1 and kinds.count("example") == 1
    assert "'French', 'from France' means singer.country = 'France'" in [i.text for i in knowledge.items()]


def test_examples_jsonl_and_a_plain_descriptions_csv(tmp_path: Path, music_db: Path) -> None:
    root = tmp_path / "k"
    write(root, "examples.jsonl", '{"question": "How many singers?", "sql": "SELECT count(*) FROM singer"}\n\n'
                                  '{"question": "Songs?", "sql": "SELECT title FROM song"}\n')
    write(root, "descriptions.csv", "table,column,description,values\nsinger,,People who sing,\n"
                                    "singer,age,Age in years,whole years\n")
    knowledge = load_knowledge(root, Database(str(music_db)))
    assert [e.source for e in knowledge.examples] == ["examples.jsonl:1", "examples.jsonl:3"]
    assert knowledge.descriptions.table("singer") == "People who sing"
    assert knowledge.descriptions.column("singer", "age").description == "Age in years"


def test_bird_description_folder_is_read_as_it_is(tmp_path: Path) -> None:
    folder = tmp_path / "database_description"
    write(folder, "song.csv", "original_column_name,column_name,column_description,data_format,value_description\n"
                              "sales,sales,copies sold,real,in thousands\n")
    knowledge = load_knowledge(folder)
    assert knowledge.descriptions.column("song", "sales").description == "copies sold"
    assert knowledge.descriptions.column("song", "sales").values.startswith("in thousands")


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / "k"
    write(root, "rules.yaml", "rules:\n  - text: ok\n  - text: [unclosed\n")
    with pytest.raises(KnowledgeError, match=r"rules\.yaml:\d+: broken YAML"):
        load_knowledge(root)


def test_malformed_entry_names_its_line(tmp_path: Path) -> None:
    root = tmp_path / "k"
    write(root, "glossary.yaml", "terms:\n  - term: churned\n    means: status = 'C'\n  - term: lost\n")
    with pytest.raises(KnowledgeError, match=r"glossary\.yaml:4: a glossary entry needs 'term' and 'means'"):
        load_knowledge(root)


def test_an_example_that_writes_is_refused_with_its_line(tmp_path: Path, music_db: Path) -> None:
    root = tmp_path / "k"
    write(root, "examples.yaml", "- question: How many singers?\n  sql: SELECT count(*) FROM singer\n"
                                 "- question: Remove Joe\n  sql: DELETE FROM singer WHERE name = 'Joe'\n")
    with pytest.raises(KnowledgeError, match=r"examples\.yaml:3: the example is refused: examples must only read"):
        load_knowledge(root, Database(str(music_db)))
    assert len(load_knowledge(root).examples) == 2  # without a database nothing runs, so nothing is refused


def test_an_example_that_no_longer_runs_is_an_error(tmp_path: Path, music_db: Path) -> None:
    root = tmp_path / "k"
    write(root, "examples.yaml", "examples:\n  - question: Oldest singer?\n"
                                 "    sql: SELECT name FROM singer ORDER BY birth_year LIMIT 1\n")
    with pytest.raises(KnowledgeError, match=r"examples\.yaml:2: the example no longer runs on .*birth_year"):
        load_knowledge(root, Database(str(music_db)))


def test_unknown_fields_are_errors_not_silently_ignored(tmp_path: Path) -> None:
    root = tmp_path / "k"
    write(root, "rules.yaml", "- text: x\n  tabels: [a]\n")
    with pytest.raises(KnowledgeError, match=r"rules\.yaml:1: unknown field\(s\) tabels"):
        load_knowledge(root)


def test_the_folder_next_to_the_database_is_found(folder: Path, music_db: Path) -> None:
    assert discover_folder(Database(str(music_db))) == folder.parent / "music.sqlite.knowledge"


def test_enrichment_reads_the_folders_rules_and_documents(folder: Path, music_db: Path) -> None:
    import json as json_module

    from groundsql.catalog import build_catalog
    from groundsql.models import ScriptedModel

    knowledge = load_knowledge(folder)
    reply = json_module.dumps({"table": "A table.", "columns": {}})
    model = ScriptedModel(default=reply)
    build_catalog(Database(str(music_db)), use_cache=False, enrich=True, model=model,
                  documents=knowledge.documents_text())
    prompt = model.calls[0]["messages"][-1]["content"]
    assert "A veteran singer is older than 45." in prompt and "Sales count physical copies only." in prompt


def test_the_real_bird_description_folders_load() -> None:
    from tests.conftest import DATA

    root = DATA / "bird_minidev" / "dev_databases"
    if not root.is_dir():
        pytest.skip(f"BIRD mini-dev metadata not found at {root}")
    loaded = load_knowledge(root / "california_schools")  # the database folder holding database_description/
    assert loaded.counts()["described_columns"] == 89
    note = loaded.descriptions.column("frpm", "Charter School (Y/N)")
    assert note is not None and note.values and "1" in note.values
