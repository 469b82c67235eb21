"""How long the README's test command takes, in one process and on pytest-xdist workers.

Runs `bash scripts/test.sh` once for each worker count (`GROUNDSQL_TEST_WORKERS`), one after the other, with a
JUnit report, and writes the wall time, the counts and where the time goes (the summed time of each test file) to
`suite_time.md` and `suite_time.png`. Needs an idle machine: the tests' own timing checks run under it.

    python benchmarks/suite_time.py --workers 1,2          # about 20 minutes on 2 cores
    python benchmarks/suite_time.py --workers 2 --label "after the cut"
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "suite_time"


@dataclass
class SuiteRun:
    workers: int
    wall_s: float
    exit_status: int
    counts: Counter = field(default_factory=Counter)  # passed, failed, errors, skipped
    by_file: Counter = field(default_factory=Counter)  # seconds summed over a file's tests (all phases)

    @property
    def test_seconds(self) -> float:
        return sum(self.by_file.values())


def run_suite(workers: int, extra: list[str]) -> SuiteRun:
    """One run of `scripts/test.sh` with `workers` workers (its set-up step included in the wall time)."""
    with tempfile.TemporaryDirectory(prefix="groundsql-suite-") as tmp:
        junit = Path(tmp) / "junit.xml"
        env = os.environ | {"GROUNDSQL_TEST_WORKERS": str(workers)}
        started = time.monotonic()
        done = subprocess.run(["bash", "scripts/test.sh", "-p", "no:cacheprovider", "-q", f"--junitxml={junit}",
                               *extra], cwd=REPO, env=env, capture_output=True, text=True)
        run = SuiteRun(workers, time.monotonic() - started, done.returncode)
        if not junit.exists():
            print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"scripts/test.sh wrote no JUnit report (exit status {done.returncode})")
        read_junit(junit, run)
    return run


def read_junit(path: Path, run: SuiteRun) -> None:
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "errors"}.get(child.tag, child.tag)
        run.counts[outcome] += 1
        module = case.get("classname", "").split(".")
        # classname is the dotted module (and class): the file is the part up to the first capitalised name
        parts = [p for p in module if not p[:1].isupper()]
        run.by_file["/".join(parts) + ".py"] += float(case.get("time") or 0)


def report(runs: list[SuiteRun], label: str, commit: str) -> list[str]:
    lines = ["# The test suite's wall time (`bash scripts/test.sh`)", "",
             f"Commit `{commit}`; {label or 'this machine'}; {os.cpu_count()} cores. The wall time includes "
             "`scripts/setup.sh`'s check that the environment is already set up (a second or two).", "",
             "| workers | wall | passed | failed | errors | skipped | summed test time | summed ÷ wall |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        c = run.counts
        lines.append(f"| {run.workers} | {int(run.wall_s // 60)} min {run.wall_s % 60:.0f} s | {c['passed']} | "
                     f"{c['failed']} | {c['errors']} | {c['skipped']} | {run.test_seconds:.0f} s | "
                     f"{run.test_seconds / run.wall_s:.2f} |")
    last = runs[-1]
    lines += ["", f"Where the time goes ({last.workers} worker(s)): the ten files with the most test time "
                  "(setup, call and teardown summed)", "", "| file | seconds |", "|---|---:|"]
    lines += [f"| `{name}` | {seconds:.0f} |" for name, seconds in last.by_file.most_common(10)]
    lines += ["", "Command: `python benchmarks/suite_time.py --workers " + ",".join(str(r.workers) for r in runs)
              + "`."]
    return lines


def plot(runs: list[SuiteRun], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 3.2))
    names = [f"{r.workers} worker{'s' if r.workers > 1 else ''}" for r in runs]
    axis.bar(names, [r.wall_s / 60 for r in runs], color="#4c78a8")
    axis.axhline(10, color="#e45756", linestyle="--", linewidth=1, label="10-minute bar")
    axis.set_ylabel("wall time (min)")
    axis.set_title("bash scripts/test.sh on this machine", fontsize=9)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts, run in this order")
    parser.add_argument("--label", default="", help="what the machine was (idle, cores)")
    parser.add_argument("--out", type=Path, default=RESULTS / "suite_time.md")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for pytest (after --)")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    from provenance import current_commit

    commit = current_commit()  # the entry point's label, else HEAD (-dirty when tracked files differ)
    runs = []
    for workers in counts:
        run = run_suite(workers, args.pytest_args)
        print(f"{workers} worker(s): {run.wall_s:.0f} s, {dict(run.counts)}", flush=True)
        runs.append(run)
    lines = report(runs, args.label, commit)
    args.out.write_text("\n".join(lines) + "\n")
    plot(runs, args.out.with_suffix(".png"))
    print("\n".join(lines))
    return 0 if all(r.exit_status == 0 for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
