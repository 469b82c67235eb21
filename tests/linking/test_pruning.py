"""Dual-pathway pruning: an element is dropped only when the deletion pass names it and selection does not."""

from __future__ import annotations

import json

import pytest

from groundsql.linking.batching import batches, merge_identical
from groundsql.linking.pruning import dual_pathway, union_rule

from .conftest import make_ctx


@pytest.mark.unit
def test_union_rule():
    batch = {("t", "a"), ("t", "b"), ("t", "c"), ("u", "x")}
    deleted = {("t", "a"), ("t", "b"), ("u", "x")}
    selected = {("t", "b"), ("v", "outside")}
    assert union_rule(batch, deleted, selected) == {("t", "b"), ("t", "c")}
    assert union_rule(batch, set(), set()) == batch  # nothing ruled out: everything stays
    assert union_rule(batch, batch, set()) == set()


@pytest.mark.integration
def test_dual_pathway_on_a_real_database(school):
    delete = json.dumps({"irrelevant_tables": ["audit_log", "sales_2019", "sales_2020", "teacher"],
                         "irrelevant_columns": [{"table": "student", "columns": ["birth_year", "country"]},
                                                {"table": "course", "columns": ["credits", "no_such_column"]}]})
    select = json.dumps({"relevant_tables": ["enrollment"],
                         "relevant_columns": [{"table": "STUDENT", "columns": ["country"]},
                                              {"table": "teacher", "columns": ["full_name"]}]})
    ctx = make_ctx(school, "Which students from France take a course?", [delete, select])
    subset = dual_pathway(ctx, "1. find students\n2. keep France", ctx.schema).as_mapping()
    assert subset["student"] == ["student_id", "name", "country"]  # country rescued by selection
    assert "birth_year" not in subset["student"]
    assert subset["enrollment"] == ["student_id", "course_id", "grade"]
    assert subset["teacher"] == ["full_name"]  # table deleted, but one column selected
    assert "credits" not in subset["course"]
    assert "audit_log" not in subset and "sales_2019" not in subset
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    assert steps == ["link.prune_delete", "link.prune_select"]


@pytest.mark.integration
def test_identical_tables_are_merged_and_batches_respect_the_budget(school):
    ctx = make_ctx(school, "q", link_batch_tokens=60)
    entries = merge_identical(ctx.schema)
    assert ["sales_2019", "sales_2020"] in [e.names for e in entries]
    parts = batches(ctx, ctx.schema)
    assert len(parts) > 1
    assert sorted(t.name for b in parts for e in b for t in e.tables) == sorted(ctx.schema.table_names)


@pytest.mark.integration
def test_failed_passes_keep_everything(school):
    ctx = make_ctx(school, "q", ["not json at all", "still not json", "nope", "no"])
    subset = dual_pathway(ctx, "plan", ctx.schema)
    assert subset.column_count() == sum(len(t.columns) for t in ctx.schema.tables)
