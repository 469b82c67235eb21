"""Sanity checks on recorded answers: how often each check fires on wrong answers (hits) and on right ones
(false alarms), replayed without a model over the committed accuracy runs.

    python benchmarks/sanity_checks.py            # every committed run of the Spider sample
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPIDER = REPO.parent / "shared" / "data" / "spider"
RUNS = REPO / "benchmarks" / "results" / "accuracy" / "runs"
DEFAULT_RUNS = ("baseline__local_qwen2.5-coder-1.5b__n150_seed2026", "ssev__local_qwen2.5-coder-1.5b__n150_seed2026")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=",".join(DEFAULT_RUNS), help="comma-separated run folders")
    parser.add_argument("--dataset", type=Path, default=SPIDER)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "sanity_checks" / "sanity_checks.md")
    args = parser.parse_args(argv)
    if not (args.dataset / "database").exists():
        print(f"Spider data not found at {args.dataset}", file=sys.stderr)
        return 2
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.checks import CHECKS, sanity_check

    catalogs: dict[str, object] = {}
    lines = ["# Result sanity checks on recorded answers", "",
             "Each recorded answer that ran is re-executed on its Spider SQLite database and checked "
             "(no model call). A *hit* is a finding on a wrong answer; a *false alarm* a finding on a right one.",
             "", f"Command: `python benchmarks/sanity_checks.py --runs {args.runs}`", ""]
    lines += ["| run | answers that ran | wrong | wrong with a finding (hit rate) | right | right with a finding "
              "(false alarms) | s/answer |", "|---|---:|---:|---:|---:|---:|---:|"]
    per_check: dict[str, Counter] = {}
    for run in args.runs.split(","):
        records = [json.loads(line) for line in (RUNS / run / "results.jsonl").read_text().splitlines() if line]
        counts = Counter()
        fired = per_check.setdefault(run, Counter())
        started = time.perf_counter()
        for record in records:
            if not record.get("sql") or record.get("error"):
                continue
            path = args.dataset / "database" / record["db_id"] / f"{record['db_id']}.sqlite"
            db = Database(str(path))
            if record["db_id"] not in catalogs:
                catalogs[record["db_id"]] = build_catalog(db, use_cache=False)
            ctx = Context(question=record["question"], db=db, models={"default": ScriptedModel([])},
                          catalog=catalogs[record["db_id"]])
            candidate = execute_candidate(ctx, record["sql"], source="recorded")
            if not candidate.ok:
                continue
            findings = sanity_check(ctx, candidate)
            right = bool(record.get("correct"))
            counts["ran"] += 1
            counts["right" if right else "wrong"] += 1
            if findings:
                counts["right_found" if right else "wrong_found"] += 1
            for check in {f.check for f in findings}:
                fired[(check, right)] += 1
        elapsed = (time.perf_counter() - started) / max(counts["ran"], 1)
        lines.append(f"| {run} | {counts['ran']} | {counts['wrong']} | {counts['wrong_found']} "
                     f"({_pct(counts['wrong_found'], counts['wrong'])}) | {counts['right']} | {counts['right_found']} "
                     f"({_pct(counts['right_found'], counts['right'])}) | {elapsed:.2f} |")
    lines += ["", "## Per check: fired on wrong / right answers", "",
              "| run | " + " | ".join(CHECKS) + " |", "|---|" + "---:|" * len(CHECKS)]
    for run, fired in per_check.items():
        lines.append(f"| {run} | " + " | ".join(f"{fired[(c, False)]} / {fired[(c, True)]}" for c in CHECKS) + " |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


if __name__ == "__main__":
    raise SystemExit(main())
