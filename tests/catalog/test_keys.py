"""Key inference and the join graph: inferred primary and foreign keys, cardinality, bridges, join paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.catalog import KeyOptions, build_catalog
from groundsql.catalog.joins import MANY_TO_ONE, JoinGraph, Relationship
from groundsql.catalog.keys import name_score, relationship_keys
from groundsql.db import Database


@pytest.mark.unit
@pytest.mark.parametrize("column, table, ref_table, ref_column, strong", [
    ("CountryCode", "city", "country", "Code", True),
    ("customer_id", "orders", "customers", "customer_id", True),
    ("ArtistId", "Album", "Artist", "ArtistId", True),
    ("home_team_id", "match", "team", "id", True),
    ("DestAirport", "flights", "airports", "AirportCode", True),
    ("Name", "city", "country", "Code", False),
    ("Population", "city", "country", "Code", False),
    ("id", "city", "country", "id", False),
])
def test_name_score(column: str, table: str, ref_table: str, ref_column: str, strong: bool) -> None:
    assert (name_score(column, table, ref_table, ref_column) >= 0.7) is strong


@pytest.mark.unit
def test_shortest_join_path_and_connect() -> None:
    graph = JoinGraph([
        Relationship("orders", ["customer_id"], "customers", ["id"]),
        Relationship("order_lines", ["order_id"], "orders", ["id"]),
        Relationship("order_lines", ["product_id"], "products", ["id"]),
        Relationship("reviews", ["product_id"], "products", ["id"], inferred=True, confidence=0.8),
    ])
    path = graph.shortest_join_path("customers", "products")
    assert [(r.table, r.ref_table) for r in path] == [("orders", "customers"), ("order_lines", "orders"),
                                                        ("order_lines", "products")]
    assert graph.path_tables("customers", "products") == ["customers", "orders", "order_lines", "products"]
    assert graph.shortest_join_path("orders", "orders") == []
    assert graph.shortest_join_path("orders", "nowhere") is None
    assert set(graph.connect(["customers", "reviews"])) == {"customers", "orders", "order_lines", "products",
                                                            "reviews"}
    assert path[0].on_clause() == "orders.customer_id = customers.id"


@pytest.mark.integration
def test_inferred_keys_on_crafted_tables(crafted_catalog) -> None:
    rels = {(r.table, tuple(r.columns), r.ref_table, tuple(r.ref_columns)): r
            for r in crafted_catalog.join_graph.relationships}
    assert ("orders", ("customer_id",), "customers", ("customer_id",)) in rels
    assert ("product_tags", ("product_id",), "products", ("product_id",)) in rels
    assert ("product_tags", ("tag_id",), "tags", ("tag_id",)) in rels
    assert all(r.inferred and r.cardinality == MANY_TO_ONE for r in rels.values())
    assert len(rels) == 3  # nothing spurious between the sales_* tables or events
    assert crafted_catalog.join_graph.bridges == ["product_tags"]
    assert crafted_catalog.table("product_tags").is_bridge
    assert crafted_catalog.column("orders", "customer_id").semantic_type == "identifier"
    path = crafted_catalog.join_graph.path_tables("products", "tags")
    assert path == ["products", "product_tags", "tags"]
    # inferred keys are visible on the plain schema too, flagged as inferred
    fks = crafted_catalog.schema.table("orders").foreign_keys
    assert [(fk.ref_table, fk.inferred) for fk in fks] == [("customers", True)]


@pytest.mark.integration
def test_inferred_primary_key(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "nopk.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE person (person_code TEXT, name TEXT, age INTEGER)")
    conn.executemany("INSERT INTO person VALUES (?,?,?)", [(f"P{i}", f"n{i % 3}", 20 + i % 5) for i in range(30)])
    conn.commit()
    conn.close()
    table = build_catalog(Database(str(path)), use_cache=False).table("person")
    assert table.primary_key == ["person_code"] and table.primary_key_inferred


@pytest.mark.integration
def test_stripped_spider_keys_are_recovered(spider_dir: Path) -> None:
    for name in ("concert_singer", "world_1", "wta_1", "flight_2"):
        db = Database(str(spider_dir / "database" / name / f"{name}.sqlite"))
        declared = build_catalog(db, use_cache=False).join_graph.relationships
        truth = relationship_keys(declared)
        inferred = build_catalog(db, use_cache=False, key_options=KeyOptions(use_declared=False))
        found = relationship_keys([r for r in inferred.join_graph.relationships if r.inferred])
        assert truth <= found, (name, truth - found)


@pytest.mark.unit
def test_join_graph_edge_index_prefers_declared_edges_and_follows_new_relationships():
    inferred = Relationship("orders", ["cust"], "customers", ["id"], inferred=True, confidence=0.9)
    graph = JoinGraph([inferred, Relationship("orders", ["item"], "items", ["id"])])
    assert [r.ref_table for r in graph.edges("ORDERS")] == ["items", "customers"]  # declared first
    assert graph.path_tables("customers", "items") == ["customers", "orders", "items"]
    graph.relationships.append(Relationship("customers", ["region"], "regions", ["id"]))
    assert graph.neighbours("customers") == ["regions", "orders"]  # the index is rebuilt after a change
    assert graph.connect(["regions", "items"]) == ["regions", "customers", "orders", "items"]
