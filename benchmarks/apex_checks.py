"""apex's exact steps on recorded answers (no model): `check_rewrites` replayed over a recorded run's predictions.

Each prediction of a committed `groundsql eval` run is executed again on its Spider SQLite file and goes through
`pipelines.apex._rewritten` (the exact checks' rewrites, e.g. the query without a join that adds nothing but
drops or repeats rows, not taken when the question names the dropped table), then is scored again. Reports EX
before/after, questions won and lost, and every rewrite, so false alarms on right answers show.

    python benchmarks/apex_checks.py                      # the baseline's and apex's recorded answers
    python benchmarks/apex_checks.py --runs benchmarks/results/accuracy_runs/<run>/results.jsonl
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPIDER = REPO.parent / "shared" / "data" / "spider"
RUNS = REPO / "benchmarks" / "results" / "accuracy_runs"
DEFAULT_RUNS = [RUNS / "baseline__local_qwen2.5-coder-1.5b__n150_seed2026" / "results.jsonl",
                RUNS / "apex__local_qwen2.5-coder-1.5b__n150_seed2026__repair_rounds-2" / "results.jsonl",
                RUNS / "apex__local_qwen2.5-coder-1.5b__n150_seed2026__repair_rounds-0" / "results.jsonl"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, nargs="+", default=DEFAULT_RUNS, help="results.jsonl of recorded runs")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "apex_checks.md")
    args = parser.parse_args(argv)
    command = "python benchmarks/apex_checks.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    print(f"$ {command}", flush=True)
    sections = [f"# apex's exact steps on recorded answers\n\n`{command}` (no model call)\n"]
    for run in args.runs:
        if not run.exists():
            print(f"missing run: {run}", file=sys.stderr)
            continue
        records = [json.loads(line) for line in run.read_text(encoding="utf-8").splitlines() if line.strip()]
        started = time.perf_counter()
        rows = replay(records, args.dataset)
        sections.append(render(run, rows, time.perf_counter() - started))
        print(sections[-1], flush=True)
    args.results.write_text("\n".join(sections), encoding="utf-8")
    return 0


def replay(records: list[dict[str, Any]], dataset: Path) -> list[dict[str, Any]]:
    """One row per question: right before and after `check_rewrites`, and the rewrites taken."""
    from groundsql.answer import Candidate
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.scoring import Scorer
    from groundsql.pipelines.apex import _rewritten

    scorer = Scorer("spider")
    databases: dict[str, Database] = {}
    rows = []
    for record in records:
        db_id, sql = record["db_id"], record.get("sql") or ""
        path = dataset / "database" / db_id / f"{db_id}.sqlite"
        databases.setdefault(db_id, Database(str(path)))
        ctx = Context(question=record["question"], db=databases[db_id], models={})
        result, error = ctx.try_query(sql, step="replay") if sql else (None, "no SQL")
        before = Candidate(sql=sql, result=result, error=error)
        after = _rewritten(ctx, before)
        row = {"id": record["id"], "question": record["question"], "sql": sql,
               "correct_before": bool(record.get("correct")), "correct_after": bool(record.get("correct")),
               "rewrites": [{k: n[k] for k in ("check", "after", "taken")} for n in ctx.trace.notes("apex.rewrite")]}
        if after is not before:
            row["correct_after"] = scorer.score(path, record["gold_sql"], after.sql).correct
            row["rewritten_sql"] = after.sql
        rows.append(row)
    return rows


def render(run: Path, rows: list[dict[str, Any]], seconds: float) -> str:
    n = len(rows)
    before = sum(r["correct_before"] for r in rows)
    after = sum(r["correct_after"] for r in rows)
    won = [r for r in rows if r["correct_after"] and not r["correct_before"]]
    lost = [r for r in rows if r["correct_before"] and not r["correct_after"]]
    proposed = [r for r in rows if r["rewrites"]]
    lines = [f"## {run.parent.name}", "",
             f"{n} questions; EX {100 * before / n:.1f}% → {100 * after / n:.1f}% ({before} → {after}); "
             f"won {len(won)}, lost {len(lost)}; rewrites proposed on {len(proposed)}, taken on "
             f"{sum(1 for r in rows if 'rewritten_sql' in r)}; {seconds:.1f} s", ""]
    if proposed:
        lines += ["| id | question | before | after | rewrite |", "|---|---|---|---|---|"]
        for r in proposed:
            final = r.get("rewritten_sql") or "(not taken)"
            lines.append(f"| {r['id']} | {r['question']} | {'✓' if r['correct_before'] else '✗'} | "
                         f"{'✓' if r['correct_after'] else '✗'} | `{final}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
