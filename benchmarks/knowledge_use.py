"""Knowledge-use check: 20 questions on the demo shop that need a business rule or a glossary entry.

    GROUNDSQL_THREADS=1 .venv/bin/python benchmarks/knowledge_use.py [--model local:qwen2.5-coder-1.5b]
        [--preset baseline] [--conditions plain,catalog,knowledge] [--out benchmarks/results/knowledge_use/knowledge_use.md]

The demo database (seed 7) and its knowledge folder (`groundsql demo-db`) are generated in a temporary folder laid
out as a Spider dataset; the questions and their hand-checked gold SQL are in `knowledge_use/questions.json`.
Conditions, all with the same preset and model:

* ``plain``: no knowledge at all (plain DDL with example rows: what groundsql showed before the knowledge package);
* ``catalog``: catalog context and dialect notes, but not the knowledge folder;
* ``knowledge``: catalog context, dialect notes and the knowledge folder (the default).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from groundsql.demo import generate_demo_database
from groundsql.evaluation import evaluate
from groundsql.knowledge.store import write_demo_knowledge

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "knowledge_use" / "questions.json"
CONDITIONS = {
    "plain": {"catalog_context": False, "knowledge": False, "dialect_notes": False},
    "catalog": {"knowledge": False},
    "knowledge": {},
}


def make_dataset(root: Path) -> Path:
    """A Spider-format dataset: dev.json and database/demo/demo.sqlite with demo.sqlite.knowledge/ beside it."""
    db = root / "database" / "demo" / "demo.sqlite"
    generate_demo_database(db, seed=7)
    write_demo_knowledge(db)
    shutil.copy(QUESTIONS, root / "dev.json")
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--preset", default="baseline")
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "knowledge_use" / "knowledge_use.md",
                        help="also write the Markdown report here")
    parser.add_argument("--runs", type=Path, default=None, help="keep each condition's run directory here")
    args = parser.parse_args()
    command = "python benchmarks/knowledge_use.py " + " ".join(sys.argv[1:])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        dataset = make_dataset(Path(tmp) / "demo_knowledge")
        for name in args.conditions.split(","):
            out = args.runs / name if args.runs else Path(tmp) / "runs" / name
            started = time.perf_counter()
            summary = evaluate(dataset, preset=args.preset, model=args.model, out=out, report=False,
                               limit=args.limit, options=dict(CONDITIONS[name]))
            records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line]
            n = len(records)
            right = sum(1 for r in records if r["correct"])
            errors = sum(1 for r in records if r.get("failure") == "execution_error")
            tokens = sum(r["usage"]["prompt_tokens"] for r in records) / max(n, 1)
            seconds = sum(r["elapsed_s"] for r in records) / max(n, 1)
            rows.append((name, right, n, errors, tokens, seconds, time.perf_counter() - started))
            wrong = [r["id"] for r in records if not r["correct"]]
            print(f"{name}: {right}/{n} right, {errors} execution errors; wrong ids {wrong}", file=sys.stderr)
            del summary
    lines = [
        "# Knowledge-use check (20 questions on the demo shop that need a rule or a glossary entry)",
        "",
        f"Command: `GROUNDSQL_THREADS={os.environ.get('GROUNDSQL_THREADS', '')} {command}`",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}; "
        f"model `{args.model}`, preset `{args.preset}`.",
        "",
        "| condition | right | EX | execution errors | prompt tokens / question | seconds / question |",
        "|---|---|---|---|---|---|",
    ]
    for name, right, n, errors, tokens, seconds, _ in rows:
        lines.append(f"| {name} | {right}/{n} | {100 * right / max(n, 1):.0f}% | {errors} | {tokens:.0f} | "
                     f"{seconds:.1f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
