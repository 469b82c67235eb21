"""benchmarks/vote_replay.py: auto's vote replayed on recorded candidates over the real training databases (the
candidates run again through the guarded database and the real checks), under the current rule and the others."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import vote_replay

pytestmark = pytest.mark.integration

RECORDED = vote_replay.RUNS / "train" / "auto@86ce8a4" / "results.jsonl"
#: two escalated questions where three agreeing candidates (right, each flagged by a wording check) lost to a lone
#: clean repair (wrong), and one the cheap pair settled (not escalated: not replayed)
FLAGGED_TRIO = (62, 6599)
SETTLED = 60


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    if not vote_replay.SPLITS["train"].is_dir() or not RECORDED.is_file():
        pytest.skip("the Spider training databases (../shared/data/spider_train) are not here")
    records = {json.loads(line)["id"]: line for line in RECORDED.read_text().splitlines() if line.strip()}
    folder = tmp_path / "train" / "auto@test"
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_text("".join(records[i] + "\n" for i in (SETTLED, *FLAGGED_TRIO)))
    return tmp_path


def test_the_current_rule_reproduces_the_recorded_answers_and_the_others_change_them(runs: Path) -> None:
    items = vote_replay.replay_run("train/auto@test", runs_dir=runs)
    assert [i.id for i in items] == list(FLAGGED_TRIO)  # the settled question was not escalated
    for item in items:
        current = vote_replay.choose(item)
        assert current.sql == item.recorded_sql and not item.correct[id(current)]
        assert current.source == "findings" and not item.findings[id(current)]
        for rule in vote_replay.RULES:
            picked = vote_replay.choose(item, rule)
            assert item.correct[id(picked)] and picked.source != "findings" and item.findings[id(picked)]


def test_the_framing_table_counts_where_a_later_candidate_differs_from_the_first(runs: Path) -> None:
    table = vote_replay.framing_table(vote_replay.replay_run("train/auto@test", runs_dir=runs))
    # first right in both; the shaped and focused framings returned the same rows, the findings repair others
    assert table["findings"][(True, True, False)] == 2
    assert table["shaped"][(True, False, True)] == table["focused"][(True, False, True)] == 2
    assert sum(table["shaped"].values()) == 2


def test_the_report_keeps_its_reading_and_refuses_a_missing_run(runs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report" / "vote_replay.md"
    out.parent.mkdir()
    out.write_text(f"old tables\n\n{vote_replay.NOTES_MARKER}\nkept by hand\n")
    results = {"train/auto@test": vote_replay.replay_run("train/auto@test", runs_dir=runs)}
    vote_replay.write_report(results, "python benchmarks/vote_replay.py --runs train/auto@test", "abc1234", out)
    text = out.read_text()
    assert "| train/auto@test | 2 | 2 | 0 | 2, 2 / 0 | 2, 2 / 0 |" in text
    assert text.endswith("kept by hand\n") and "old tables" not in text
    assert out.with_suffix(".png").stat().st_size > 0
    assert vote_replay.main(["--runs", "train/no-such-run@0"]) == 2
    assert "no recorded run" in capsys.readouterr().err
    shutil.rmtree(out.parent)
