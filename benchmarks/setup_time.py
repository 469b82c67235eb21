"""The first five minutes: how long `scripts/demo.sh` takes on a fresh machine, step by step.

Runs the README's main command in a fresh clone (its own .venv and an empty llama.cpp wheel cache, so the
runtime is compiled as on a new machine; pip's download cache is used as found — clear it for a first-ever
run) and reads the elapsed seconds `scripts/setup.sh` prints at each step, then the question's own time.
Writes `setup_time.md`. `--log FILE` reads a log of an earlier `scripts/demo.sh` run instead of running it.

    python benchmarks/setup_time.py                       # clone, set up, ask (about 5 minutes on 2 cores)
    python benchmarks/setup_time.py --log demo.log --total 301
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STEP = re.compile(r"^==> \[(\d+)s\] (.*)$")  # setup.sh's own progress lines, not SQL
NOTES_MARKER = "<!-- reading: written by hand, kept when the tables above are regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, help="a demo.sh log to read instead of running it")
    parser.add_argument("--total", type=float, help="with --log: the wall time of that run in seconds")
    parser.add_argument("--label", default="", help="what the run was (machine, cache state)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "setup_time" / "setup_time.md")
    args = parser.parse_args(argv)
    if args.log:
        log, total = args.log.read_text(), args.total
    else:
        log, total = run_fresh()
    lines = report(log, total, args.label or ("fresh clone, empty wheel cache" if not args.log else ""))
    notes = ""
    if args.out.exists() and NOTES_MARKER in args.out.read_text():
        notes = args.out.read_text().split(NOTES_MARKER, 1)[1]
    args.out.write_text("\n".join(lines) + "\n\n" + NOTES_MARKER + notes)
    print("\n".join(lines))
    return 0


def run_fresh() -> tuple[str, float]:
    with tempfile.TemporaryDirectory(prefix="groundsql-setup-") as tmp:
        clone = Path(tmp) / "groundsql"
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
        env = os.environ | {"GROUNDSQL_WHEEL_CACHE": str(Path(tmp) / "wheels")}
        started = time.monotonic()
        done = subprocess.run(["bash", "scripts/demo.sh"], cwd=clone, env=env, capture_output=True, text=True)
        total = time.monotonic() - started
        if done.returncode:
            print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"scripts/demo.sh failed with exit status {done.returncode}")
        return done.stdout + done.stderr, total


def steps(log: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for line in log.splitlines() if (m := STEP.match(line.strip()))]


def report(log: str, total: float | None, label: str) -> list[str]:
    marks = steps(log)
    end_of_setup = None
    lines = ["# The first five minutes: `scripts/demo.sh` on a fresh machine", "",
             f"Run: {label}." if label else "", "",
             "| step | starts at (s) | takes (s) |", "|---|---:|---:|"]
    for (start, name), following in zip(marks, marks[1:] + [(None, "")]):
        took = following[0] - start if following[0] is not None else None
        lines.append(f"| {name} | {start} | {took if took is not None else '…'} |")
        end_of_setup = start
    if total is not None and end_of_setup is not None:
        lines += ["", f"Total to a printed answer: **{total:.0f} s** ({total / 60:.1f} min); the last row runs "
                      "until the answer (install of groundsql, the demo database, loading the model and the "
                      "question)."]
    lines += ["", "Command: `python benchmarks/setup_time.py` (or `time bash scripts/demo.sh` on a new machine, then "
                  "`--log`)."]
    return [line for line in lines if line is not None]


if __name__ == "__main__":
    raise SystemExit(main())
