"""Prompt size of the schema section: plain DDL with rows vs catalog context vs catalog + dialect notes.

    .venv/bin/python benchmarks/prompt_size.py [--dataset ../shared/data/spider] [--dbs 20] [--out FILE]

For the first question of each of the first N databases of the dataset (in file order), renders what the one
renderer would put in a generation prompt under the three ablation settings and counts tokens with the
renderer's estimate (3.2 characters per token). No model runs; catalogs are profiled (or reused) as `ask` would.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

from groundsql.catalog import estimate_tokens
from groundsql.context import Context
from groundsql.evaluation import load_dataset
from groundsql.knowledge import render_context

DATA = Path(os.environ.get("GROUNDSQL_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "data"
SETTINGS = {
    "plain": {"catalog_context": False, "knowledge": False, "dialect_notes": False},
    "catalog": {"dialect_notes": False},
    "catalog + notes": {},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=DATA / "spider")
    parser.add_argument("--dbs", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "prompt_size" / "prompt_size.md")
    args = parser.parse_args()
    from groundsql.db import Database

    dataset = load_dataset(args.dataset)
    firsts = {}
    for question in dataset.questions:
        if question.db_id not in firsts and question.db_path is not None and len(firsts) < args.dbs:
            firsts[question.db_id] = question
    totals = dict.fromkeys(SETTINGS, 0)
    lines = ["| database | " + " | ".join(SETTINGS) + " |", "|---|" + "---|" * len(SETTINGS)]
    for db_id, question in firsts.items():
        db = Database(str(question.db_path))
        counts = []
        for name, options in SETTINGS.items():
            ctx = Context(question=question.question, db=db, models={}, evidence=question.evidence,
                          options=dict(options))
            tokens = estimate_tokens(render_context(ctx).text())
            totals[name] += tokens
            counts.append(tokens)
        lines.append(f"| {db_id} | " + " | ".join(str(c) for c in counts) + " |")
    base = totals["plain"] or 1
    lines.append("| **total** | " + " | ".join(f"**{t}** ({t / base:.2f}x)" for t in totals.values()) + " |")
    report = "\n".join([
        "# Schema section size per setting (estimated tokens)", "",
        f"Command: `python benchmarks/prompt_size.py {' '.join(sys.argv[1:])}`", "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; dataset `{args.dataset}`, "
        f"first question of each of {len(firsts)} databases.", "", *lines, ""])
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
