"""ProSPy's switches change what runs: the example views, the exact example-column check, profiling, the Python
stage on `python=auto`, the ablations "direct SQL" and "SQL + majority vote", lineage-aware view descriptions.
Scripted replies by prompt, a real SQLite database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.models import ScriptedModel
from groundsql.options import OptionsError
from groundsql.pipelines.prospy import needs_analysis, without_example_columns

pytestmark = pytest.mark.integration

LIST_QUESTION = "Which singers are from France?"
FRENCH = "SELECT name FROM singer WHERE country = 'France'"
#: The 1.5B's answer view: the question's list, plus the counting example's metric.
COPIED = {"name": "french", "source": "singer", "dimensions": [{"expr": "singer.name", "alias": "name"}],
          "metrics": [{"agg": "count", "expr": "*", "alias": "row_count"}],
          "conditions": [{"op": "=", "column": "singer.country", "value": "France"}]}
PLAIN = {"name": "french", "source": "singer", "dimensions": [{"expr": "singer.name", "alias": "name"}],
         "conditions": [{"op": "=", "column": "singer.country", "value": "France"}]}
SALES = {"name": "sales", "source": "song",
         "joins": [{"table": "singer", "on": [{"left": "song.singer_id", "right": "singer.singer_id"}]}],
         "dimensions": [{"expr": "singer.name", "alias": "name"}],
         "metrics": [{"agg": "sum", "expr": "song.sales", "alias": "total"}]}
CODE = ("```python\nimport pandas as pd\ndf = pd.read_csv('{file}')\n"
        "df[['name']].head(1).to_csv('result.csv', index=False)\n```")


class Script:
    """Replies by prompt: plan, views, Python code, one-call SQL; the prompts are kept per kind."""

    def __init__(self, view: dict, *, sql: str = FRENCH, answer_view: str | None = "french",
                 repaired: str | None = None):
        self.view, self.sql, self.answer_view, self.repaired = view, sql, answer_view, repaired
        self.prompts: dict[str, list[str]] = {}
        self.model = ScriptedModel(default=self.reply)

    def reply(self, messages) -> str:
        prompt = messages[-1]["content"]
        kind = ("plan" if "You are planning" in messages[0]["content"] else
                "views" if "You fetch data" in prompt else
                "repair" if "This query was written for the question" in prompt else
                "sql" if "with a few example rows for each table" in prompt else "python")
        self.prompts.setdefault(kind, []).append(prompt)
        if kind == "plan":
            return "1. fetch the rows"
        if kind == "views":
            return json.dumps({"thought": "", "views": [self.view], "done": True, "answer_view": self.answer_view})
        if kind == "sql" or (kind == "repair" and self.repaired is None):
            return f"```sql\n{self.sql}\n```"
        if kind == "repair":
            return f"```sql\n{self.repaired}\n```"
        return CODE.format(file=f"{self.view['name']}.csv")


def _ask(db: Path, script: Script, question: str = LIST_QUESTION, **options):
    """prospy with `options`; the paper's path (draft=false) unless a test asks for the draft."""
    return ask(question, str(db), model=script.model, preset="prospy", options={"draft": False} | options)


def _steps(answer) -> list[str]:
    return [e.step for e in answer.trace.events if e.kind == "model"]


def test_the_default_example_lists_rows_and_shows_no_count(music_db):
    script = Script(PLAIN)
    _ask(music_db, script)
    prompt = script.prompts["views"][0]
    assert "To list rows" in prompt and "row_count" not in prompt and "To count" not in prompt


@pytest.mark.parametrize(("choice", "present", "absent"), [
    ("list_and_count", ["To list rows", "row_count"], []),
    ("none", [], ["To list rows", "Views look like these"]),
])
def test_view_example_switch(music_db, choice, present, absent):
    script = Script(PLAIN)
    _ask(music_db, script, view_example=choice)
    prompt = script.prompts["views"][0]
    assert all(p in prompt for p in present) and not any(a in prompt for a in absent)


def test_a_copied_row_count_is_removed_exactly(music_db):
    answer = _ask(music_db, Script(COPIED))
    assert answer.result.columns == ["name"] and sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    note = answer.trace.notes("prospy.example-check")[0]
    assert note["kept"] and "row_count" in note["before"] and "row_count" not in note["after"]


