"""Accuracy benchmark: presets × models side by side on a fixed seeded sample of the open Spider split.

Each (preset, model) pair is one resumable `groundsql eval` run under --runs-dir; rerunning the same command
continues where it stopped. After every finished run the Markdown table and plots in --results are rewritten
from all runs so far (partial runs are marked).

    GROUNDSQL_THREADS=2 python benchmarks/accuracy.py --presets baseline \
        --models local:qwen2.5-coder-0.5b,local:qwen2.5-coder-1.5b --n 150 --seed 2026
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPIDER = REPO.parent / "shared" / "data" / "spider"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="baseline", help="comma-separated presets")
    parser.add_argument("--models", default="local:qwen2.5-coder-0.5b,local:qwen2.5-coder-1.5b",
                        help="comma-separated model specs (add API models here)")
    parser.add_argument("--n", type=int, default=150, help="questions sampled from the open Spider split")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="concurrent questions (API models)")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    parser.add_argument("--runs-dir", type=Path, default=REPO / "benchmarks" / "runs" / "accuracy")
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--note", action="append", default=[], help="a remark to print under the table")
    parser.add_argument("--report-only", action="store_true", help="only rewrite the report from existing runs")
    args = parser.parse_args(argv)
    given = _without(argv if argv is not None else sys.argv[1:], flags={"--report-only"}, valued={"--note"})
    command = "python benchmarks/accuracy.py " + " ".join(shlex.quote(a) for a in given)
    if os.environ.get("GROUNDSQL_THREADS"):
        command = f"GROUNDSQL_THREADS={os.environ['GROUNDSQL_THREADS']} {command}"
    if not (args.dataset / "dev.json").exists():
        print(f"Spider data not found at {args.dataset}", file=sys.stderr)
        return 2
    print(f"$ {command}\nmachine: {machine()}", flush=True)

    from groundsql.evaluation import evaluate

    pairs = [(p.strip(), m.strip()) for p in args.presets.split(",") if p.strip()
             for m in args.models.split(",") if m.strip()]
    run_dirs = [args.runs_dir / f"{preset}__{slug(model)}__n{args.n}_seed{args.seed}" for preset, model in pairs]
    if not args.report_only:
        for (preset, model), run_dir in zip(pairs, run_dirs):
            print(f"== {preset} · {model} → {run_dir}", flush=True)
            started = time.time()

            def progress(record, finished, total, _started=started):
                mark = "✓" if record.get("correct") else "✗"
                print(f"  [{finished}/{total}] {mark} q{record['id']} {record.get('elapsed_s', 0):.1f}s "
                      f"({time.time() - _started:.0f}s this session)", flush=True)

            evaluate(args.dataset, preset=preset, model=model, samples=args.samples, workers=args.workers,
                     out=run_dir, progress=progress, sample=args.n, seed=args.seed)
            write_results(run_dirs, args, command)
    print(write_results(run_dirs, args, command))
    return 0


def _without(args: list[str], *, flags: set[str], valued: set[str]) -> list[str]:
    """The arguments minus report-only options, so the recorded command is the one that produced the runs."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in flags or arg.split("=", 1)[0] in valued:
            skip = arg in valued
        else:
            kept.append(arg)
    return kept


def slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in model)


def machine() -> str:
    threads = os.environ.get("GROUNDSQL_THREADS", "default")
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python "
            f"{platform.python_version()}, GROUNDSQL_THREADS={threads}")


def write_results(run_dirs: list[Path], args: argparse.Namespace, command: str) -> str:
    """Rewrite accuracy.md and its plots from every run directory that exists; returns the Markdown."""
    from groundsql.evaluation import load_run, summarize
    from groundsql.evaluation.report import plot_comparison, run_label, summary_table

    rows, notes = [], []
    for run_dir in run_dirs:
        if not (run_dir / "results.jsonl").exists():
            continue
        config, records = load_run(run_dir)
        if not records:
            continue
        label = run_label(config, run_dir.name)
        if len(records) < args.n:
            label += f" (partial: {len(records)}/{args.n})"
            notes.append(f"- {label}: not finished when this file was written (still running, or stopped: rerun the same command to resume).")
        rows.append((label, summarize(records, config)))
    args.results.mkdir(parents=True, exist_ok=True)
    lines = ["# Accuracy on the open Spider dev split", "",
             f"{args.n} questions sampled with seed {args.seed} from the 646 open Spider dev questions "
             "(execution accuracy under the official test-suite rules; difficulty = Spider hardness).", "",
             "Command:", "", "```", f"{command}", "```", "", f"Machine: {machine()}.", "",
             f"Updated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    if rows:
        lines += summary_table(rows)
        lines += ["", "Tokens are prompt + completion per question; latency is the pipeline's wall time per "
                  "question (the first question of a run includes loading the model).", ""]
        lines += ["", "Wrong answers by failure class:", "", "| run | execution_error | wrong | empty | superset | "
                  "malformed |", "|---|---:|---:|---:|---:|---:|"]
        for label, summary in rows:
            counts = summary.get("failures", {})
            lines.append(f"| {label} | " + " | ".join(str(counts.get(k, 0)) for k in
                                                      ("execution_error", "wrong", "empty", "superset", "malformed"))
                         + " |")
        lines += [""] + notes + [f"- {note}" for note in args.note]
        plots = plot_comparison(rows, args.results, prefix="accuracy_")
        lines += [""] + [f"![{name}]({file})" for name, file in plots.items()]
    else:
        lines.append("No runs yet.")
    text = "\n".join(lines) + "\n"
    (args.results / "accuracy.md").write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":
    sys.exit(main())
