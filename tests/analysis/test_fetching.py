"""The fetching loop on a real SQLite database with a scripted model: rounds, views over views, budgets,
repair and re-asking of malformed definitions, materialized files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from groundsql.analysis.compile import tables_of
from groundsql.analysis.fetching import FetchOptions, ViewStore, fetch_views
from groundsql.analysis.repair import repair_view
from groundsql.context import Context
from groundsql.db import Database
from groundsql.models.scripted import ScriptedModel

pytestmark = pytest.mark.integration

SALES = {"name": "singer_sales", "source": "song",
         "joins": [{"table": "singer", "on": [{"left": "song.singer_id", "right": "singer.singer_id"}]}],
         "dimensions": [{"expr": "singer.country"}], "metrics": [{"agg": "sum", "expr": "song.sales", "alias": "total"}]}
TOP = {"name": "top_country", "source": "singer_sales", "dimensions": [{"expr": "country"}, {"expr": "total"}],
       "order": [{"expr": "total", "desc": True}], "limit": 1}


def batch(*views: dict, done: bool = False, answer: str | None = None) -> str:
    return json.dumps({"thought": "", "views": list(views), "done": done, "answer_view": answer})


def context(db_path: Path, replies: list, **options) -> tuple[Context, ScriptedModel]:
    model = ScriptedModel(replies)
    return Context(question="Which country sells most?", db=Database(str(db_path)), models={"default": model},
                   options=options), model


def run(ctx: Context, store: ViewStore, **options):
    return fetch_views(ctx, "schema text", tables_of(ctx.schema), store, FetchOptions(**options))


def test_rounds_build_views_on_earlier_views(music_db: Path) -> None:
    ctx, model = context(music_db, ["plan: sum per country, then the top one",
                                    batch(SALES), batch(TOP, done=True, answer="top_country")])
    with ViewStore() as store:
        fetch = run(ctx, store)
        assert [v.view.name for v in fetch.views] == ["singer_sales", "top_country"]
        assert fetch.answer_view == "top_country" and fetch.rounds == 2 and fetch.plan.startswith("plan")
        top = fetch.views[1]
        assert top.sql.startswith('WITH "singer_sales" AS (')
        assert top.result.rows == [("France", 13.5)]
        with open(top.path, newline="") as handle:
            assert list(csv.reader(handle)) == [["country", "total"], ["France", "13.5"]]
        folder = store.folder
    assert not folder.exists(), "the view folder is removed afterwards"
    second_prompt = model.calls[2]["messages"][0]["content"]
    assert "view singer_sales: 3 rows; columns: country, total" in second_prompt


def test_a_failing_view_is_sent_back_with_the_nearest_names(music_db: Path) -> None:
    bad = {**SALES, "metrics": [{"agg": "sum", "expr": "song.sale", "alias": "total"}]}
    ctx, model = context(music_db, ["", batch(bad), batch(SALES, done=True)], plan=True)
    with ViewStore() as store:
        fetch = run(ctx, store)
    assert [v.view.name for v in fetch.views] == ["singer_sales"]
    fix = model.calls[2]["messages"][-1]["content"]
    assert "song has no column 'sale'" in fix and "song.sales" in fix
    assert any("song.sale" in p for p in fetch.problems)


def test_malformed_replies_never_crash(music_db: Path) -> None:
    ctx, _ = context(music_db, ["no json at all", "still { not json", '{"views": "oops"}', "[1, 2]",
                                batch({"name": "x", "source": "nowhere"}), batch({"op": "drop"})],
                     )
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False, constrained=False, rounds=2, fix_attempts=2)
    assert fetch.views == [] and fetch.problems


def test_lenient_shapes_are_repaired_without_asking_again(music_db: Path) -> None:
    sloppy = {"view_name": "per country", "from": "song", "join": {"with": "singer", "on": ["song.singer_id", "singer.singer_id"]},
              "group_by": ["singer.country"], "aggregates": ["SUM(song.sales)"], "order_by": "sum_song_sales DESC",
              "comment": "ignored"}
    ctx, model = context(music_db, [json.dumps({"views": [sloppy], "done": True})])
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False, constrained=False)
    assert len(model.calls) == 1
    view = fetch.views[0]
    assert view.view.name == "per_country" and view.columns == ["country", "sum_song_sales"]
    assert view.result.rows[0] == ("France", 13.5)


def test_a_made_up_source_is_replaced_by_the_real_table_it_joins(music_db: Path) -> None:
    invented = {"name": "v", "source": "song_sales_view",
                "joins": [{"table": "song", "on": [{"left": "singer_id", "right": "song.singer_id[1,3,4]"}]}],
                "dimensions": [{"expr": "song.title"}]}
    ctx, _ = context(music_db, [batch(invented, done=True)])
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False)
    assert fetch.views[0].sql == 'SELECT "song"."title" FROM "song"'


def test_a_view_named_like_a_table_is_renamed_without_asking_again(music_db: Path) -> None:
    """The 1.5B model named a view after the table it read; the compiler refused it and the re-asks did too."""
    first = {"name": "song", "source": "song", "dimensions": [{"expr": "song.title"}]}
    second = {"name": "song", "source": "singer", "dimensions": [{"expr": "singer.name"}]}
    ctx, model = context(music_db, [batch(first, second, done=True)])
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False)
    assert [v.view.name for v in fetch.views] == ["song_view", "song_view2"] and len(model.calls) == 1
    assert fetch.views[0].sql == 'SELECT "song"."title" FROM "song"'
    notes = [n["notes"] for n in ctx.trace.notes("prospy.view")]
    assert notes[0] == ["renamed view 'song' to 'song_view': a table has that name"]


def test_budgets_bound_views_rounds_and_rows(music_db: Path) -> None:
    many = [{"name": f"v{i}", "source": "song", "dimensions": [{"expr": "title"}]} for i in range(5)]
    ctx, _ = context(music_db, [batch(*many)] + [batch({"name": "later", "source": "song"})] * 5)
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False, max_views=3, max_rows=2, rounds=2, fix_attempts=0)
    assert [v.view.name for v in fetch.views] == ["v0", "v1", "v2"]
    assert all(v.row_count == 2 and v.truncated for v in fetch.views)
    assert any("view budget" in p for p in fetch.problems)


def test_queries_go_through_the_guarded_database(music_db: Path) -> None:
    ctx, _ = context(music_db, [batch(SALES, done=True)])
    with ViewStore() as store:
        run(ctx, store, plan=False)
    queries = [e for e in ctx.trace.events if getattr(e, "kind", "") == "query"]
    assert [q.step for q in queries] == ["prospy.fetch"] and queries[0].ok


@pytest.mark.unit
def test_repair_view_maps_common_spellings() -> None:
    view, notes = repair_view({"name": "a b", "table": "t", "columns": "x", "measures": [{"function": "mean",
                               "column": "y"}], "where": {"operator": "==", "field": "z", "value": 1}, "extra": 1})
    assert view["name"] == "a_b" and view["source"] == "t" and view["dimensions"] == ["x"]
    assert view["metrics"] == [{"agg": "mean", "expr": "y", "alias": "mean_y"}]
    assert view["conditions"] == [{"op": "==", "column": "z", "value": 1}] and notes == ["ignored unknown field 'extra'"]


def test_an_aggregate_written_as_a_dimension_becomes_a_metric(music_db: Path) -> None:
    view = {"name": "v", "source": "song", "dimensions": [{"expr": "singer_id"}, {"expr": "sum(sales)", "alias": "t"}]}
    ctx, _ = context(music_db, [batch(view, done=True)])
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False)
    assert fetch.views[0].sql == ('SELECT "song"."singer_id", SUM("song"."sales") AS "t" FROM "song" '
                                  'GROUP BY "song"."singer_id"')


def test_on_the_last_attempt_a_view_is_salvaged_without_its_broken_parts(music_db: Path) -> None:
    view = {"name": "v", "source": "song", "dimensions": [{"expr": "title"}, {"expr": "genre"}],
            "conditions": [{"op": "=", "column": "mood", "value": "happy"}], "order": [{"expr": "title"}]}
    ctx, model = context(music_db, [batch(view), batch(view, done=True)])
    with ViewStore() as store:
        fetch = run(ctx, store, plan=False, fix_attempts=1)
    assert len(model.calls) == 2, "the model gets one chance to fix it first"
    assert fetch.views[0].sql == 'SELECT "song"."title" FROM "song" ORDER BY "title"'
    note = ctx.trace.notes("prospy.view")[0]
    assert any("dropped dimensions[1]" in n for n in note["notes"]) and any("conditions[0]" in n for n in note["notes"])


@pytest.mark.unit
def test_the_example_view_names_real_tables_compiles_and_joins_nothing(music_db: Path) -> None:
    """Small models copy the example: one with a join was copied into answers that needed none."""
    from groundsql.analysis.compile import ViewCompiler
    from groundsql.analysis.dsl import View
    from groundsql.analysis.fetching import example_join, example_view
    from groundsql.catalog import introspect

    schema = introspect(Database(str(music_db)))
    lines = example_view(schema, ["song", "singer"]).splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == ["To list rows", "To count (or sum, average) per group"]
    listing, counting = (json.loads(line.split(": ", 1)[1]) for line in lines)
    compiler = ViewCompiler(tables_of(schema), "sqlite")
    assert listing["source"] == counting["source"] == "singer"
    assert not {"joins", "limit", "order", "metrics"} & set(listing) and not {"joins", "limit"} & set(counting)
    assert compiler.compile(View.model_validate(listing)).sql("sqlite").startswith(
        'SELECT "singer"."name", "singer"."country" FROM "singer"')
    assert compiler.compile(View.model_validate(counting)).sql("sqlite").startswith(
        'SELECT "singer"."country", COUNT(*) AS "row_count" FROM "singer" GROUP BY')
    joined = {"name": "v", "source": "song", **json.loads("{" + example_join(schema, ["song", "singer"]) + "}")}
    assert joined["joins"] == [{"table": "singer", "type": "inner", "on": [["song.singer_id", "singer.singer_id"]]}]
    sql = ViewCompiler(tables_of(schema), "sqlite").compile(View.model_validate(joined)).sql("sqlite")
    assert 'FROM "song" JOIN "singer" ON' in sql
    assert json.loads("{" + example_join(schema, ["song"]) + "}")["joins"][0]["table"] == "other_table"
