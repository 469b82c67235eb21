"""The `apex` linker's ablation switches (APEX-SQL Table 5): each one removes its stage from what runs.

A scripted model routes by prompt (tests/linking/test_stages.py); the agents' probes really run on SQLite.
"""

from __future__ import annotations

import json

import pytest

from groundsql.budgets import PROFILES, budget_value
from groundsql.context import Context
from groundsql.linking import link
from groundsql.linking.apex import ApexLinkOptions
from groundsql.linking.pruning import kept_elements
from groundsql.models import ScriptedModel

from .test_stages import QUESTION, apex_router

pytestmark = pytest.mark.integration


def _router_with_column_roles(messages):
    text = messages[-1]["content"]
    if "which role it plays" in text:
        return json.dumps({"database": "students and courses", "tables": [
            {"table": "student", "role": "filter", "reason": "country",
             "columns": [{"column": "country", "role": "filter"}, {"column": "student_id", "role": "join key"}]},
            {"table": "course", "role": "target", "reason": "title",
             "columns": [{"column": "title", "role": "return"}]},
            {"table": "enrollment", "role": "bridge", "reason": "links students and courses"}]})
    return apex_router(messages)


def _run(db, **options):
    options.setdefault("exact_verify", False)  # the paper's path: an agent for every table
    model = ScriptedModel(default=_router_with_column_roles)
    ctx = Context(question=QUESTION, db=db, models={"default": model}, options=options)
    subset = link(ctx, "apex")
    steps = [e.step.split(":")[0] for e in ctx.trace.events if e.kind == "model"]
    probes = [e for e in ctx.trace.events if e.kind == "query" and e.step.startswith("link.explore")]
    return ctx, subset, steps, probes, model


def test_full_linker_runs_every_stage_with_per_column_roles(school):
    ctx, subset, steps, probes, model = _run(school)
    assert {"link.plan", "link.plan_merge", "link.prune_delete", "link.prune_select", "link.semantic",
            "link.explore", "link.verify", "link.synthesize"} <= set(steps)
    assert probes
    assert ctx.trace.notes("link.apex")[0]["stages"] == {
        "planning": True, "pruning": "dual", "semantic_linking": True, "profiling": True, "global_synthesis": True}
    roles = ctx.trace.notes("link.roles")[0]
    assert roles["columns"]["student"] == {"country": "filter", "student_id": "join"}
    assert roles["columns"]["course"] == {"title": "return"}
    explore_prompt = next(c["messages"][-1]["content"] for c in model.calls
                          if "really fits the role" in c["messages"][-1]["content"]
                          and "CREATE TABLE student" in c["messages"][-1]["content"])
    assert "Column roles: country (filter), student_id (join)" in explore_prompt
    synthesis_prompt = next(c["messages"][0]["content"] for c in model.calls
                            if "final choice of columns" in c["messages"][0]["content"])
    assert "title (TEXT) [return]" in synthesis_prompt


@pytest.mark.parametrize("options, absent", [
    ({"planning": False}, {"link.plan", "link.plan_merge"}),
    ({"pruning": "delete"}, {"link.prune_select"}),
    ({"pruning": "select"}, {"link.prune_delete"}),
    ({"semantic_linking": False}, {"link.semantic"}),
    ({"profiling": False}, {"link.explore", "link.verify"}),
    ({"verify_queries": 0}, {"link.explore", "link.verify"}),
    ({"global_synthesis": False}, {"link.synthesize"}),
])
def test_each_ablation_removes_its_stage(school, options, absent):
    ctx, subset, steps, probes, _ = _run(school, **options)
    assert not absent & set(steps), steps
    assert subset.tables  # the linker still returns a schema
    stages = ctx.trace.notes("link.apex")[0]["stages"]
    if "link.explore" in absent:
        assert probes == [] and stages["profiling"] is False  # verify_queries=0 no longer probes
    if options.get("planning") is False:
        assert ctx.trace.notes("plan") == [] and stages["planning"] is False
        prompt = ctx.models["default"].calls[0]["messages"][-1]["content"]
        assert "(no plan)" in prompt
    if "pruning" in options:
        assert stages["pruning"] == options["pruning"]
    if options.get("global_synthesis") is False:
        assert any("no global synthesis" in n for n in subset.notes)


def test_pruning_modes_keep_what_the_paper_says():
    batch = [("t", "a"), ("t", "b"), ("t", "c")]
    deleted, selected = {("t", "a"), ("t", "b")}, {("t", "b")}
    assert kept_elements("dual", batch, deleted, selected) == {("t", "b"), ("t", "c")}
    assert kept_elements("delete", batch, deleted, selected) == {("t", "c")}
    assert kept_elements("select", batch, deleted, selected) == {("t", "b")}


def test_budget_profiles_set_the_linker_numbers_unless_given(school):
    small = ApexLinkOptions()
    paper = ApexLinkOptions(budget="paper")
    assert budget_value(small, "verify_queries") == 3 and budget_value(paper, "verify_queries") == 8
    assert budget_value(small, "verify_tables") == 12 and budget_value(paper, "verify_tables") is None
    assert budget_value(ApexLinkOptions(budget="paper", verify_queries=2), "verify_queries") == 2
    assert PROFILES["paper"].link_batch_tokens == 12000
    # under the paper profile each table gets up to eight probes: the scripted agent writes two per table
    ctx, _, _, probes, model = _run(school, budget="paper")
    explore_prompt = next(c["messages"][-1]["content"] for c in model.calls
                          if "really fits the role" in c["messages"][-1]["content"])
    assert "Write 8 short read-only queries" in explore_prompt
    assert ctx.trace.notes("link.apex")[0]["budget"] == "paper"


def test_names_view_prunes_with_one_line_per_table(school):
    ctx, subset, steps, _, model = _run(school, prune_view="names")
    prompt = next(c["messages"][-1]["content"] for c in model.calls
                  if "certainly have nothing to do" in c["messages"][-1]["content"])
    assert "CREATE TABLE" not in prompt and "student: student_id (key)" in prompt
    assert ctx.trace.notes("link.pruned")[0]["view"] == "names" and subset.tables


def test_tables_the_question_names_are_kept_without_their_profiling_calls(school):
    """The exact check keeps 'student' and 'course' (named by the question) and 'enrollment' (it joins them):
    none of them costs an exploration or a verification call, and no column of theirs is lost."""
    ctx, subset, steps, probes, _ = _run(school, exact_verify=True)
    assert "link.explore" not in steps and "link.verify" not in steps and not probes
    assert ctx.trace.notes("link.exact_verdicts")[0]["verdicts"] == {
        "student": "named by the question", "course": "named by the question",
        "enrollment": "joins two tables the question names"}
    mapping = subset.as_mapping()
    assert set(mapping) == {"student", "course", "enrollment"}
    assert {"student_id", "course_id"} <= set(mapping["enrollment"])


def test_a_value_the_question_names_keeps_the_table_that_stores_it(school):
    from groundsql.linking.apex import exact_verdicts
    from groundsql.linking.semantic import RoleMap

    ctx = Context(question="Who teaches Compilers?", db=school, models={"default": ScriptedModel()})
    verdicts = {v.table: v for v in exact_verdicts(ctx, ctx.schema, RoleMap())}
    assert set(verdicts) == {"course"}  # no table is named; 'Compilers' is a stored course title
    course = verdicts["course"]
    assert course.summary == "stores a value the question names" and not course.verified
    assert course.columns["title"] == ("stores a value of the question", "'Compilers'")
    assert set(course.columns) == {"course_id", "title", "credits", "teacher_id"}  # every column stays
