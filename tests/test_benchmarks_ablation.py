"""benchmarks/ablation.py: the per-preset ablation tables read from run folders (records written the way
`groundsql eval` writes them): the shared questions, won and lost against the default and one call, the reading
kept by hand."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import ablation


def write_run(folder: Path, answers: dict[int, bool], calls: int = 3, seconds: float = 10.0) -> None:
    folder.mkdir(parents=True)
    lines = [json.dumps({"id": qid, "correct": right, "elapsed_s": seconds + qid,
                         "usage": {"llm_calls": calls, "evaluated_prompt_tokens": 100 * calls,
                                   "completion_tokens": 20 * calls}}) for qid, right in answers.items()]
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n")


def test_rows_are_compared_on_the_questions_all_of_them_answered(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "agentnlq" / "default@abc", {1: True, 2: False, 3: True, 4: True})
    write_run(runs / "agentnlq" / "x-false@abc", {1: True, 2: True, 3: False})  # stopped after three
    write_run(runs / "baseline" / "default@abc", {1: False, 2: False, 3: True, 4: False}, calls=1)
    (tmp_path / "ablation.md").write_text(f"old\n\n{ablation.NOTES_MARKER}\nkept by hand\n")
    ablation.main(["--root", str(tmp_path)])
    text = (tmp_path / "ablation.md").read_text()
    assert "3 questions every row answered: 1, 2, 3." in text
    assert "| default@abc | 2 / 3 | – | 1 / 0 (+1) |" in text
    assert "| x-false@abc | 2 / 3 | 1 / 1 (+2, −3) | 2 / 1 (+1, +2, −3) | 3.0 | 300 | 60 |" in text
    assert "| baseline (default@abc) | 1 / 3 |" in text
    assert text.rstrip().endswith("kept by hand") and "old\n" not in text
    assert (tmp_path / "ablation.png").stat().st_size > 0


def test_the_presets_named_are_rewritten_and_the_other_tables_kept(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "apex" / "default@abc", {1: True, 2: False})
    write_run(runs / "recap" / "default@abc", {1: True, 2: True})
    write_run(runs / "baseline" / "default@abc", {1: False, 2: False}, calls=1)
    ablation.main(["--root", str(tmp_path)])
    first = (tmp_path / "ablation.md").read_text()
    assert "## apex" in first and "## recap" in first
    write_run(runs / "apex" / "x-false@def", {1: False, 2: False})
    write_run(runs / "recap" / "x-false@def", {1: True, 2: False})
    (tmp_path / "ablation.md").write_text(first + f"\n{ablation.NOTES_MARKER}\nkept by hand\n")
    ablation.main(["--root", str(tmp_path), "--presets", "apex"])
    text = (tmp_path / "ablation.md").read_text()
    apex, recap = text.split("## apex", 1)[1].split("## recap", 1)
    assert "| x-false@def | 0 / 2 |" in apex  # rewritten: the new row is there
    assert "x-false@def" not in recap.split(ablation.NOTES_MARKER)[0]  # kept as it was
    assert recap.split(ablation.NOTES_MARKER)[0].strip() == first.split("## recap", 1)[1].strip()
    assert text.rstrip().endswith("kept by hand")
