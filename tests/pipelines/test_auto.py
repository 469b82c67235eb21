"""The `auto` preset: control flow with a scripted model (cheap path, escalation, sanity repair, abstention). Its
end-to-end run with the real 0.5B model is `ask --json` in tests/e2e/test_local_model_e2e.py (auto is the
default preset)."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.models import ScriptedModel

COUNT_FRANCE = "```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```"
COUNT_ALL = "```sql\nSELECT count(*) FROM singer\n```"


def auto_notes(answer) -> list[dict]:
    return answer.trace.notes("auto")


@pytest.mark.integration
def test_agreeing_framings_answer_with_two_calls(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert answer.result.rows == [(2,)] and answer.confidence >= 0.8
    assert len(model.calls) == 2 and model.calls[1]["temperature"] == 0.0  # a second framing, not a sample
    shaped = model.calls[1]["messages"][-1]["content"]
    assert "What the answer should look like: one row holding the count" in shaped
    first = model.calls[0]["messages"][-1]["content"]
    prefix = first[:first.index("Question:")]
    assert shaped.startswith(prefix)  # the prompt prefix is shared: the prefix cache serves it
    assert [n["stage"] for n in auto_notes(answer)] == ["cheap"]
    assert answer.stages == {"direct": answer.sql, "shaped": answer.sql, "final": answer.sql}
    provisional = answer.trace.notes("provisional")
    assert provisional and provisional[0]["stage"] == "direct" and provisional[0]["row_count"] == 1


@pytest.mark.integration
def test_disagreement_adds_diverse_candidates_until_two_framings_agree(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL], default=COUNT_FRANCE)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    stages = [n["stage"] for n in auto_notes(answer)]
    assert stages[:2] == ["cheap", "escalate"] and "escalate:focused" in stages
    assert answer.result.rows == [(2,)]
    assert len(model.calls) == 3  # the focused candidate agreed with the first: no more calls
    assert {c.source for c in answer.candidates} == {"direct", "shaped", "focused"}
    assert "escalated" in answer.stages
    first, focused = (model.calls[i]["messages"][-1]["content"] for i in (0, 2))
    assert focused.startswith(first[:first.index("Question:")])  # the prefix cache serves all but the tail
    assert "Tables it most likely needs: singer (country)." in focused
    assert answer.confidence <= 0.79  # reached through escalation: never in the confident band


@pytest.mark.integration
def test_the_focused_framing_as_the_second_candidate_and_the_shaped_one_as_an_escalation_step(
        music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL], default=COUNT_FRANCE)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"second": "focused", "escalation_steps": ["focused", "shaped", "findings"]})
    second = model.calls[1]["messages"][-1]["content"]
    assert "Tables it most likely needs: singer (country)." in second  # the first draft's tables, named
    stages = [n["stage"] for n in auto_notes(answer)]
    assert "escalate:focused" not in stages and "escalate:shaped" in stages  # no second focused prompt
    assert [c.source for c in answer.candidates] == ["direct", "focused", "shaped"] and len(model.calls) == 3
    assert "What the answer should look like: one row holding the count" in model.calls[2]["messages"][-1]["content"]
    assert answer.result.rows == [(2,)] and answer.stages["focused"] == "SELECT count(*) FROM singer"


@pytest.mark.integration
def test_the_papers_postsql_on_the_pruned_schema_stays_a_step_to_choose(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL], default=COUNT_FRANCE)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"escalation_steps": ["postsql", "sample"]})
    assert "escalate:postsql" in [n["stage"] for n in auto_notes(answer)]
    assert {c.source for c in answer.candidates} == {"direct", "shaped", "postsql"}
    assert answer.result.rows == [(2,)]


@pytest.mark.integration
def test_a_sample_agreeing_with_the_direct_candidate_is_not_independent_agreement(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"escalation_steps": ["sample"]})
    escalated = next(n for n in auto_notes(answer) if n["stage"] == "escalated")
    assert [c.source for c in answer.candidates] == ["direct", "shaped", "sample"] and len(model.calls) == 3
    assert escalated["agree"] is False and answer.result.rows == [(2,)]  # the vote still picks the pair
    assert answer.confidence < 0.7 and any("low confidence" in n for n in answer.notes)


@pytest.mark.unit
def test_the_focus_names_linked_columns_and_the_keys_that_join_them() -> None:
    from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
    from groundsql.generation.framings import focus_text
    from groundsql.linking.subset import SchemaSubset

    schema = Schema(dialect="sqlite", tables=[
        Table("singer", [Column("singer_id", "INTEGER"), Column("name", "TEXT"), Column("age", "INTEGER")]),
        Table("singer_in_concert", [Column("singer_id", "INTEGER"), Column("concert_id", "INTEGER")],
              foreign_keys=[ForeignKey(["singer_id"], "singer", ["singer_id"])]),
        Table("stadium", [Column("stadium_id", "INTEGER")]),
    ])
    subset = SchemaSubset()
    subset.add("singer", "name")
    subset.add("singer_in_concert", "concert_id")
    assert focus_text(schema, subset) == ("singer (name); singer_in_concert (concert_id); "
                                          "joined on singer_in_concert.singer_id = singer.singer_id.")


@pytest.mark.integration
def test_the_earlier_ssev_escalation_stays_a_switch(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL], default=COUNT_FRANCE)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"escalation": "ssev", "vote": "majority"})
    assert [n["stage"] for n in auto_notes(answer)][:2] == ["cheap", "escalate"]
    assert answer.trace.notes("auto")[1]["to"] == "ssev" and len(model.calls) > 3
    assert answer.result.rows == [(2,)]


@pytest.mark.integration
def test_escalation_respects_the_call_budget_and_flags_low_confidence(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"max_calls": 2, "abstain_below": 0.9})
    notes = auto_notes(answer)
    assert notes[1]["stage"] == "no-escalation" and "call budget" in notes[1]["reason"]
    assert len(model.calls) == 2
    assert any("low confidence" in n for n in answer.notes) and answer.sql


@pytest.mark.integration
def test_a_list_for_how_many_is_counted_by_the_exact_shape_repair(music_db: Path) -> None:
    listing = "```sql\nSELECT name FROM singer WHERE country = 'France'\n```"
    model = ScriptedModel([listing, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert answer.result.rows == [(2,)] and len(model.calls) == 2
    chosen = next(c for c in answer.candidates if c.source == "direct")
    assert chosen.repairs[-1]["rule"] == "shape:count_asked"
    assert answer.trace.notes("shape-repair")[0]["check"] == "count_asked"


@pytest.mark.integration
def test_a_finding_on_both_candidates_earns_a_repair_told_the_finding(music_db: Path) -> None:
    star = "```sql\nSELECT * FROM singer WHERE country = 'France'\n```"
    names = "```sql\nSELECT name FROM singer WHERE country = 'France'\n```"
    model = ScriptedModel([star, star, star, names], default=names)
    answer = ask("What are the names of singers from France?", str(music_db), model=model, preset="auto",
                 options={"refine_rounds": 0})
    repair = next(c for c in model.calls if "Exact checks of the query" in c["messages"][-1]["content"])
    assert "instead of *" in repair["messages"][-1]["content"]
    assert answer.sql.lower().startswith("select name") and answer.warnings == []


@pytest.mark.integration
def test_every_preset_answer_carries_findings_and_a_confidence(music_db: Path) -> None:
    star = "```sql\nSELECT * FROM singer WHERE country = 'France'\n```"
    answer = ask("What are the names of singers from France?", str(music_db), model=ScriptedModel([star]),
                 preset="baseline")
    assert any("SELECT *" in w for w in answer.warnings)
    assert answer.confidence is not None and answer.confidence < 0.8  # a finding: never reported as confident
    clean = ask("How many singers are from France?", str(music_db), model=ScriptedModel([COUNT_FRANCE]),
                preset="baseline")
    assert clean.warnings == [] and clean.confidence >= 0.5 and clean.confidence > answer.confidence


@pytest.mark.unit
def test_unknown_auto_option_is_refused(music_db: Path) -> None:
    from pydantic import ValidationError

    from groundsql.pipelines.auto import AutoOptions

    with pytest.raises(ValidationError):
        AutoOptions(escalate_bellow=0.3)


@pytest.mark.unit
def test_confidence_from_signals() -> None:
    from groundsql.selection.calibration import Signals, confidence

    agreed = confidence(Signals(ran=True, rows=True, agree=True))
    disagreed = confidence(Signals(ran=True, rows=True, agree=False))
    flagged = confidence(Signals(ran=True, rows=True, agree=True, findings=1))
    assert agreed >= 0.8 > disagreed and flagged < agreed
    assert confidence(Signals(ran=False, rows=False)) == 0.0
    assert confidence(Signals(ran=True, rows=False, agree=True)) < agreed  # an empty result counts against


@pytest.mark.integration
def test_experts_add_to_the_main_model_and_roles_pick_their_model(music_db: Path) -> None:
    main = ScriptedModel(default=COUNT_FRANCE, name="main")
    extra = ScriptedModel(default=COUNT_ALL, name="extra")
    answer = ask("How many singers are from France?", str(music_db), model=main, preset="ssev",
                 options={"experts": [extra], "validate": False, "vote": "majority"})
    assert {c.model for c in answer.candidates} == {"scripted:main", "scripted:extra"}
    generator = ScriptedModel(default=COUNT_FRANCE, name="generator")
    unused = ScriptedModel([], name="unused")
    answer = ask("How many singers are from France?", str(music_db), model=unused, preset="baseline",
                 models={"generator": generator})
    assert answer.result.rows == [(2,)] and unused.calls == [] and len(generator.calls) == 1


@pytest.mark.integration
def test_cli_model_for_is_parsed_and_refuses_a_malformed_pair(music_db: Path) -> None:
    from click.testing import CliRunner

    from groundsql.cli import cli

    result = CliRunner().invoke(cli, ["ask", "How many?", "--db", str(music_db), "--model-for", "judge"])
    assert result.exit_code != 0 and "ROLE=SPEC" in result.output


@pytest.mark.integration
def test_a_model_failure_after_the_first_answer_returns_it_marked_partial(music_db: Path) -> None:
    seen: list[dict] = []
    model = ScriptedModel([COUNT_FRANCE])  # the second call finds no reply: a model error
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 on_provisional=seen.append)
    assert answer.partial and answer.result.rows == [(2,)] and answer.to_dict()["partial"] is True
    assert any("best answer so far" in n for n in answer.notes)
    assert seen[0]["stage"] == "direct" and seen[0]["rows"] == [[2]]
    with pytest.raises(Exception, match="no scripted reply"):
        ask("How many singers are from France?", str(music_db), model=ScriptedModel([]), preset="auto")


@pytest.mark.integration
def test_a_plain_answer_stops_at_one_call_unless_the_second_framing_is_asked_always(music_db: Path) -> None:
    model = ScriptedModel([COUNT_ALL])
    answer = ask("How many singers are there?", str(music_db), model=model, preset="auto")
    assert len(model.calls) == 1 and answer.result.rows[0][0] > 0
    assert [n["stage"] for n in auto_notes(answer)] == ["plain", "cheap"]
    assert answer.stages == {"direct": answer.sql, "final": answer.sql} and answer.confidence >= 0.8
    model = ScriptedModel([COUNT_ALL, COUNT_ALL])
    answer = ask("How many singers are there?", str(music_db), model=model, preset="auto",
                 options={"second_when": "always"})
    assert len(model.calls) == 2 and [n["stage"] for n in auto_notes(answer)] == ["cheap"]


@pytest.mark.integration
def test_a_string_literal_is_not_plain_so_the_second_framing_runs(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert len(model.calls) == 2 and "plain" not in [n["stage"] for n in auto_notes(answer)]


class SureModel(ScriptedModel):
    """A scripted model that reports, like the embedded one, how probable it found each reply."""

    def __init__(self, replies: list[str], least: float):
        super().__init__(replies)
        self.least = least

    def _generate(self, messages, **kwargs):
        from dataclasses import replace as with_fields

        from groundsql.models.base import Likelihood

        completion = super()._generate(messages, **kwargs)
        return with_fields(completion, likelihoods=[Likelihood(mean=self.least / 2, least=self.least, tokens=9)
                                                    for _ in completion.texts])


@pytest.mark.integration
def test_a_clean_answer_of_a_sure_draft_stops_at_one_call_with_the_confidence_it_has(music_db: Path) -> None:
    model = SureModel([COUNT_FRANCE], least=-0.3)  # a string literal: not plain, but clean and sure
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert len(model.calls) == 1 and answer.result.rows == [(2,)]
    assert [n["stage"] for n in auto_notes(answer)] == ["sure", "cheap"]
    assert answer.stages == {"direct": answer.sql, "final": answer.sql}
    cheap = auto_notes(answer)[-1]
    assert cheap["draft_least"] == -0.3 and answer.confidence == cheap["confidence"]  # no escalation, whatever it is


@pytest.mark.integration
@pytest.mark.parametrize(("least", "options"), [(-2.0, {}), (-0.3, {"sure_draft": None}),
                                                 (-0.3, {"second_when": "always"})])
def test_an_unsure_draft_or_the_switch_off_makes_the_second_candidate(music_db: Path, least, options) -> None:
    model = SureModel([COUNT_FRANCE, COUNT_FRANCE], least=least)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto", options=options)
    assert len(model.calls) == 2 and "sure" not in [n["stage"] for n in auto_notes(answer)]
    assert answer.result.rows == [(2,)]


@pytest.mark.integration
def test_a_sure_draft_with_a_finding_is_not_the_answer_at_one_call(music_db: Path) -> None:
    # 'how many' answered with a list: count_asked objects, so the sure draft goes on to the second candidate
    listing = "```sql\nSELECT name FROM singer WHERE country = 'France'\n```"
    model = SureModel([listing, COUNT_FRANCE], least=-0.1)
    model.default = COUNT_FRANCE
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert len(model.calls) >= 2 and "sure" not in [n["stage"] for n in auto_notes(answer)]
