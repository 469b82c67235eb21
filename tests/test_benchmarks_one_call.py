"""benchmarks/one_call_replay.py: auto's one-call stop for sure drafts replayed on recorded answers over the real
training databases (the first candidates run again through the guarded database and the current checks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import one_call_replay

pytestmark = pytest.mark.integration

RECORDED = one_call_replay.RUNS / "train" / "auto@86ce8a4" / "results.jsonl"
LOST = 2649  # clean first draft (least token -0.71), wrong; the escalation's answer was right
SURE = 2658  # clean first draft (least token -0.13), right, two calls recorded
PLAIN = 95  # a plain answer: one call already


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    if not one_call_replay.SPLITS["train"].is_dir() or not RECORDED.is_file():
        pytest.skip("the Spider training databases (../shared/data/spider_train) are not here")
    records = {json.loads(line)["id"]: line for line in RECORDED.read_text().splitlines() if line.strip()}
    folder = tmp_path / "train" / "auto@test"
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_text("".join(records[i] + "\n" for i in (PLAIN, LOST, SURE)))
    return tmp_path


def test_the_stop_answers_with_the_first_candidate_where_its_draft_was_sure(runs: Path) -> None:
    items = one_call_replay.load("train/auto@test", runs_dir=runs)
    by_id = {item.record["id"]: item for item in items}
    assert by_id[LOST].first_clean and by_id[SURE].first_clean and not by_id[PLAIN].first_clean
    recorded = one_call_replay.replay(items, None)
    assert recorded["right"] == 3 and recorded["won"] == recorded["lost"] == []
    strict = one_call_replay.replay(items, -0.5)  # only the surest draft stops
    assert strict["right"] == 3 and strict["calls"] < recorded["calls"] and strict["lost"] == []
    loose = one_call_replay.replay(items, -0.8)  # the -0.71 draft stops too, and it was wrong
    assert loose["lost"] == [LOST] and loose["right"] == 2 and loose["one_call"] == 1.0


def test_the_report_keeps_its_reading(runs: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(one_call_replay, "RUNS", runs)
    monkeypatch.syspath_prepend(str(Path(one_call_replay.__file__).parent))  # a script's `provenance` import
    out = tmp_path / "report" / "one_call.md"
    out.parent.mkdir()
    out.write_text(f"old table\n\n{one_call_replay.NOTES_MARKER}\nkept by hand\n")
    one_call_replay.main(["--runs", "train/auto@test", "--thresholds=-0.8", "--out", str(out)])
    text = out.read_text()
    assert "old table" not in text and text.rstrip().endswith("kept by hand")
    assert "| train/auto@test | -0.8 | 2 / 3 (66.7%) | 0: – | 1: 2649 |" in text
    assert out.with_suffix(".png").stat().st_size > 0