def test_example_check_false_keeps_the_copied_column(music_db):
    answer = _ask(music_db, Script(COPIED), example_check=False, shape_repair=False)
    assert answer.result.columns == ["name", "row_count"] and not answer.trace.notes("prospy.example-check")


@pytest.mark.unit
def test_without_example_columns_keeps_an_asked_number_and_the_ordering():
    sql = "SELECT country, COUNT(*) AS row_count FROM singer GROUP BY country ORDER BY row_count DESC LIMIT 1"
    assert without_example_columns(sql, "sqlite", "Which country has the most singers?") == \
        "SELECT country FROM singer GROUP BY country ORDER BY COUNT(*) DESC LIMIT 1"
    assert without_example_columns(sql, "sqlite", "List each country with the number of singers.") is None
    assert without_example_columns("SELECT COUNT(*) AS row_count FROM singer", "sqlite", "Which singers?") is None


@pytest.mark.parametrize(("repair", "rows"), [(True, 2), (False, 1)])
def test_shape_repair_drops_an_unasked_limit_of_the_answer_view(music_db, repair, rows):
    answer = _ask(music_db, Script({**PLAIN, "limit": 1}), shape_repair=repair)
    assert answer.result.row_count == rows and bool(answer.trace.notes("shape-repair")) is repair


def test_profile_false_builds_and_uses_no_catalog(music_db):
    answer = _ask(music_db, Script(PLAIN), profile=False)
    assert answer.trace.notes("catalog") == [] and answer.trace.notes("prospy.profile")[0]["skipped"]
    assert _ask(music_db, Script(PLAIN)).trace.notes("catalog")  # profiled by default


@pytest.mark.unit
@pytest.mark.parametrize(("question", "needed"), [
    ("What is the median unit price of the products in each category?", True),
    ("Total invoice amount per year and its growth over the previous year in percent.", True),
    ("For each month of 2023, give the revenue and the running total.", True),
    ("What share of all sales does each genre have?", True),
    ("In each country, which customer has the highest total of invoices?", True),
    ("What is the language spoken by the largest percentage of people in each country?", False),
    ("For each citizenship, what is the maximum net worth?", False),
    ("Which singers are from France?", False),
    ("How many singers are there in each country?", False),
    ("Which singer has the most songs?", False),
])
def test_needs_analysis_reads_the_question(question, needed):
    assert needs_analysis(question) is needed


def test_python_auto_skips_the_stage_for_a_question_sql_answers(music_db):
    answer = _ask(music_db, Script(PLAIN, answer_view=None))
    assert not any(s.startswith("prospy.python") for s in _steps(answer))
    assert answer.trace.notes("prospy.python-stage")[0] == {"run": False, "mode": "auto", "needs_analysis": False}
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)] and answer.result_source == "sql"


def test_python_auto_runs_the_stage_for_analysis(music_db):
    script = Script(SALES, answer_view="sales")
    answer = _ask(music_db, script, "What is the median song sales of each singer?")
    assert "prospy.python:1" in _steps(answer) and answer.trace.notes("prospy.python-stage")[0]["run"]


def test_python_always_runs_the_stage_even_when_a_view_answers(music_db):
    answer = _ask(music_db, Script(PLAIN), python="always")
    assert "prospy.python:1" in _steps(answer)


def test_fetching_sql_replaces_the_dsl_with_one_direct_query(music_db):
    script = Script(PLAIN)
    answer = _ask(music_db, script, fetching="sql")
    steps = _steps(answer)
    assert "prospy.sql" in steps and not any(s.startswith("prospy.views") for s in steps)
    assert [v["name"] for v in answer.views] == ["answer"] and sorted(answer.result.rows) == [("Ann",), ("Joe",)]


def test_fetching_sql_vote_votes_over_samples_without_views_or_python(music_db):
    script = Script(PLAIN)
    answer = _ask(music_db, script, fetching="sql_vote", vote_samples=3)
    calls = [e for e in answer.trace.events if e.kind == "model"]
    assert [c.step for c in calls] == ["prospy.plan"] * 0 + ["prospy.sql-vote"]
    assert len(answer.candidates) == 3 and answer.trace.notes("vote") and not answer.views
    assert answer.sql == FRENCH


