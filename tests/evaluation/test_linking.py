"""Gold tables and columns from gold SQL, and SRR / NSR / NSP / NSF."""

from __future__ import annotations

import pytest

from groundsql.evaluation.linking import GoldSchema, gold_schema, linking_scores

SCHEMA = {
    "singer": ["Singer_ID", "Name", "Country", "Age"],
    "concert": ["concert_ID", "concert_Name", "Stadium_ID", "Year"],
    "singer_in_concert": ["concert_ID", "Singer_ID"],
    "stadium": ["Stadium_ID", "Name", "Capacity"],
}


@pytest.mark.unit
def test_gold_columns_resolve_aliases_and_unqualified_names():
    gold = gold_schema("SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = "
                       "T2.stadium_id GROUP BY T1.stadium_id", SCHEMA)
    assert gold.tables == {"concert", "stadium"}
    assert gold.columns == {("concert", "stadium_id"), ("stadium", "name"), ("stadium", "stadium_id")}
    nested = gold_schema("SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM singer_in_concert)",
                         SCHEMA)
    assert nested.columns == {("singer", "name"), ("singer", "singer_id"), ("singer_in_concert", "singer_id")}
    assert gold_schema("SELECT count(*) FROM singer", SCHEMA).columns == set()


@pytest.mark.unit
def test_scores_follow_the_definitions():
    gold = GoldSchema(tables={"singer", "concert"}, columns={("singer", "name"), ("concert", "year")})
    scores = linking_scores(gold, {"singer": ["Name", "Age"], "stadium": []}, SCHEMA)
    assert scores["table"] == {"srr": 0.0, "nsr": 0.5, "nsp": 0.5, "nsf": 0.5}
    column = scores["column"]
    assert column["srr"] == 0.0 and column["nsr"] == 0.5
    assert column["nsp"] == pytest.approx(1 / 5)  # Name, Age + all 3 stadium columns kept
    full = linking_scores(gold, {t: [] for t in SCHEMA}, SCHEMA)
    assert full["table"]["srr"] == 1.0 and full["column"]["srr"] == 1.0
    assert linking_scores(GoldSchema(tables={"singer"}), {"singer": []}, SCHEMA)["column"] is None


@pytest.mark.integration
def test_gold_schema_on_the_real_database(concert_singer):
    from groundsql.catalog import introspect
    from groundsql.db import Database

    with Database(str(concert_singer)) as db:
        schema = {t.name: [c.name for c in t.columns] for t in introspect(db).tables}
    gold = gold_schema("SELECT name FROM stadium WHERE capacity > 5000 ORDER BY average", schema)
    assert gold.columns == {("stadium", "name"), ("stadium", "capacity"), ("stadium", "average")}
