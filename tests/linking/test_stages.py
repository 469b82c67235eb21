"""Control flow of the model-driven linkers on a real database, with a scripted model routing by prompt.

Queries the agents write really run through `Database.execute`; the real model is exercised in test_e2e.py.
"""

from __future__ import annotations

import json

import pytest

from groundsql.context import Context
from groundsql.linking import link
from groundsql.linking.planning import master_plan
from groundsql.linking.verification import exploration_queries
from groundsql.models import ScriptedModel

pytestmark = pytest.mark.integration

QUESTION = "Which courses does the student from France take?"


def apex_router(messages):
    text = messages[-1]["content"]
    if text.startswith("Query results:"):
        return json.dumps({"tables": [{"table": "course", "columns": [{"column": "title", "reason": "answer"}]}],
                           "rejected": [{"table": "student", "column": "student_id", "reason": "test rejection"}],
                           "queries": []})
    if "abstract steps" in text:
        return "1. Find the student from France\n2. Find the courses taken"
    if "Combine them into one complete master plan" in text:
        return "1. Find students whose country is France\n2. Link students to courses\n3. Return titles"
    if "certainly have nothing to do" in text:
        return json.dumps({"irrelevant_tables": ["audit_log", "sales_2019", "sales_2020", "teacher", "course"],
                           "irrelevant_columns": [{"table": "student", "columns": ["birth_year"]}]})
    if "choosing the part of a database schema" in text:
        return json.dumps({"relevant_tables": ["student"], "relevant_columns": [
            {"table": "course", "columns": ["course_id", "title"]}]})
    if "which role it plays" in text:
        return json.dumps({"database": "students and courses", "tables": [
            {"table": "student", "role": "filter", "reason": "country"},
            {"table": "course", "role": "target", "reason": "title"},
            {"table": "enrollment", "role": "bridge", "reason": "links students and courses"}]})
    if "really fits the role" in text:
        table = text.split("CREATE TABLE ")[1].split(" ")[0]
        return f"```sql\n-- grain\nSELECT count(*) FROM {table} LIMIT 5;\nSELECT * FROM {table} LIMIT 2;\n```"
    if "Decide whether the table" in text:
        table = text.split("`")[1]
        columns = {"student": ["country", "student_id"], "course": ["title", "course_id"],
                   "enrollment": ["student_id", "course_id"]}.get(table, [])
        return json.dumps({"relevant": bool(columns), "summary": f"{table} checked",
                           "columns": [{"column": c, "reason": "needed", "observation": "filled"}
                                       for c in columns]})
    if "final choice of columns" in text:
        return json.dumps({"tables": [], "queries": ["SELECT count(*) FROM enrollment"]})
    raise AssertionError(f"unexpected prompt: {text[:200]}")


def _ctx(db, router, **options) -> Context:
    model = ScriptedModel(default=router)
    return Context(question=QUESTION, db=db, models={"default": model}, options=options)


def test_apex_runs_every_stage_and_queries_the_database(school):
    ctx = _ctx(school, apex_router, exact_verify=False)
    subset = link(ctx, "apex")
    mapping = subset.as_mapping()
    assert set(mapping) == {"student", "course", "enrollment"}
    assert "title" in mapping["course"] and "country" in mapping["student"]
    assert set(mapping["enrollment"]) == {"student_id", "course_id"}
    # the explicitly rejected column came back only as a join key of the connectivity repair
    assert "join key" in subset.tables["student"].columns["student_id"].reason
    assert any("rejected student.student_id" in n for n in subset.notes)
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    assert steps[:4] == ["link.plan", "link.plan_merge", "link.prune_delete", "link.prune_select"]
    assert steps.count("link.synthesize") == 2  # one verification round, then the decision
    queries = [e for e in ctx.trace.events if e.kind == "query" and e.step.startswith("link.explore")]
    assert len(queries) == 6 and all(q.ok for q in queries)  # two probes for each of three tables
    assert ctx.trace.notes("plan")[0]["plan"].startswith("1. Find students")
    assert ctx.trace.notes("link")[0]["linker"] == "apex"


def test_master_plan_is_cached_for_generation(school):
    ctx = _ctx(school, apex_router)
    first = master_plan(ctx)
    calls = ctx.trace.usage().llm_calls
    assert master_plan(ctx) == first and ctx.trace.usage().llm_calls == calls


def test_exploration_queries_keep_only_selects():
    reply = "Here:\n```sql\n-- a\nSELECT 1;\nDROP TABLE x;\nSELECT a FROM t LIMIT 3\n```\nDone."
    assert exploration_queries(reply, "sqlite") == ["SELECT 1", "SELECT a FROM t LIMIT 3"]
    # small models separate queries by blank lines or comments instead of semicolons
    loose = "-- values\nSELECT DISTINCT a FROM t\n\n-- grain\nSELECT count(*) FROM t\n-- more\nSELECT b FROM t"
    assert exploration_queries(loose, "sqlite") == ["SELECT DISTINCT a FROM t", "SELECT COUNT(*) FROM t",
                                                    "SELECT b FROM t"]


def test_presql_unions_the_schema_of_the_drafts(school):
    drafts = iter(["```sql\nSELECT c.title FROM course c JOIN enrollment e ON e.course_id = c.course_id\n```",
                   "SELECT s.name FROM student AS s WHERE s.country = 'France'"])
    ctx = _ctx(school, lambda messages: next(drafts), presql_samples=2, link_ground=False)
    subset = link(ctx, "presql").as_mapping()
    assert subset["course"] == ["course_id", "title"]
    assert subset["student"][:2] == ["country", "name"]
    assert "audit_log" not in subset and "teacher" not in subset
    prompt = ctx.model().calls[0]["messages"][-1]["content"]
    assert "example rows" in prompt and "'Marie'" in prompt  # sample rows read from the database


def test_progressive_prunes_tables_then_columns(school):
    def router(messages):
        text = messages[-1]["content"]
        if "Tables (name: columns)" in text:
            keep = ["student", "course", "enrollment"] if "coarse" in text else ["student", "course"]
            return json.dumps({"keep": keep})
        return json.dumps({"keep": ["student.country", "course.title", "student.name"]})

    ctx = _ctx(school, router, progressive_tables=2, progressive_columns=1, link_ground=False)
    subset = link(ctx, "progressive").as_mapping()
    assert subset["course"][0] == "title" and subset["student"][:2] == ["name", "country"]
    assert set(subset["enrollment"]) == {"student_id", "course_id"}  # bridge restored by connectivity
    steps = [e.step for e in ctx.trace.events if e.kind == "model"]
    # coarse pass: 7 → 3 tables, then a second call changes nothing and ends it; fine pass: 3 → 2 (compact);
    # columns: 8 → 3, then a call that changes nothing
    assert steps == ["link.progressive:tables"] * 3 + ["link.progressive:columns"] * 2


def test_vector_then_apex_chain(school):
    ctx = _ctx(school, apex_router, vector_backend="lexical", vector_k=6)
    subset = link(ctx, "vector,apex")
    assert subset.linker == "vector,apex"
    stages = ctx.trace.notes("link_stage")
    assert [s["linker"] for s in stages] == ["vector", "apex"]
    assert set(stages[1]["tables"]) <= set(ctx.schema.table_names)
    prune_prompt = next(e for e in ctx.trace.events if getattr(e, "step", "") == "link.prune_delete")
    assert "audit_log" not in prune_prompt.messages[-1]["content"]  # apex saw only vector's tables