def test_view_lineage_describes_columns_by_their_sources(music_db):
    script = Script(SALES, answer_view="sales")
    _ask(music_db, script, python="always")
    files = script.prompts["python"][0]
    assert "from: song; singer" in files or "from: singer; song" in files
    assert "- name: singer.name" in files and "- total: SUM(" in files and "song.sales" in files
    script = Script(SALES, answer_view="sales")
    _ask(music_db, script, python="always", view_lineage=False)
    assert "- name: singer.name" not in script.prompts["python"][0]


def test_prospy_options_are_typed(music_db):
    with pytest.raises(OptionsError, match="fetching"):
        _ask(music_db, Script(PLAIN), fetching="python")


def test_a_draft_that_settles_is_the_answer_with_no_profiling_views_or_python(music_db):
    """draft=true: the one-call query first; it runs, returns rows and passes the exact checks, so it answers."""
    script = Script(PLAIN)
    answer = _ask(music_db, script, draft=True)
    assert _steps(answer) == ["prospy:draft"] and answer.trace.notes("draft")[0]["kept"]
    assert "views" not in script.prompts and not answer.trace.notes("prospy.python-stage")
    assert answer.stages == {"draft": FRENCH, "view": FRENCH} and sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    assert 0.5 < answer.confidence <= 1.0


def test_a_draft_that_fails_goes_the_papers_way(music_db):
    """A draft that does not run is not kept and cannot answer: the views answer, and the record keeps both
    stages."""
    broken = "SELECT nickname FROM singer WHERE country = 'France'"
    answer = _ask(music_db, Script(PLAIN, sql=broken), draft=True)
    steps = _steps(answer)
    assert steps[0] == "prospy:draft" and not answer.trace.notes("draft")[0]["kept"]
    assert any(s.startswith("prospy.views") for s in steps)
    assert answer.stages["draft"] == broken and "view" in answer.stages
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)] and not answer.trace.notes("prospy.draft-answers")


def test_a_failing_draft_is_repaired_first_and_the_repair_answers(music_db):
    """draft_repair_rounds (2): the draft names a column the table lacks; refine's repair (told the error) fixes it,
    so the repaired draft is the answer and no view is fetched; with 0 rounds the paper's path takes it."""
    broken = "SELECT nickname FROM singer WHERE country = 'France'"
    script = Script(PLAIN, sql=broken, repaired=FRENCH)
    answer = _ask(music_db, script, draft=True)
    assert _steps(answer)[0] == "prospy:draft" and "views" not in script.prompts and script.prompts["repair"]
    [note] = answer.trace.notes("draft-repair")
    assert note["before"] == broken and note["after"] == FRENCH and note["ok"]
    assert answer.sql == FRENCH and sorted(answer.result.rows) == [("Ann",), ("Joe",)]
    unrepaired = Script(PLAIN, sql=broken, repaired=FRENCH)
    answer = _ask(music_db, unrepaired, draft=True, draft_repair_rounds=0)
    assert "repair" not in unrepaired.prompts and unrepaired.prompts["views"]
    assert not answer.trace.notes("draft-repair") and answer.stages["draft"] == broken


def test_an_empty_draft_answers_by_default_and_goes_the_papers_way_with_compare(music_db):
    """flagged_draft=answer: a draft that ran but returned no rows answers as it is (the paper's view path
    answered none of the training databases' empty drafts); with compare the views answer it."""
    nobody = "SELECT name FROM singer WHERE country = 'Atlantis'"
    answer = _ask(music_db, Script(PLAIN, sql=nobody), draft=True)
    assert _steps(answer) == ["prospy:draft"] and answer.trace.notes("prospy.draft-answers")
    assert answer.sql == nobody and answer.result.row_count == 0 and answer.error is None
    assert answer.confidence is not None and answer.confidence < 0.8
    compared = _ask(music_db, Script(PLAIN, sql=nobody), draft=True, flagged_draft="compare")
    assert any(s.startswith("prospy.views") for s in _steps(compared))
    assert sorted(compared.result.rows) == [("Ann",), ("Joe",)] and compared.stages["draft"] == nobody


@pytest.mark.parametrize("options", [{}, {"python": "always"}])
def test_no_draft_where_the_python_stage_is_to_answer(music_db, options):
    """An analysis question (python=auto) or python=always goes the paper's way with no draft at all."""
    question = "What is the median song sales of each singer?" if not options else LIST_QUESTION
    answer = _ask(music_db, Script(SALES, answer_view="sales"), question, draft=True, **options)
    steps = _steps(answer)
    assert "prospy:draft" not in steps and "prospy.python:1" in steps and not answer.trace.notes("draft")


