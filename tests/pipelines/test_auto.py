"""The `auto` preset: control flow with a scripted model (cheap path, escalation, sanity repair, abstention) and
one end-to-end run with the real 0.5B model."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.api import ask
from groundsql.models import ScriptedModel
from groundsql.pipelines.auto import cheap_confidence

COUNT_FRANCE = "```sql\nSELECT count(*) FROM singer WHERE country = 'France'\n```"
COUNT_ALL = "```sql\nSELECT count(*) FROM singer\n```"


def auto_notes(answer) -> list[dict]:
    return answer.trace.notes("auto")


@pytest.mark.integration
def test_agreeing_cheap_candidates_answer_without_escalation(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto")
    assert answer.result.rows == [(2,)] and answer.confidence == pytest.approx(0.9)
    assert len(model.calls) == 2 and model.calls[1]["temperature"] > 0  # the second is a sample
    assert [n["stage"] for n in auto_notes(answer)] == ["cheap"]
    assert answer.stages == {"cheap": answer.sql, "final": answer.sql}


@pytest.mark.integration
def test_disagreement_escalates_to_ssev_and_cheap_candidates_vote(music_db: Path) -> None:
    model = ScriptedModel([COUNT_FRANCE, COUNT_ALL], default=COUNT_FRANCE)
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"vote": "majority"})
    stages = [n["stage"] for n in auto_notes(answer)]
    assert stages[:2] == ["cheap", "escalate"]
    assert answer.result.rows == [(2,)]
    assert "escalated" in answer.stages and len(model.calls) > 3
    assert any(c.source == "cheap-sample" for c in answer.candidates)


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
def test_a_sanity_finding_earns_a_targeted_repair(music_db: Path) -> None:
    wrong = "```sql\nSELECT count(*) FROM singer WHERE country = 'france'\n```"
    model = ScriptedModel([wrong, COUNT_FRANCE, COUNT_FRANCE])
    answer = ask("How many singers are from France?", str(music_db), model=model, preset="auto",
                 options={"refine_rounds": 0})
    repair_prompt = model.calls[1]["messages"][-1]["content"]
    assert "'France'" in repair_prompt and "stored spelling" in repair_prompt
    assert answer.result.rows == [(2,)] and answer.warnings == []


@pytest.mark.unit
def test_unknown_auto_option_is_refused(music_db: Path) -> None:
    from pydantic import ValidationError

    from groundsql.pipelines.auto import AutoOptions

    with pytest.raises(ValidationError):
        AutoOptions(escalate_bellow=0.3)


@pytest.mark.unit
def test_cheap_confidence_signals() -> None:
    from groundsql.answer import Candidate
    from groundsql.db import Result

    ran = Candidate(sql="q", result=Result(columns=["n"], rows=[(1,)]))
    same = Candidate(sql="q2", result=Result(columns=["m"], rows=[(1,)]))
    other = Candidate(sql="q3", result=Result(columns=["n"], rows=[(2,)]))
    failed = Candidate(sql="q4", error="no such column")
    assert cheap_confidence(ran, [same], [])[0] == pytest.approx(0.9)
    assert cheap_confidence(ran, [other], [])[0] == pytest.approx(0.5)
    assert cheap_confidence(failed, [], [])[0] == 0.0


@pytest.mark.e2e
def test_auto_end_to_end_with_the_real_small_model(demo_db: Path) -> None:
    from tests.conftest import TEST_MODEL

    answer = ask("How many products are there?", str(demo_db), model=TEST_MODEL, preset="auto",
                 options={"escalate": False})
    assert answer.sql and answer.error is None
    assert answer.confidence is not None and answer.trace.notes("auto")


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
