"""A dbt project as knowledge: descriptions, accepted values and relationships reach the catalog and prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.knowledge import load_knowledge, render_context

pytestmark = pytest.mark.integration

SCHEMA_YML = """\
version: 2
models:
  - name: song
    description: One row per recorded song.
    columns:
      - name: singer_id
        data_tests:
          - relationships:
              to: ref('singer')
              field: singer_id
      - name: title
        description: The song's title as printed on the cover.
  - name: singer
    columns:
      - name: country
        description: Country of birth.
        tests:
          - not_null
          - accepted_values:
              values: ['France', 'Netherlands', 'United States']
"""


def knowledge_folder(tmp_path: Path, project: Path) -> Path:
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "knowledge.yaml").write_text(f"dbt: {project}\n")
    return folder


def test_schema_yml_gives_descriptions_values_and_keys(tmp_path: Path, music_db: Path) -> None:
    project = tmp_path / "analytics"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: analytics\n")
    (project / "models" / "schema.yml").write_text(SCHEMA_YML)
    loaded = load_knowledge(knowledge_folder(tmp_path, project))
    assert loaded.descriptions.table("song") == "One row per recorded song."
    assert loaded.known_values[("singer", "country")] == ["France", "Netherlands", "United States"]
    assert loaded.relationships == [("song", "singer_id", "singer", "singer_id")]

    ctx = Context(question="Titles of songs by French singers", db=Database(str(music_db)), models={},
                  knowledge=loaded)
    schema = render_context(ctx).schema
    assert "-- One row per recorded song." in schema and "as printed on the cover" in schema
    assert "one of 'France', 'Netherlands', 'United States'" in schema


def test_a_compiled_manifest_is_read_instead(tmp_path: Path) -> None:
    project = tmp_path / "analytics"
    (project / "target").mkdir(parents=True)
    manifest = {
        "nodes": {
            "model.a.orders": {"resource_type": "model", "name": "orders", "description": "Orders placed.",
                               "columns": {"status": {"name": "status", "description": "Order state."}}},
            "model.a.customers": {"resource_type": "model", "name": "customers", "columns": {}},
            "test.a.rel": {"resource_type": "test", "attached_node": "model.a.orders",
                           "test_metadata": {"name": "relationships", "kwargs": {
                               "column_name": "customer_id", "to": "ref('customers')", "field": "id"}}},
            "test.a.values": {"resource_type": "test", "depends_on": {"nodes": ["model.a.orders"]},
                              "column_name": "status",
                              "test_metadata": {"name": "accepted_values", "kwargs": {"values": ["D", "X"]}}},
        },
        "sources": {},
    }
    (project / "target" / "manifest.json").write_text(json.dumps(manifest))
    loaded = load_knowledge(knowledge_folder(tmp_path, project))
    assert loaded.descriptions.table("orders") == "Orders placed."
    assert loaded.descriptions.column("orders", "status").description == "Order state."
    assert loaded.relationships == [("orders", "customer_id", "customers", "id")]
    assert loaded.known_values[("orders", "status")] == ["D", "X"]