#: A flagged draft that runs with rows: the question asks for every French singer, the draft keeps one.
ONE_FRENCH = "SELECT name FROM singer WHERE country = 'France' LIMIT 1"
#: A view the DSL compiler rejects on every re-ask: the paper's path fetches nothing.
BROKEN = {"name": "french", "source": "singer", "dimensions": [{"expr": "singer.nickname", "alias": "name"}]}


def test_by_default_a_flagged_draft_with_rows_answers_without_the_papers_path(music_db):
    """flagged_draft=answer (default): the draft drew a finding but ran with rows, so it answers at once — no
    profiling, views or Python — and the trace names the findings it carries."""
    script = Script(PLAIN, sql=ONE_FRENCH)
    answer = _ask(music_db, script, draft=True)
    assert _steps(answer) == ["prospy:draft"] and not answer.trace.notes("draft")[0]["kept"]
    [note] = answer.trace.notes("prospy.draft-answers")
    assert note["findings"] and note["sql"] == ONE_FRENCH
    assert answer.sql == ONE_FRENCH and answer.result.row_count == 1 and answer.stages["draft"] == ONE_FRENCH
    assert answer.warnings and answer.confidence is not None and answer.confidence < 0.8


def test_a_flagged_draft_with_rows_answers_when_the_papers_path_fails(music_db):
    """flagged_draft=compare: the views all fail, so the flagged draft that ran with rows is the answer; the
    trace says why and the record keeps the draft stage."""
    answer = _ask(music_db, Script(BROKEN, sql=ONE_FRENCH), draft=True, flagged_draft="compare")
    assert not answer.trace.notes("draft")[0]["kept"]
    assert any(s.startswith("prospy.views") for s in _steps(answer))
    [note] = answer.trace.notes("prospy.draft-fallback")
    assert note["reason"] == "the paper's path failed" and note["draft_sql"] == ONE_FRENCH
    assert answer.error is None and answer.sql == ONE_FRENCH and answer.result.row_count == 1
    assert answer.stages["draft"] == ONE_FRENCH and answer.confidence is not None


def test_with_flagged_draft_papers_the_papers_failure_is_the_answer(music_db):
    answer = _ask(music_db, Script(BROKEN, sql=ONE_FRENCH), draft=True, flagged_draft="papers")
    assert answer.error and "view" in answer.error and not answer.trace.notes("prospy.draft-fallback")


def test_a_papers_answer_cleaner_than_the_flagged_draft_stays(music_db):
    """The views answer cleanly (no finding), the draft drew one: the paper's answer stands."""
    answer = _ask(music_db, Script(PLAIN, sql=ONE_FRENCH), draft=True, flagged_draft="compare")
    assert not answer.trace.notes("draft")[0]["kept"] and not answer.trace.notes("prospy.draft-fallback")
    assert sorted(answer.result.rows) == [("Ann",), ("Joe",)] and answer.stages["draft"] == ONE_FRENCH


def test_a_flagged_draft_with_rows_answers_when_the_papers_answer_is_empty(music_db):
    nowhere = {**PLAIN, "conditions": [{"op": "=", "column": "singer.country", "value": "Atlantis"}]}
    answer = _ask(music_db, Script(nowhere, sql=ONE_FRENCH), draft=True, flagged_draft="compare")
    [note] = answer.trace.notes("prospy.draft-fallback")
    assert note["reason"] == "the paper's path returned no rows" and "Atlantis" in note["papers_sql"]
    assert answer.sql == ONE_FRENCH and answer.result.row_count == 1


def test_a_papers_answer_no_cleaner_than_the_flagged_draft_gives_way_to_it(music_db):
    """The question names songs; neither the draft nor the view reads them (one finding each): the draft answers."""
    sorted_french = FRENCH + " ORDER BY name"
    answer = _ask(music_db, Script(PLAIN, sql=sorted_french), "Which singers from France have a song?", draft=True,
                  flagged_draft="compare")
    assert not answer.trace.notes("draft")[0]["kept"]
    [note] = answer.trace.notes("prospy.draft-fallback")
    assert note["reason"] == "the paper's answer draws 1 exact findings, the draft 1"
    assert answer.sql == sorted_french and answer.stages["draft"] == sorted_french and "view" in answer.stages
