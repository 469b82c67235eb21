"""The vector linker: lexical (BM25 + fuzzy) retrieval by default, the embedding backend when installed."""

from __future__ import annotations

import json

import pytest

from groundsql.linking import link
from groundsql.linking.lexical import BM25, LexicalRetriever, words
from groundsql.linking.vector import lexical_entities

from .conftest import make_ctx


@pytest.mark.unit
def test_words_split_names_and_drop_plurals_and_stopwords():
    assert words("Song_release_year") == ["song", "release", "year"]
    assert words("AirportCode of the airports") == ["airport", "code", "airport"]


@pytest.mark.unit
def test_bm25_prefers_rarer_matching_terms():
    scores = BM25([["singer", "name"], ["concert", "name"], ["stadium", "capacity"]]).scores(["singer", "name"])
    assert scores[0] > scores[1] > scores[2] == 0


@pytest.mark.unit
def test_lexical_retriever_matches_misspelt_names():
    retriever = LexicalRetriever(["stadium capacity", "singer age"], ["stadium capacity", "singer age"])
    scores = retriever.scores("stadum capacity")
    assert scores[0] > scores[1]


@pytest.mark.unit
def test_lexical_entities():
    assert lexical_entities("What is the average age of singers from France?") == [
        "average age", "average", "age", "singers", "France"]


@pytest.mark.integration
def test_vector_links_the_right_tables_with_their_keys(school):
    ctx = make_ctx(school, "What is the average grade of students from Japan?", vector_backend="lexical",
                   vector_k=4)
    subset = link(ctx, "vector")
    assert {"student", "enrollment"} <= set(subset.tables)
    assert "grade" in subset.tables["enrollment"].columns
    assert "country" in subset.tables["student"].columns
    assert "student_id" in subset.tables["student"].columns  # key of a retrieved table
    assert "audit_log" not in subset.tables
    assert ctx.trace.usage().llm_calls == 0


@pytest.mark.integration
def test_vector_entities_from_the_model(school):
    ctx = make_ctx(school, "Who teaches compilers?", [json.dumps({"entities": ["teacher", "Compilers"]})],
                   vector_entities="model", vector_backend="lexical", vector_k=3)
    subset = link(ctx, "vector")
    assert "teacher" in subset.tables and "course" in subset.tables
    assert ctx.trace.usage().llm_calls == 1


@pytest.mark.integration
def test_embedding_backend_when_installed(school):
    pytest.importorskip("sentence_transformers", reason="the optional 'vector' extra is not installed")
    ctx = make_ctx(school, "What is the average grade of pupils?", vector_backend="embedding", vector_k=3)
    subset = link(ctx, "vector")
    assert "enrollment" in subset.tables


@pytest.mark.integration
def test_vector_on_spider(spider_dir):
    from groundsql.db import Database

    with Database(str(spider_dir / "database" / "flight_2" / "flight_2.sqlite")) as db:
        ctx = make_ctx(db, "Give the flight numbers of flights leaving from Aberdeen.", vector_backend="lexical")
        subset = link(ctx, "vector")
    assert "FlightNo" in subset.tables["flights"].columns
    assert "City" in subset.tables["airports"].columns


@pytest.mark.integration
def test_vector_groups_keeps_one_joinable_group(school):
    from groundsql.linking.connectivity import adjacency, connecting_edges, join_graph

    ctx = make_ctx(school, "Which log message mentions the grade of a student?", vector_backend="lexical",
                   vector_groups=1, link_connect=False, link_ground=False)
    subset = link(ctx, "vector")
    names = list(subset.tables)
    assert not ("audit_log" in names and len(names) > 1)  # audit_log joins nothing: never kept with others
    if len(names) > 1:
        edges = connecting_edges(adjacency(join_graph(ctx)), names, 3)
        touched = {t.lower() for r in edges for t in (r.table, r.ref_table)}
        assert {n.lower() for n in names} <= touched


@pytest.mark.unit
def test_vector_tables_adds_the_best_matching_tables_with_their_best_columns(school):
    def linked(**options):
        return link(make_ctx(school, "What is the average grade of students from Japan?", vector_backend="lexical",
                             vector_k=1, link_connect=False, link_ground=False, **options), "vector")

    plain, wider = linked(), linked(vector_tables=2)
    assert set(plain.tables) < set(wider.tables)  # the column ranking kept one column; two tables now
    assert len(wider.tables) == 2 and {"student", "enrollment"} == set(wider.tables)
    added = next(t for t in wider.tables.values() if t.name not in plain.tables)
    assert "table document matches the question" in added.reason
    assert 1 <= len([c for c in added.columns.values() if c.reason == "a best column of a best-matching table"]) <= 3
    assert "audit_log" not in wider.tables
