"""The value index: literals in questions map to stored values, misspelled or padded with spaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.catalog import ValueIndex, build_catalog
from groundsql.db import Database


@pytest.mark.unit
def test_lookup_ranks_exact_then_fuzzy() -> None:
    index = ValueIndex()
    index.add("singer", "Country", ["France", "Netherlands", "United States"])
    index.add("genre", "Name", ["Heavy Metal", "Metal", "Rock"])
    assert index.lookup("france")[0].value == "France" and index.lookup("france")[0].exact
    assert index.lookup("Frnace")[0].value == "France"
    assert index.lookup("heavy metal")[0].value == "Heavy Metal"
    assert index.lookup("metal heavy")[0].value == "Heavy Metal"
    assert index.lookup("zzzz") == []
    assert index.lookup("France", tables=["genre"]) == []


@pytest.mark.integration
def test_misspelled_and_trailing_space_values(crafted_catalog) -> None:
    padded = crafted_catalog.value_index.lookup("Netherlands")[0]
    assert (padded.table, padded.column, padded.value, padded.exact) == ("customers", "country", "Netherlands ", True)
    typo = crafted_catalog.value_index.lookup("Germny")[0]
    assert (typo.column, typo.value) == ("country", "Germany") and not typo.exact
    assert 75 <= typo.score < 100


@pytest.mark.integration
def test_question_literals_on_spider(spider_dir: Path) -> None:
    db = Database(str(spider_dir / "database" / "world_1" / "world_1.sqlite"))
    catalog = build_catalog(db, use_cache=False)
    found = catalog.value_index.lookup_question("Which cities are in France and speak Dutch?")
    pairs = {(m.table, m.column, m.value) for m in found}
    assert ("country", "Name", "France") in pairs
    assert ("countrylanguage", "Language", "Dutch") in pairs
    flight = build_catalog(Database(str(spider_dir / "database" / "flight_2" / "flight_2.sqlite")), use_cache=False)
    stored = flight.value_index.lookup("APG")
    assert stored[0].exact and stored[0].value == "APG"  # the clean spelling ranks first …
    padded = [m for m in stored if m.table == "flights"]
    assert padded and all(m.exact and m.value == " APG" for m in padded)  # … and the padded variant is exposed
