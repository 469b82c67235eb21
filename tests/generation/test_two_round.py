"""Two-round prompting pieces: few-shot retrieval, pruned schema text, the PreSQL/PostSQL calls."""

from __future__ import annotations

import json

import pytest

from groundsql.catalog import introspect
from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.generation.fewshot import Example, ExamplePool, FewShotOptions, embed, example_pool
from groundsql.generation.schema_text import render_subset
from groundsql.generation.two_round import two_round_sql
from groundsql.linking.subset import SchemaSubset
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration


@pytest.fixture()
def schema(music_db):
    return introspect(Database(str(music_db)))


def test_render_subset_keeps_linked_columns_and_keys(music_db, schema):
    ctx = Context(question="q", db=Database(str(music_db)), models={})
    subset = SchemaSubset()
    subset.add("song", "title")
    subset.add("singer", "name", evidence=["stored value 'Joe' matches 'joe'"])
    text = render_subset(ctx, subset)
    assert "title TEXT" in text and "sales" not in text and "age" not in text
    assert "singer_id INTEGER" in text  # keys stay so the tables can be joined
    assert "FOREIGN KEY (singer_id) REFERENCES singer(singer_id)" in text
    assert "'Hey'" in text  # example rows of the kept columns
    assert "singer.name: stored value 'Joe'" in text
    assert render_subset(ctx, SchemaSubset()).count("CREATE TABLE") == 2  # empty subset: whole schema


def test_fewshot_similarity_and_same_database_exclusion():
    pool = ExamplePool([
        Example("How many singers are there?", "SELECT count(*) FROM singer", "concert"),
        Example("How many students are there?", "SELECT count(*) FROM student", "school"),
        Example("List the names of all pets.", "SELECT name FROM pets", "pets"),
    ])
    assert pool.similar("How many teachers are there?", 1)[0].db_id in ("concert", "school")
    found = pool.similar("How many singers are there?", 2, exclude_db="concert")
    assert [e.db_id for e in found] == ["school", "pets"]
    assert embed("name 'Joe'") == embed("name 'Ann'")  # literal values are masked


def test_example_pool_from_the_real_spider_dev_file(spider_dir):
    pool = example_pool(FewShotOptions(examples_path=str(spider_dir / "dev.json")))
    found = pool.similar("How many singers do we have?", 3, exclude_db="concert_singer")
    assert len(found) == 3 and all(e.db_id != "concert_singer" and e.sql.upper().startswith("SELECT") for e in found)


def test_example_pool_from_spider_file(tmp_path):
    path = tmp_path / "ex.json"
    path.write_text(json.dumps([{"question": "How many?", "query": "SELECT 1", "db_id": "x",
                                 "sql": {"select": [False, []]}}]))  # Spider's parsed tree is ignored
    pool = example_pool(FewShotOptions(examples_path=str(path)))
    assert pool.examples == [Example("How many?", "SELECT 1", "x")]
    with pytest.raises(ConfigError):
        ExamplePool.from_records([{"question": "no sql"}])
    assert example_pool(FewShotOptions()) is None


def test_presql_prompt_has_efficiency_rule_examples_and_rows(music_db):
    model = ScriptedModel(["```sql\nSELECT count(*) FROM singer\n```"])
    ctx = Context(question="How many singers are there?", db=Database(str(music_db)), models={"default": model},
                  options={"examples": [{"question": "How many pets are there?", "sql": "SELECT count(*) FROM pets",
                                         "db_id": "pets"},
                                        {"question": "How many singers are old?", "sql": "SELECT 2",
                                         "db_id": "music"}]},
                  db_id="music")
    from groundsql.generation.direct import schema_prompt_text

    assert two_round_sql(ctx, schema_prompt_text(ctx), step="presql", pruned=False) == ["SELECT count(*) FROM singer"]
    prompt = model.calls[0]["messages"][1]["content"]
    assert "as fast as possible" in prompt and "How many pets are there?" in prompt
    assert "SELECT 2" not in prompt  # never an example from the same database
    assert "'France'" in prompt
