"""Profiling real files: semantic types on crafted tables (hidden dates, epochs, numeric text, codes, JSON)
and on real databases (Spider world_1, the demo shop, DuckDB, PostgreSQL, MariaDB)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from groundsql.catalog import ProfileOptions, build_catalog, profile_table
from groundsql.catalog import types as T
from groundsql.db import Database
from tests.conftest import copy_sqlite_to_server

pytestmark = pytest.mark.integration


def test_hidden_types_on_crafted_table(crafted_catalog) -> None:
    events = crafted_catalog.table("events")
    kinds = {c.name: (c.semantic_type, c.hidden_type) for c in events.columns}
    assert kinds["id"] == (T.IDENTIFIER, None)
    assert kinds["iso_day"] == (T.TIME, "text-datetime")
    assert kinds["dmy_day"] == (T.TIME, "text-datetime")
    assert events.column("dmy_day").time_formats == ["%d/%m/%Y"]
    assert kinds["created_ts"] == (T.TIME, "epoch_s")
    assert kinds["qty_text"] == (T.METRIC, "numeric-text:integer")
    assert kinds["status"][0] == T.DIMENSION
    assert kinds["payload"] == (T.OTHER, "json")
    assert kinds["note"][0] == T.OTHER
    assert kinds["is_active"] == (T.DIMENSION, "boolean")
    assert kinds["amount"][0] == T.METRIC


def test_per_type_statistics(crafted_catalog) -> None:
    events = crafted_catalog.table("events")
    status = events.column("status")
    assert {v.value for v in status.top_values} == {"A", "C", "P"}
    assert sum(v.count for v in status.top_values) == 300
    assert abs(sum(v.ratio for v in status.top_values) - 1) < 1e-3
    amount = events.column("amount")
    assert 1 <= amount.min <= amount.avg <= amount.max <= 1000 and amount.stddev > 0
    dmy = events.column("dmy_day")
    assert dmy.earliest.startswith("2019") and dmy.latest.startswith("2023")
    epoch = events.column("created_ts")
    assert epoch.earliest.startswith("2020") and epoch.latest[:4] in ("2022", "2023")
    qty = events.column("qty_text")
    assert 1 <= float(qty.min) <= float(qty.max) <= 500 and qty.avg is not None
    active = events.column("is_active")
    assert abs(active.true_ratio + active.false_ratio - 1) < 1e-6 and 0 < active.true_ratio < 1
    payload = {n.name: n for n in events.column("payload").nested}
    assert "$.items[].sku" in payload and payload["$.device"].semantic_type == T.DIMENSION
    for column in events.columns:
        assert column.null_ratio == 0.0 and len(column.sample_values) <= 3
        assert all(len(str(v)) <= 120 for v in column.sample_values)


def test_world_1_semantics(world_catalog) -> None:
    assert world_catalog.column("city", "ID").semantic_type == T.IDENTIFIER
    continent = world_catalog.column("country", "Continent")
    assert continent.semantic_type == T.DIMENSION
    assert {"Asia", "Europe", "Africa"} <= {v.value for v in continent.top_values}
    assert world_catalog.column("country", "Population").semantic_type == T.METRIC
    assert world_catalog.column("country", "IndepYear").semantic_type == T.TIME
    assert world_catalog.column("countrylanguage", "IsOfficial").true_ratio is not None
    city = world_catalog.table("city")
    assert city.row_count == 4079 and city.primary_key == ["ID"]
    assert any(fk.ref_table == "country" and fk.columns == ["CountryCode"] for fk in city.foreign_keys)


def test_demo_mixed_date_formats(demo_db: Path) -> None:
    catalog = build_catalog(Database(str(demo_db)), use_cache=False)
    order_date = catalog.column("orders", "order_date")
    assert order_date.semantic_type == T.TIME and len(order_date.time_formats) >= 2
    assert catalog.column("orders", "status").semantic_type == T.DIMENSION


def test_every_column_gets_a_known_type_on_spider(spider_dir: Path) -> None:
    for name in ("concert_singer", "wta_1", "flight_2"):
        catalog = build_catalog(Database(str(spider_dir / "database" / name / f"{name}.sqlite")), use_cache=False)
        for table in catalog.tables:
            assert not table.errors, (name, table.name, table.errors)
            for column in table.columns:
                assert column.semantic_type in T.SEMANTIC_TYPES
                assert column.physical_type in T.PHYSICAL_FAMILIES


def test_duckdb_types_and_sampling(tmp_path: Path) -> None:
    path = tmp_path / "big.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("""
        CREATE TABLE t AS SELECT i AS id, TIMESTAMP '2021-01-01' + to_seconds(i) AS at,
            (i % 2 = 0) AS flag, ['x', 'y', 'z'][1 + (i % 3)::INT] AS kind, i * 0.5 AS score,
            {'a': i % 4, 'b': 'k' || (i % 2)::VARCHAR} AS nested
        FROM range(50000) r(i)""")
    conn.close()
    db = Database(str(path))
    catalog = build_catalog(db, use_cache=False)
    table = catalog.table("t")
    kinds = {c.name: c.semantic_type for c in table.columns}
    assert kinds == {"id": T.IDENTIFIER, "at": T.TIME, "flag": T.DIMENSION, "kind": T.DIMENSION,
                     "score": T.METRIC, "nested": T.OTHER}
    assert table.column("nested").physical_type == T.SEMI_STRUCTURED
    assert table.column("flag").true_ratio == 0.5
    # a table above the threshold is profiled on an engine-side sample
    scan = profile_table(db, catalog.schema.table("t"), ProfileOptions(sample_threshold=10_000, sample_size=5_000))
    assert scan.profile.sampled and scan.profile.row_count == 50_000
    assert scan.profile.sample_size < 50_000
    assert scan.profile.column("kind").semantic_type == T.DIMENSION


def test_profile_on_postgres(postgres_database: str, crafted_db: Path) -> None:
    _check_server_catalog(postgres_database, crafted_db)


def test_profile_on_mariadb(mysql_database: str, crafted_db: Path) -> None:
    _check_server_catalog(mysql_database, crafted_db)


def _check_server_catalog(url: str, crafted_db: Path) -> None:
    copy_sqlite_to_server(crafted_db, url, tables=["customers", "orders", "events"])
    catalog = build_catalog(Database(url), use_cache=False)
    customers = catalog.table("customers")
    assert customers.row_count == 100 and not customers.errors
    assert customers.column("segment").semantic_type == T.DIMENSION
    assert catalog.column("orders", "total").semantic_type == T.METRIC
    events = catalog.table("events")
    assert not events.errors, events.errors
    dmy = events.column("dmy_day")
    assert dmy.semantic_type == T.TIME, (dmy.min, dmy.max, dmy.sample_values, dmy.hidden_type)
    assert catalog.column("events", "created_ts").hidden_type == "epoch_s"
    # keys are not copied to the server: the foreign key is inferred there
    assert [(r.table, r.columns, r.ref_table) for r in catalog.join_graph.relationships] == [
        ("orders", ["customer_id"], "customers")]
    assert catalog.value_index.lookup("Netherlands")[0].value == "Netherlands "


def test_unreadable_table_is_recorded_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE ok (x INTEGER)")
    conn.execute("CREATE VIEW broken AS SELECT x FROM ok")
    conn.execute("INSERT INTO ok VALUES (1)")
    conn.commit()
    conn.execute("DROP TABLE ok")  # the view now points at nothing
    conn.execute("CREATE TABLE ok2 (y INTEGER)")
    conn.commit()
    conn.close()
    catalog = build_catalog(Database(str(path)), use_cache=False)
    assert catalog.table("broken") is None and catalog.table("ok2").row_count == 0
