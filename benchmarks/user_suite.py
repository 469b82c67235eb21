"""A user's own suite, measured: the demo shop's 20 knowledge questions as an evaluation suite (SQLite).

    GROUNDSQL_THREADS=1 flock /tmp/groundsql-model.lock .venv/bin/python benchmarks/user_suite.py \\
        --model local:qwen2.5-coder-1.5b --presets baseline,refine,auto --conditions knowledge,none

The demo database (seed 7) and its knowledge folder (`groundsql demo-db`) are generated under --work, with the 20
questions of `knowledge_use/questions.json` (each needs a business rule or a glossary entry; hand-checked gold
SQL) as its verified examples in place of the shipped ones; `groundsql eval suite build` turns them into the suite.
Each preset then runs the suite under two conditions, with the same model:

* ``knowledge``: the knowledge folder in the prompt (rules, glossary, handbook, the other 19 verified examples),
  each question asked with its own example left out (leave-one-out, as every suite run does);
* ``none``: ``--option knowledge=false``: no knowledge folder (the catalog and dialect notes stay).

Each run is a resumable `groundsql eval` run under --runs-dir (interrupted? run the same command again). The
report (Markdown, with the command and the machine) and a bar chart are written to --out and the PNG beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "benchmarks" / "knowledge_use" / "questions.json"
CONDITIONS: dict[str, dict[str, Any]] = {"knowledge": {}, "none": {"knowledge": False}}


def make_suite(work: Path) -> Path:
    """The demo shop with the 20 questions as verified examples, and its suite (built once, then reused)."""
    from groundsql.db import Database
    from groundsql.demo import generate_demo_database
    from groundsql.evaluation import build_suite
    from groundsql.knowledge.store import write_demo_knowledge
    from groundsql.runs import RunStore

    suite = work / "demo.json"
    if suite.is_file():
        return suite
    db_path = work / "demo.sqlite"
    generate_demo_database(db_path, seed=7, overwrite=True)
    folder = write_demo_knowledge(db_path, overwrite=True)
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    lines = ["# The 20 knowledge questions of benchmarks/knowledge_use/questions.json, as verified examples.",
             "examples:"]
    for q in questions:
        lines += [f"  - question: {json.dumps(q['question'])}", f"    sql: {json.dumps(q['query'])}"]
    (folder / "examples.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Database(str(db_path)) as db:  # no marked runs: an empty run store of its own
        report = build_suite(db, store=RunStore(work / "runs.sqlite"), out=suite)
    if report.questions != len(questions):
        raise SystemExit(f"the suite holds {report.questions} questions, expected {len(questions)}: {report.skipped}")
    return suite


def run_name(preset: str, condition: str, model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{preset}__{condition}__{model}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--presets", default="baseline,refine,auto")
    parser.add_argument("--conditions", default=",".join(CONDITIONS), help=f"of {', '.join(CONDITIONS)}")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions of the suite")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "groundsql-user-suite",
                        help="where the demo database, its knowledge folder and the suite are made")
    parser.add_argument("--runs-dir", type=Path, default=REPO / "benchmarks" / "results" / "user_suite" / "runs")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "user_suite" / "user_suite.md")
    args = parser.parse_args()
    command = "python benchmarks/user_suite.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    print(f"$ {command}\nmachine: {machine()}", flush=True)
    unknown = set(args.conditions.split(",")) - set(CONDITIONS)
    if unknown:
        parser.error(f"unknown condition(s) {', '.join(sorted(unknown))}; use {', '.join(CONDITIONS)}")

    from provenance import current_commit

    from groundsql.evaluation import evaluate
    from groundsql.models import load_model

    commit = current_commit()  # before the runs write anything
    args.work.mkdir(parents=True, exist_ok=True)
    suite = make_suite(args.work)
    model = load_model(args.model)  # loaded and warmed once, so no run's first question pays for the loading
    model.complete([{"role": "user", "content": "SELECT 1"}], max_tokens=1)
    rows = []
    for preset in args.presets.split(","):
        for condition in args.conditions.split(","):
            out = args.runs_dir / run_name(preset, condition, args.model)
            started = time.perf_counter()
            summary = evaluate(suite, preset=preset, model=model, out=out, limit=args.limit,
                               options=dict(CONDITIONS[condition]))
            (out / "command.txt").write_text(f"{command}\n# machine: {machine()}\n# code: {commit}\n", encoding="utf-8")
            rows.append((preset, condition, summary, time.perf_counter() - started))
            print(f"{preset} / {condition}: EX {summary['ex']}% ({summary['correct']}/{summary['n']})", flush=True)
    report = markdown(rows, command, args.model, suite, commit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    plot(rows, args.out.with_suffix(".png"), args.model)
    print(report)
    return 0


def markdown(rows: list[tuple[str, str, dict[str, Any], float]], command: str, model: str, suite: Path,
             commit: str = "unknown") -> str:
    lines = [
        "# A user's own suite: the demo shop's knowledge questions",
        "",
        f"Command: `GROUNDSQL_THREADS={os.environ.get('GROUNDSQL_THREADS', '')} {command}`",
        f"Updated: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, code at commit `{commit}`. "
        f"Machine: {machine()}. Model `{model}`.",
        f"Suite: `groundsql eval suite build` on the demo shop (seed 7), its verified examples the 20 questions of "
        f"`benchmarks/knowledge_use/questions.json`; `{suite.name}`.",
        "",
        "`knowledge`: the knowledge folder in the prompt, each question without its own verified example "
        "(leave-one-out); `none`: `--option knowledge=false`. The model is loaded and warmed up before the first "
        "run, so latency is answering time.",
        "",
        "| preset | knowledge | n | right | EX % | own examples left out | tokens / question | model calls / question "
        "| latency mean s | latency p90 s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for preset, condition, s, _ in rows:
        per_q = s["usage"]["per_question"]
        loo = s.get("leave_one_out") or {}
        left = f"{loo.get('questions', 0)}/{s['n']}" if loo.get("knowledge", True) else "– (knowledge off)"
        lines.append(f"| {preset} | {condition} | {s['n']} | {s['correct']} | {s['ex']:.1f} | {left} | "
                     f"{per_q['prompt_tokens'] + per_q['completion_tokens']:.0f} | {per_q['llm_calls']:.1f} | "
                     f"{s['latency_s']['mean']:.1f} | {s['latency_s']['p90']:.1f} |")
    lines += ["", "![EX by preset, with and without the knowledge folder](user_suite.png)", ""]
    return "\n".join(lines)


def plot(rows: list[tuple[str, str, dict[str, Any], float]], path: Path, model: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    presets = list(dict.fromkeys(r[0] for r in rows))
    conditions = list(dict.fromkeys(r[1] for r in rows))
    width = 0.8 / max(len(conditions), 1)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for index, condition in enumerate(conditions):
        values = [next((s["ex"] for p, c, s, _ in rows if p == preset and c == condition), 0.0) for preset in presets]
        bars = ax.bar([i + index * width for i in range(len(presets))], values, width, label=condition)
        ax.bar_label(bars, labels=[f"{v:.0f}%" for v in values], fontsize=8)
    ax.set_xticks([i + width * (len(conditions) - 1) / 2 for i in range(len(presets))], presets)
    ax.set_ylim(0, 105)
    ax.set_ylabel("execution accuracy (%)")
    n = max((s["n"] for _, _, s, _ in rows), default=0)
    ax.set_title(f"Demo shop suite ({n} questions) — {model}", fontsize=9)
    ax.legend(title="knowledge", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def machine() -> str:
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores, Python "
            f"{platform.python_version()}, GROUNDSQL_THREADS={os.environ.get('GROUNDSQL_THREADS', 'unset')}")


if __name__ == "__main__":
    raise SystemExit(main())
