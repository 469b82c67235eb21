"""Question-shape checks replayed on recorded answers (no model): how many wrong answers each check flags (hits),
how many right ones it flags falsely, and what the exact rewrites do when applied.

Every recorded answer of a committed Spider run that ran is executed again on its SQLite file (a Context with the
profiled catalog, as the presets use) and checked with `selection.shape`; where a finding carries a rewrite, the
rewrite is scored too (Spider rules).

    python benchmarks/shape_checks.py                   # the committed baseline and ssev runs
    python benchmarks/shape_checks.py --runs RUN[,RUN]  # other folders under benchmarks/results/accuracy/runs
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPIDER = REPO.parent / "shared" / "data" / "spider"
RUNS = REPO / "benchmarks" / "results" / "accuracy" / "runs"
DEFAULT_RUNS = ("baseline__local_qwen2.5-coder-1.5b__n150_seed2026", "ssev__local_qwen2.5-coder-1.5b__n150_seed2026")


def replay(run: str, dataset: Path, catalogs: dict) -> list[dict]:
    """One row per recorded answer that ran: which checks fired, and each rewrite's verdict."""
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.scoring import Scorer
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.shape import shape_findings

    scorer = Scorer("spider")
    rows = []
    for line in (RUNS / run / "results.jsonl").read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if not record or not record.get("sql") or record.get("error"):
            continue
        path = dataset / "database" / record["db_id"] / f"{record['db_id']}.sqlite"
        db = Database(str(path))
        if record["db_id"] not in catalogs:
            catalogs[record["db_id"]] = build_catalog(db, use_cache=False)
        ctx = Context(question=record["question"], db=db, models={"default": ScriptedModel([])},
                      catalog=catalogs[record["db_id"]])
        candidate = execute_candidate(ctx, record["sql"], source="recorded")
        if not candidate.ok:
            continue
        started = time.perf_counter()
        findings = shape_findings(ctx, candidate)
        elapsed = time.perf_counter() - started
        rewrites = []
        for finding in findings:
            if finding.rewrite:
                verdict = scorer.score(path, record["gold_sql"], finding.rewrite)
                rewrites.append({"check": finding.check, "correct": verdict.correct, "sql": finding.rewrite})
        rows.append({"id": record["id"], "db_id": record["db_id"], "question": record["question"],
                     "sql": record["sql"], "correct": bool(record.get("correct")),
                     "checks": sorted({f.check for f in findings}), "messages": [f.message for f in findings],
                     "rewrites": rewrites, "seconds": elapsed})
    return rows


def render(results: dict[str, list[dict]], command: str, commit: str) -> str:
    from groundsql.selection.shape import SHAPE_CHECKS

    lines = ["# Question-shape checks on recorded answers", "",
             "Each recorded answer that ran is executed again on its Spider SQLite database (with the profiled "
             "catalog) and checked by `groundsql.selection.shape` (no model call). A *hit* is a finding on a wrong "
             "answer; a *false alarm* a finding on a right one. Where a finding carries an exact rewrite, the "
             "rewrite is scored too.", "",
             f"Command: `{command}` (code at commit `{commit}`)", "",
             "| run | answers that ran | wrong | wrong flagged (hit rate) | right | right flagged (false alarms) | "
             "rewrites: wrong → right | rewrites: right → wrong | ms/answer |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run, rows in results.items():
        wrong = [r for r in rows if not r["correct"]]
        right = [r for r in rows if r["correct"]]
        hit = sum(1 for r in wrong if r["checks"])
        false = sum(1 for r in right if r["checks"])
        fixed = sum(1 for r in wrong if any(w["correct"] for w in r["rewrites"]))
        broken = sum(1 for r in right if r["rewrites"] and not any(w["correct"] for w in r["rewrites"]))
        ms = 1000 * sum(r["seconds"] for r in rows) / max(len(rows), 1)
        lines.append(f"| {run} | {len(rows)} | {len(wrong)} | {hit} ({_pct(hit, len(wrong))}) | {len(right)} | "
                     f"{false} ({_pct(false, len(right))}) | {fixed} | {broken} | {ms:.1f} |")
    lines += ["", "## Per check: fired on wrong / right answers", "",
              "| run | " + " | ".join(SHAPE_CHECKS) + " |", "|---|" + "---:|" * len(SHAPE_CHECKS)]
    for run, rows in results.items():
        fired = Counter((c, r["correct"]) for r in rows for c in r["checks"])
        lines.append(f"| {run} | " + " | ".join(f"{fired[(c, False)]} / {fired[(c, True)]}" for c in SHAPE_CHECKS)
                     + " |")
    lines += ["", "## Every finding", "", "| run | id | right | checks | question |", "|---|---:|---|---|---|"]
    for run, rows in results.items():
        for r in rows:
            if r["checks"]:
                lines.append(f"| {run.split('__')[0]} | {r['id']} | {'yes' if r['correct'] else 'no'} | "
                             f"{', '.join(r['checks'])} | {r['question'].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=",".join(DEFAULT_RUNS), help="comma-separated run folders")
    parser.add_argument("--dataset", type=Path, default=SPIDER)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "shape_checks" / "shape_checks.md")
    args = parser.parse_args(argv)
    if not (args.dataset / "database").exists():
        print(f"Spider data not found at {args.dataset}", file=sys.stderr)
        return 2
    given = argv if argv is not None else sys.argv[1:]
    command = "python benchmarks/shape_checks.py " + " ".join(shlex.quote(a) for a in given)
    from provenance import current_commit

    commit = current_commit()  # the entry point's label, else HEAD (-dirty when tracked files differ)
    catalogs: dict = {}
    results = {run: replay(run, args.dataset, catalogs) for run in args.runs.split(",")}
    text = render(results, command.strip(), commit)
    args.out.write_text(text)
    args.out.with_suffix(".jsonl").write_text(
        "".join(json.dumps({"run": run, **row}) + "\n" for run, rows in results.items() for row in rows))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
