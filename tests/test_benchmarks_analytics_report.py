"""benchmarks/analytics.py --report-only: analytics.md is rewritten from the run folders and the reading written
by hand below the marker is kept, as with the other benchmark reports."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# the script imports its sibling modules (accuracy, provenance) by their bare names, as when run from the shell
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from benchmarks import analytics  # noqa: E402


def test_regenerating_keeps_the_hand_written_reading(tmp_path: Path) -> None:
    runs, results = tmp_path / "runs", tmp_path / "results"
    runs.mkdir()
    results.mkdir()
    (results / "analytics.md").write_text(f"stale table\n\n{analytics.NOTES_MARKER}\n\n## Reading\n\nby hand\n")
    args = argparse.Namespace(runs_dir=runs, results=results)
    analytics.write_report(args)
    text = (results / "analytics.md").read_text()
    assert "stale table" not in text and "No runs yet." in text
    assert text.endswith(f"{analytics.NOTES_MARKER}\n\n## Reading\n\nby hand\n")
    analytics.write_report(args)
    assert (results / "analytics.md").read_text() == text  # stable: a second rewrite changes nothing


def test_without_the_marker_the_file_is_only_the_tables(tmp_path: Path) -> None:
    (tmp_path / "analytics.md").write_text("old reading with no marker\n")
    analytics.write_report(argparse.Namespace(runs_dir=tmp_path / "none", results=tmp_path))
    assert "old reading" not in (tmp_path / "analytics.md").read_text()
