"""Generalization: accuracy, cost and calibration tuned on Spider's training databases, claimed on the open dev split.

The training databases (`../shared/data/spider_train`, 136 databases, disjoint from dev) are where every choice is
made: they are split into five folds by a hash of the database id (`groundsql.evaluation.folds`), and a run
samples a few databases per fold with many questions each (so the embedded model reads each schema once). The
open dev split (all 646 questions, 14 databases) only says whether a change holds.

    # a run (resumable: the same command continues), labelled with the commit it ran at
    GROUNDSQL_THREADS=1 python benchmarks/generalization.py run --split train --preset auto
    GROUNDSQL_THREADS=1 python benchmarks/generalization.py run --split dev --preset auto --option checks_off=units
    # the report over every run under runs/ (Markdown + PNG), each run compared with each baseline of its split
    python benchmarks/generalization.py report --baseline auto@39de551 --baseline refine@e68bf33
    python benchmarks/generalization.py gold     # every check on the training databases' gold queries (no model)

Per check, the report counts the exact rewrites each run applied (`shape_repairs` in a run's records) whose
query before and after score differently against the gold: right answers made wrong, wrong answers made right.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SPLITS = {"train": DATA / "spider_train", "dev": DATA / "spider"}
RESULTS = REPO / "benchmarks" / "results" / "generalization"
DBS_PER_FOLD, PER_DB, SEED = 3, 10, 44


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a preset on a split (resumes)")
    run.add_argument("--split", choices=sorted(SPLITS), required=True)
    run.add_argument("--preset", default="auto")
    run.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    run.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--label", default=None, help="a name for the run (default: the preset and its options)")
    run.add_argument("--dbs-per-fold", type=int, default=DBS_PER_FOLD)
    run.add_argument("--per-db", type=int, default=PER_DB)
    run.add_argument("--seed", type=int, default=SEED)
    run.add_argument("--limit", type=int, default=None)
    run.add_argument("--runs", type=Path, default=RESULTS / "runs")
    gold = commands.add_parser("gold", help="every check on the gold queries of the training databases (no model)")
    gold.add_argument("--limit", type=int, default=None, help="at most this many questions (file order)")
    gold.add_argument("--out", type=Path, default=RESULTS / "gold_checks.json")
    report = commands.add_parser("report", help="write generalization.md and .png from every run")
    report.add_argument("--baseline", action="append", default=[],
                        help="LABEL@COMMIT of a run each run is compared with (repeatable: one table each)")
    report.add_argument("--runs", type=Path, default=RESULTS / "runs")
    report.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.command == "run":
        return run_split(args, argv if argv is not None else sys.argv[1:])
    if args.command == "gold":
        return gold_checks(args)
    write_report(args.runs, args.out, args.baseline)
    return 0


# ---- running ----------------------------------------------------------------------------------------------------


def head_commit() -> str:
    from provenance import current_commit

    return current_commit(REPO)


def run_split(args: argparse.Namespace, argv: list[str]) -> int:
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.evaluation.folds import fold_sample
    from groundsql.evaluation.runner import EvalOptions, run_evaluation

    root = SPLITS[args.split]
    if not root.is_dir():
        print(f"error: {root} is missing (the shared data folder sits beside the checkout)", file=sys.stderr)
        return 2
    dataset = load_dataset(root)
    if args.split == "train":
        dataset.questions = fold_sample(dataset, dbs_per_fold=args.dbs_per_fold, per_db=args.per_db,
                                        seed=args.seed)
    options = dict(item.split("=", 1) for item in args.option)
    label = args.label or args.preset + "".join(f"+{k}={v}" for k, v in sorted(options.items()))
    commit = head_commit()
    out = args.runs / args.split / f"{label}@{commit}"
    out.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/generalization.py " + " ".join(shlex.quote(a) for a in argv)
    if os.environ.get("GROUNDSQL_THREADS"):
        command = f"GROUNDSQL_THREADS={os.environ['GROUNDSQL_THREADS']} {command}"
    with (out / "command.txt").open("a", encoding="utf-8") as handle:
        handle.write(f"{command}\n# code: {commit}\n# machine: {platform.system()} {platform.machine()}, "
                     f"{os.cpu_count()} CPU cores, Python {platform.python_version()}\n")
    summary = run_evaluation(dataset, EvalOptions(preset=args.preset, model=args.model, options=options,
                                                  limit=args.limit), out)
    print(f"{label}@{commit} on {args.split}: EX {summary['ex']:.1f} over {summary['n']} questions → {out}")
    return 0


# ---- the checks on right answers ------------------------------------------------------------------------------


def gold_checks(args: argparse.Namespace) -> int:
    """Run every exact check on every gold query of the training databases: a right answer by definition, so a
    finding is a false alarm and a rewrite whose result differs would turn a right answer wrong."""
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.evaluation.folds import fold_of
    from groundsql.evaluation.scoring import Scorer
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.checks import CHECKS, sanity_check
    from groundsql.selection.shape import SHAPE_CHECKS

    dataset = load_dataset(SPLITS["train"])
    questions = [q for q in dataset.questions if q.db_path is not None][: args.limit]
    scorer, catalogs = Scorer("spider"), {}
    fired: Counter = Counter()
    changed: Counter = Counter()
    by_fold: dict[str, Counter] = defaultdict(Counter)
    ran = 0
    examples: dict[str, list[dict[str, str]]] = defaultdict(list)
    for index, q in enumerate(questions):
        if q.db_id not in catalogs:
            catalogs.clear()  # one database at a time: questions come grouped by database
            catalogs[q.db_id] = build_catalog(Database(str(q.db_path)))
        ctx = Context(question=q.question, db=Database(str(q.db_path)), models={"default": ScriptedModel([])},
                      catalog=catalogs[q.db_id])
        candidate = execute_candidate(ctx, q.gold_sql, source="gold")
        if not candidate.ok:
            continue
        ran += 1
        for finding in sanity_check(ctx, candidate, checks=CHECKS + SHAPE_CHECKS):
            fired[finding.check] += 1
            if finding.rewrite and not scorer.score(q.db_path, q.gold_sql, finding.rewrite).correct:
                changed[finding.check] += 1
                by_fold[finding.check][str(fold_of(q.db_id))] += 1
                if len(examples[finding.check]) < 5:
                    examples[finding.check].append({"question": q.question, "gold": q.gold_sql,
                                                    "rewrite": finding.rewrite})
        if index % 500 == 0:
            print(f"{index}/{len(questions)} questions, {ran} gold queries ran", file=sys.stderr)
    result = {"questions": len(questions), "gold_ran": ran, "commit": head_commit(),
              "fired": dict(fired.most_common()), "rewrite_changes_result": dict(changed.most_common()),
              "changes_by_fold": {k: dict(v) for k, v in by_fold.items()}, "examples": examples}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("questions", "gold_ran", "fired", "rewrite_changes_result")}, indent=1))
    return 0


# ---- reporting --------------------------------------------------------------------------------------------------


def _records(run: Path) -> list[dict[str, Any]]:
    path = run / "results.jsonl"
    if not path.is_file():
        return []
    by_id = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            by_id[str(record["id"])] = record
    return list(by_id.values())


def _commit(run: Path) -> str:
    commits = [line.split(":", 1)[1].strip() for line in (run / "command.txt").read_text().splitlines()
               if line.startswith("# code:")] if (run / "command.txt").is_file() else []
    return " → ".join(dict.fromkeys(commits)) or "unknown"


def _stats(records: list[dict[str, Any]]) -> dict[str, Any]:
    from groundsql.evaluation.folds import fold_of

    n = len(records)
    right = sum(bool(r.get("correct")) for r in records)
    calls = [r.get("usage", {}).get("llm_calls", 0) for r in records]
    latency = sorted(r.get("elapsed_s") or 0.0 for r in records)
    tokens = [r.get("usage", {}).get("evaluated_prompt_tokens", 0) for r in records]
    sure = [r for r in records if (r.get("confidence") or 0) >= 0.8]
    folds: dict[int, list[bool]] = defaultdict(list)
    for r in records:
        folds[fold_of(r["db_id"])].append(bool(r.get("correct")))
    return {
        "n": n, "ex": 100.0 * right / n if n else 0.0, "right": right,
        "calls_median": statistics.median(calls) if calls else 0, "calls_mean": statistics.fmean(calls) if calls else 0,
        "p50": _quantile(latency, 0.5), "p90": _quantile(latency, 0.9),
        "tokens": statistics.fmean(tokens) if tokens else 0.0,
        "sure_share": 100.0 * len(sure) / n if n else 0.0,
        "sure_right": 100.0 * sum(bool(r.get("correct")) for r in sure) / len(sure) if sure else 0.0,
        "folds": {f: 100.0 * sum(v) / len(v) for f, v in sorted(folds.items())},
    }


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * len(values)))]


def _check_effects(records: list[dict[str, Any]], root: Path) -> Counter:
    """(check, effect) → count, effect one of made_wrong / made_right / same, scoring each kept rewrite's query
    before and after against the gold."""
    from groundsql.evaluation.datasets import database_path
    from groundsql.evaluation.scoring import Scorer

    scorer, effects = Scorer("spider"), Counter()
    for record in records:
        db = database_path(root, record["db_id"])
        for repair in record.get("shape_repairs") or []:
            before = scorer.score(db, record["gold_sql"], repair["before"]).correct
            after = scorer.score(db, record["gold_sql"], repair["after"]).correct
            effect = "same" if before == after else ("made_right" if after else "made_wrong")
            effects[(repair["check"], effect)] += 1
    return effects


def write_report(runs_dir: Path, out: Path, baselines: list[str]) -> None:
    lines = ["# Generalization: tuned on the training databases, claimed on the open dev split", "",
             f"Runs under `{_rel(runs_dir)}`, one folder per split and run, named `LABEL@COMMIT`; each run's "
             "`command.txt` holds the command that made it and the commit (more than one where it was resumed at "
             "another). Train: a fold-stratified sample of the training databases (`--dbs-per-fold "
             f"{DBS_PER_FOLD} --per-db {PER_DB} --seed {SEED}`); dev: the open dev split's questions (a run may cover "
             "part of them: the comparisons below are on the questions both runs answered). Runs share one reply "
             "store, so a run that came after another replays the calls they share: its p50/p90 measure the "
             "database work and the calls it made itself, not what a user would wait (compare latency only between "
             "runs that made their calls).", ""]
    plot: dict[str, dict[str, float]] = {}
    for split in sorted(SPLITS, reverse=True):
        folder = runs_dir / split
        runs = {p.name: _records(p) for p in sorted(folder.iterdir())} if folder.is_dir() else {}
        runs = {name: recs for name, recs in runs.items() if recs}
        if not runs:
            continue
        lines += [f"## {split}", "", "| run | code | questions | EX % | " + ("EX by fold % | " if split == "train"
                  else "") + "calls (median / mean) | p50 / p90 s | evaluated tokens | conf ≥ 0.8: share / right % |",
                  "|---|---|---:|---:|" + ("---|" if split == "train" else "") + "---|---|---:|---|"]
        from provenance import check_row_commits

        commits = {name: _commit(folder / name) for name in runs}
        check_row_commits([(f"| {name} | {commits[name]} |", commits[name]) for name in runs])
        for name, records in runs.items():
            s = _stats(records)
            folds = " / ".join(f"{v:.0f}" for v in s["folds"].values())
            lines.append(f"| {name} | {commits[name]} | {s['n']} | {s['ex']:.1f} | "
                         + (f"{folds} | " if split == "train" else "")
                         + f"{s['calls_median']:g} / {s['calls_mean']:.2f} | {s['p50']:.1f} / {s['p90']:.1f} | "
                         f"{s['tokens']:.0f} | {s['sure_share']:.0f} / {s['sure_right']:.1f} |")
            plot.setdefault(name, {})[split] = s["ex"]
        for baseline in [b for b in baselines if b in runs]:
            lines += ["", f"Question by question against `{baseline}`, on the questions both answered:", "",
                      "| run | common | won | lost | net |", "|---|---:|---:|---:|---:|"]
            base = {str(r["id"]): bool(r.get("correct")) for r in runs[baseline]}
            for name, records in runs.items():
                if name == baseline:
                    continue
                mine = {str(r["id"]): bool(r.get("correct")) for r in records}
                common = base.keys() & mine.keys()
                won = sum(mine[i] and not base[i] for i in common)
                lost = sum(base[i] and not mine[i] for i in common)
                lines.append(f"| {name} | {len(common)} | {won} | {lost} | {won - lost:+d} |")
        effects: Counter = Counter()
        for records in runs.values():
            effects += _check_effects(records, SPLITS[split])
        if effects:
            checks = sorted({c for c, _ in effects})
            lines += ["", "Exact rewrites kept, scored before and after against the gold (summed over the runs of the "
                      "split, so a question several runs share counts once per run):",
                      "", "| check | kept | made right | made wrong | same |", "|---|---:|---:|---:|---:|"]
            for check in checks:
                kept = sum(effects[(check, e)] for e in ("made_right", "made_wrong", "same"))
                lines.append(f"| {check} | {kept} | {effects[(check, 'made_right')]} | "
                             f"{effects[(check, 'made_wrong')]} | {effects[(check, 'same')]} |")
        lines.append("")
    gold = out / "gold_checks.json"
    if gold.is_file():
        lines += _gold_section(json.loads(gold.read_text(encoding="utf-8")))
    out.mkdir(parents=True, exist_ok=True)
    notes = out / "generalization.md"
    kept = ""
    marker = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"
    if notes.is_file() and marker in notes.read_text(encoding="utf-8"):
        kept = notes.read_text(encoding="utf-8").split(marker, 1)[1]
    lines += ["![EX per run and split](generalization.png)", "", marker]
    notes.write_text("\n".join(lines) + kept, encoding="utf-8")
    _plot(plot, out / "generalization.png")
    print(notes.read_text(encoding="utf-8"))


def _gold_section(gold: dict[str, Any]) -> list[str]:
    """The checks run on every gold query of the training databases (`gold`): right answers by definition."""
    lines = ["## Every check on the right answers of the training databases", "",
             f"`python benchmarks/generalization.py gold` at {gold['commit']}: {gold['gold_ran']} gold queries of "
             f"{gold['questions']} training questions ran; each was checked as an answer would be. A finding here is a "
             "false alarm (it sends `auto` to escalate), and a rewrite whose result differs from the gold's would turn "
             "a right answer wrong if the repair kept it.", "",
             "| check | findings (false alarms) | % of gold | rewrites that change the result | % of gold |",
             "|---|---:|---:|---:|---:|"]
    n = max(1, gold["gold_ran"])
    for check in sorted(gold["fired"], key=lambda c: -gold["fired"][c]):
        fired, changed = gold["fired"][check], gold["rewrite_changes_result"].get(check, 0)
        lines.append(f"| {check} | {fired} | {100 * fired / n:.2f} | {changed} | {100 * changed / n:.2f} |")
    return [*lines, ""]


def _plot(plot: dict[str, dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(plot)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(names)), 4))
    width = 0.38
    for offset, split in ((-width / 2, "train"), (width / 2, "dev")):
        values = [plot[n].get(split, 0.0) for n in names]
        ax.bar([i + offset for i in range(len(names))], values, width, label=split)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("execution accuracy %")
    ax.set_ylim(0, 100)
    ax.legend()
    ax.set_title("Spider train folds (tuning) and dev split (held out)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
