"""Connectivity repair adds the bridge table of a many-to-many join and the join keys."""

from __future__ import annotations

import pytest

from groundsql.linking import SchemaSubset
from groundsql.linking.connectivity import connect_subset

from .conftest import make_ctx

pytestmark = pytest.mark.integration


def test_bridge_table_of_a_many_to_many_join_is_added(school):
    ctx = make_ctx(school, "Which courses does Marie take?")
    subset = SchemaSubset()
    subset.add("student", "name")
    subset.add("course", "title")
    connect_subset(ctx, subset)
    assert subset.tables["enrollment"].role == "bridge"
    assert set(subset.tables["enrollment"].columns) == {"student_id", "course_id"}
    assert "student_id" in subset.tables["student"].columns
    assert "course_id" in subset.tables["course"].columns
    assert "teacher" not in subset.tables


def test_longer_path_through_two_hops(school):
    ctx = make_ctx(school, "Which teachers teach Marie?")
    subset = SchemaSubset()
    subset.add("student", "name")
    subset.add("teacher", "full_name")
    connect_subset(ctx, subset)
    assert {"enrollment", "course"} <= set(subset.tables)


def test_unreachable_tables_are_left_alone_and_repair_can_be_disabled(school):
    ctx = make_ctx(school, "q")
    subset = SchemaSubset()
    subset.add("student", "name")
    subset.add("audit_log", "message")
    connect_subset(ctx, subset)
    assert set(subset.tables) == {"student", "audit_log"}
    off = make_ctx(school, "q", link_connect=False)
    other = SchemaSubset()
    other.add("student", "name")
    other.add("course", "title")
    assert set(connect_subset(off, other).tables) == {"student", "course"}


def test_spider_concert_singer_bridge(concert_singer):
    from groundsql.db import Database

    with Database(str(concert_singer)) as db:
        ctx = make_ctx(db, "Names of singers in concerts of 2014")
        subset = SchemaSubset()
        subset.add("singer", "Name")
        subset.add("concert", "Year")
        connect_subset(ctx, subset)
    assert subset.tables["singer_in_concert"].role == "bridge"
    assert set(subset.tables["singer_in_concert"].columns) == {"Singer_ID", "concert_ID"}


@pytest.mark.unit
def test_paths_are_bounded_and_groups_stay_apart():
    from groundsql.catalog.joins import JoinGraph, Relationship
    from groundsql.linking.connectivity import adjacency, connecting_edges

    chain = JoinGraph([Relationship(a, [f"{b}_id"], b, ["id"]) for a, b in zip("abcde", "bcdef")])
    index = adjacency(chain)
    assert connecting_edges(index, ["a", "e"], max_hops=3) == []  # four joins apart: left alone
    edges = connecting_edges(index, ["a", "e"], max_hops=4)
    assert [(r.table, r.ref_table) for r in edges] == [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    near = connecting_edges(index, ["a", "c", "f"], max_hops=2)
    assert {(r.table, r.ref_table) for r in near} == {("a", "b"), ("b", "c")}  # f is three joins from c
    wider = connecting_edges(index, ["a", "c", "f"], max_hops=3)
    assert len(wider) == 5
