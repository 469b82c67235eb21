"""The linkers' model stages with the real embedded model (0.5B by default) on real databases."""

from __future__ import annotations

import json

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.linking import link
from groundsql.linking.pruning import dual_pathway
from groundsql.linking.verification import verify_table

pytestmark = pytest.mark.e2e

QUESTION = "What are the names of the singers who performed in a concert in 2014?"


@pytest.fixture()
def concert_db(concert_singer):
    with Database(str(concert_singer)) as db:
        yield db


def _ctx(db: Database, model, question: str = QUESTION, **options) -> Context:
    return Context(question=question, db=db, models={"default": model}, options=options)


def test_presql_links_the_tables_its_draft_uses(concert_db, local_model):
    ctx = _ctx(concert_db, local_model)
    subset = link(ctx, "presql")
    assert "singer" in subset.tables and "Name" in subset.tables["singer"].columns
    assert ctx.trace.usage().llm_calls == 1
    assert ctx.trace.notes("link")[0]["linker"] == "presql"


@pytest.mark.slow
def test_dual_pathway_pruning_with_the_real_model(music_db, local_model):
    """Both grammar-constrained passes with the real model, on the two-table music database: on concert_singer
    (four wide tables) the 0.5B model's deletion pass listed invented columns up to the token limit, then again
    in the repair call (700 tokens, 79 s on one core); here each pass answers in under 70 tokens."""
    with Database(str(music_db)) as db:
        ctx = _ctx(db, local_model, "How many singers are from France?")
        subset = dual_pathway(ctx, "1. Find the singers from France\n2. Count them", ctx.schema)
        calls = [e for e in ctx.trace.events if e.kind == "model"]
        assert [e.step for e in calls][:2] == ["link.prune_delete", "link.prune_select"]
        # the grammar held: each pass answered a JSON object (a pass with no answer would keep every column)
        assert all(e.error is None and isinstance(json.loads(e.outputs[0]), dict) for e in calls[:2])
        assert set(subset.tables) <= set(ctx.schema.table_names)
        assert subset.tables  # the union rule keeps whatever the selection pass names


@pytest.mark.slow
def test_table_verification_runs_real_queries(concert_db, local_model):
    # The verdict read leniently: grammar-constrained JSON (ask_json's default) took 3x longer on the CPU, and
    # test_dual_pathway_pruning_with_the_real_model runs that path of ask_json with the real model already.
    ctx = _ctx(concert_db, local_model, verify_queries=2, link_json_schema=False)
    verdict = verify_table(ctx, ctx.schema.table("concert"), "filter", "holds the year of each concert")
    queries = [e for e in ctx.trace.events if e.kind == "query"]
    assert queries and all(q.step == "link.explore:concert" for q in queries)
    assert verdict.observations
    assert set(verdict.columns) <= {c.name for c in ctx.schema.table("concert").columns}
