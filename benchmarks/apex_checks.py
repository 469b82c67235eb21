"""apex's exact steps on recorded answers (no model): `check_rewrites` replayed over a recorded run's predictions.

Each prediction of a committed `groundsql eval` run is executed again on its Spider SQLite file and goes through
`pipelines.apex._rewritten` (the exact checks' rewrites, e.g. the query without a join that adds nothing but
drops or repeats rows, not taken when the question names the dropped table), then is scored again. Reports EX
before/after, questions won and lost, and every rewrite, so false alarms on right answers show.

    python benchmarks/apex_checks.py                      # the baseline's and apex's recorded answers
    python benchmarks/apex_checks.py --runs benchmarks/results/accuracy/runs/<run>/results.jsonl

It also simulates apex's default selection over two framings on the questions both runs answered: the recorded
apex trajectory (exploration, repaired) and the baseline's one query (the `direct` framing of `diverse_views`
sends the baseline's prompt), each tree-repaired and rewritten, flagged results kept out of the vote
(`vote_checks`). Where the two still disagree the judge (a model call) decides; the table gives both outcomes.
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
RUNS = REPO / "benchmarks" / "results" / "accuracy" / "runs"
DEFAULT_RUNS = [RUNS / "baseline__local_qwen2.5-coder-1.5b__n150_seed2026" / "results.jsonl",
                RUNS / "apex__local_qwen2.5-coder-1.5b__n150_seed2026__repair_rounds-2" / "results.jsonl",
                RUNS / "apex__local_qwen2.5-coder-1.5b__n150_seed2026__repair_rounds-0" / "results.jsonl"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, nargs="+", default=DEFAULT_RUNS, help="results.jsonl of recorded runs")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results" / "apex_checks" / "apex_checks.md")
    args = parser.parse_args(argv)
    from provenance import current_commit

    command = ("python benchmarks/apex_checks.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))).strip()
    print(f"$ {command}", flush=True)
    sections = [f"# apex's exact steps on recorded answers\n\n`{command}` (no model call; code at commit "
                f"`{current_commit()}`)\n"]
    for run in args.runs:
        if not run.exists():
            print(f"missing run: {run}", file=sys.stderr)
            continue
        records = [json.loads(line) for line in run.read_text(encoding="utf-8").splitlines() if line.strip()]
        started = time.perf_counter()
        rows = replay(records, args.dataset)
        sections.append(render(run, rows, time.perf_counter() - started))
        print(sections[-1], flush=True)
    base = [r for r in args.runs if r.parent.name.startswith("baseline")]
    for run in [r for r in args.runs if r.parent.name.startswith("apex") and r.exists()]:
        if base and base[0].exists():
            sections.append(simulate(run, base[0], args.dataset))
            print(sections[-1], flush=True)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(sections), encoding="utf-8")
    return 0


def simulate(apex_run: Path, baseline_run: Path, dataset: Path) -> str:
    """The two-framing selection on the questions both runs answered (see the module docstring)."""
    from groundsql.answer import Candidate
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.scoring import Scorer
    from groundsql.generation.tree_repair import needs_repair, tree_repair
    from groundsql.pipelines.apex import _checked, _rewritten
    from groundsql.selection.voting import vote

    def load(path: Path) -> dict[Any, dict]:
        return {r["id"]: r for r in (json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x)}

    apex, baseline = load(apex_run), load(baseline_run)
    scorer = Scorer("spider")
    counts = {"n": 0, "apex": 0, "baseline": 0, "agree_right": 0, "agree_wrong": 0, "one_flagged": 0,
              "tie_low": 0, "tie_high": 0, "ties": 0}
    for qid, record in apex.items():
        if qid not in baseline:
            continue
        counts["n"] += 1
        counts["apex"] += bool(record.get("correct"))
        counts["baseline"] += bool(baseline[qid].get("correct"))
        path = dataset / "database" / record["db_id"] / f"{record['db_id']}.sqlite"
        db = Database(str(path))
        ctx = Context(question=record["question"], db=db, models={})
        explored = (record.get("stages") or {}).get("repaired") or (record.get("stages") or {}).get("exploration")
        sqls = [(explored or {}).get("sql") or record.get("sql") or "", baseline[qid].get("sql") or ""]
        candidates = []
        for index, sql in enumerate(sqls):
            result, error = ctx.try_query(sql, step="replay") if sql else (None, "no SQL")
            candidate = Candidate(sql=sql, result=result, error=error, expert="generator", model=f"c{index}")
            if needs_repair(candidate):
                candidate = tree_repair(ctx, candidate).candidate
            candidates.append(_rewritten(ctx, candidate))
        voting = _checked(ctx, candidates)
        counts["one_flagged"] += len(voting) < len(candidates)
        result = vote(voting, method="majority")
        right = [scorer.score(path, record["gold_sql"], g.representative.sql).correct if g.ok else False
                 for g in (result.tied or [result.winner])]
        if len(right) > 1:
            counts["ties"] += 1
            direct = next((g for g in result.tied if any(c.model == "c1" for c in g.candidates)), None)
            if direct is not None and scorer.score(path, record["gold_sql"], direct.representative.sql).correct:
                counts["tie_direct_right"] = counts.get("tie_direct_right", 0) + 1
            counts["tie_low"] += min(right)
            counts["tie_high"] += max(right)
        elif right[0]:
            counts["agree_right"] += 1
        db.close()
    n = counts["n"] or 1
    low = counts["agree_right"] + counts["tie_low"]
    high = counts["agree_right"] + counts["tie_high"]
    direct = counts["agree_right"] + counts.get("tie_direct_right", 0)
    return (f"## two framings: {apex_run.parent.name} + {baseline_run.parent.name}\n\n"
            f"{counts['n']} questions; recorded apex {100 * counts['apex'] / n:.1f}%, baseline "
            f"{100 * counts['baseline'] / n:.1f}%; simulated selection {100 * low / n:.1f}% (every disagreement "
            f"judged wrong) to {100 * high / n:.1f}% (judged right); {counts['ties']} disagreements left to the "
            f"judge (the direct query right in {counts.get('tie_direct_right', 0)}, neither in "
            f"{counts['ties'] - counts['tie_high']}), {counts['one_flagged']} settled by vote_checks; with "
            f"tie_break=direct (the default) {100 * direct / n:.1f}%\n")


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
