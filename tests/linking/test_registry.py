"""The linker registry: spec parsing, chaining, the trace record, the automatic full-schema shortcut."""

from __future__ import annotations

import pytest

from groundsql.errors import ConfigError
from groundsql.linking import LINKERS, SchemaSubset, link, linker_spec, parse_spec
from groundsql.linking.registry import linker

from .conftest import make_ctx

pytestmark = pytest.mark.unit


def test_builtin_linkers_are_registered():
    assert {"full", "presql", "apex", "progressive", "vector"} <= set(LINKERS)


def test_parse_spec_accepts_chains_and_rejects_unknown_names():
    assert parse_spec(" Vector , apex ") == ["vector", "apex"]
    with pytest.raises(ConfigError, match="unknown linker 'magic'"):
        parse_spec("vector,magic")
    with pytest.raises(ConfigError):
        parse_spec(" , ")


def test_linker_option_selects_the_spec(school):
    assert linker_spec(make_ctx(school, "q"), "apex") == "apex"
    assert linker_spec(make_ctx(school, "q", linker="vector,apex"), "apex") == "vector,apex"


def test_full_keeps_everything_and_is_noted_on_the_trace(school):
    ctx = make_ctx(school, "How many students are there?")
    subset = link(ctx, "full")
    assert set(subset.tables) == {t.name for t in ctx.schema.tables}
    assert subset.column_count() == sum(len(t.columns) for t in ctx.schema.tables)
    notes = ctx.trace.notes("link")
    assert len(notes) == 1 and notes[0]["linker"] == "full"
    assert notes[0]["tables"]["student"] == ["student_id", "name", "country", "birth_year"]


def test_chain_hands_each_stage_the_previous_subset(school):
    seen: list[SchemaSubset | None] = []

    @linker("_first_two", "test stage")
    def first_two(ctx, previous):
        seen.append(previous)
        subset = SchemaSubset()
        for table in ctx.schema.tables[:2]:
            subset.add(table.name)
        return subset

    @linker("_echo", "test stage")
    def echo(ctx, previous):
        seen.append(previous)
        return previous.copy()

    try:
        ctx = make_ctx(school, "Which teacher teaches Compilers?", link_ground=False)
        subset = link(ctx, "_first_two,_echo")
    finally:
        LINKERS.pop("_first_two"), LINKERS.pop("_echo")
    assert seen[0] is None
    assert set(seen[1].tables) == {"audit_log", "course"}  # the first two tables, by name
    assert set(subset.tables) == set(seen[1].tables)
    assert subset.linker == "_first_two,_echo"
    assert [n["linker"] for n in ctx.trace.notes("link_stage")] == ["_first_two", "_echo"]


def test_small_schema_within_budget_uses_full(school):
    ctx = make_ctx(school, "How many students?", link_full_budget=100_000)
    subset = link(ctx, "apex")  # no model reply is queued: the shortcut must not call the model
    assert subset.linker == "full"
    assert ctx.trace.usage().llm_calls == 0


def test_restrict_keeps_keys_and_only_linked_columns(school):
    ctx = make_ctx(school, "q")
    subset = SchemaSubset()
    subset.add("enrollment", "grade")
    subset.add("student", "name")
    schema = subset.restrict(ctx.schema)
    assert [t.name for t in schema.tables] == ["enrollment", "student"]
    enrollment = schema.table("enrollment")
    assert [c.name for c in enrollment.columns] == ["student_id", "course_id", "grade"]
    assert [fk.ref_table for fk in enrollment.foreign_keys] == ["student"]  # course is not linked
    assert [c.name for c in schema.table("student").columns] == ["student_id", "name"]
