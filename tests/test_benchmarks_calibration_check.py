"""benchmarks/calibration_fit.py --check: runs the fit never sees (the held-out dev split) are reported beside the
fit, with the confidence each answer recorded and the one the fitted weights give it."""

from __future__ import annotations

import sys
from pathlib import Path

# the script imports its sibling modules (provenance) by their bare names, as when run from the shell
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from benchmarks import calibration_fit  # noqa: E402

RUNS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "generalization" / "runs"


def _subset(source: Path, target: Path, n: int) -> Path:
    target.mkdir(parents=True)
    lines = [line for line in (source / "results.jsonl").read_text().splitlines() if line.strip()][:n]
    (target / "results.jsonl").write_text("".join(line + "\n" for line in lines))
    return target


def test_a_checked_run_is_scored_with_the_fit_it_never_saw(tmp_path: Path) -> None:
    train = _subset(RUNS / "train" / "auto@fe5f635", tmp_path / "train" / "auto@t", 120)
    dev = _subset(RUNS / "dev" / "auto@c293256", tmp_path / "dev" / "auto@d", 60)
    out = tmp_path / "report.md"
    assert calibration_fit.main(["--runs", str(train), "--check", str(dev), "--out", str(out)]) == 0
    rows = {line.split(" | ")[1]: line for line in out.read_text().splitlines()
            if line.startswith("| auto@d (not fitted) |")}
    assert set(rows) == {"recorded", "fitted"}
    unseen = calibration_fit.load([dev])
    assert len(unseen) == 60
    recorded = calibration_fit.summary(unseen, [r["recorded"] or 0.0 for r in unseen])
    assert f"| {recorded['high']} (" in rows["recorded"]
    # the fitted row uses the weights fitted on the train records only: the same fit, applied to the dev records
    train_rows = calibration_fit.load([train])
    weights = calibration_fit.fitted_weights(train_rows, list(train_rows[0]["features"]))
    fitted = calibration_fit.summary(unseen, calibration_fit.predict(unseen, weights))
    assert f"| {fitted['high']} (" in rows["fitted"] and f"{fitted['brier']:.3f} |" in rows["fitted"]
