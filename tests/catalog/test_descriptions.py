"""User descriptions: BIRD database_description CSV folders and YAML files, applied to a catalog."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from groundsql.catalog import apply_descriptions, build_catalog, load_descriptions, render
from groundsql.db import Database
from groundsql.errors import ConfigError
from tests.conftest import DATA

BIRD = DATA / "bird_minidev" / "dev_databases"


@pytest.mark.integration
def test_bird_csv_folder() -> None:
    folder = BIRD / "california_schools"
    if not folder.exists():
        pytest.skip(f"BIRD mini-dev not found at {BIRD}")
    notes = load_descriptions(folder)
    assert {"frpm", "satscores", "schools"} <= set(notes.columns)
    sname = notes.column("satscores", "sname")
    assert sname.description == "school name"
    assert notes.column("SATSCORES", "SNAME") is sname  # case-insensitive
    assert notes.column("satscores", "rtype").values is None  # 'unuseful' is dropped
    # every file of every mini-dev database parses, whatever its encoding
    for database in sorted(BIRD.iterdir()):
        assert load_descriptions(database).columns


@pytest.mark.integration
def test_yaml_descriptions_are_applied_and_rendered(crafted_catalog, tmp_path: Path) -> None:
    path = tmp_path / "notes.yaml"
    path.write_text(
        "tables:\n"
        "  customers:\n"
        "    description: People and companies that buy from the shop.\n"
        "    columns:\n"
        "      segment: Market segment of the customer\n"
        "      country: {description: Billing country, values: some names carry a trailing space}\n",
        encoding="utf-8",
    )
    catalog = copy.deepcopy(crafted_catalog)
    applied = apply_descriptions(catalog.tables, catalog.schema, load_descriptions(path))
    assert applied == 2
    customers = catalog.table("customers")
    assert customers.description_source == "user"
    assert customers.column("segment").description == "Market segment of the customer"
    assert customers.column("country").value_description == "some names carry a trailing space"
    assert catalog.schema.table("customers").column("segment").description == "Market segment of the customer"
    text = render(catalog, ["customers"])
    assert text.startswith("-- People and companies that buy from the shop.; 100 rows")
    assert "segment TEXT  -- Market segment of the customer; dimension" in text


@pytest.mark.integration
def test_descriptions_through_build(crafted_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "notes.yaml"
    path.write_text("tables:\n  tags: Labels attached to products\n", encoding="utf-8")
    catalog = build_catalog(Database(str(crafted_db)), descriptions=path, cache_dir=tmp_path / "c")
    assert catalog.table("tags").description == "Labels attached to products"


@pytest.mark.unit
def test_bad_description_sources(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_descriptions(tmp_path / "notes.txt")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_descriptions(bad)
