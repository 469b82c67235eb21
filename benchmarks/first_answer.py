"""A person waiting: how long the default preset takes to answer, stage by stage, with the embedded model.

Two questions a new user asks first: the demo shop's "How many customers does each region have?" and Chinook's
"Which genre brings in the most revenue?". The model is loaded once (a warm model, as in `groundsql serve` or
`chat`); each question is asked twice: first with the database's schema prompt not yet in the model's prefix cache
(the first question about a database), then again with it cached (every later question). For each ask: wall
seconds, model seconds, calls, prompt tokens sent and evaluated (not served from the prefix cache), completion
tokens, per-step seconds, and whether the answer matches a reference query.

    GROUNDSQL_THREADS=2 python benchmarks/first_answer.py          # writes benchmarks/results/first_answer/first_answer.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHINOOK = REPO.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
CASES = [
    ("demo shop", "How many customers does each region have?",
     "SELECT r.region_name, COUNT(*) FROM customers AS c JOIN regions AS r ON r.region_id = c.region_id "
     "GROUP BY r.region_name"),
    ("Chinook", "Which genre brings in the most revenue?",
     "SELECT g.Name FROM Genre AS g JOIN Track AS t ON t.GenreId = g.GenreId JOIN InvoiceLine AS l "
     "ON l.TrackId = t.TrackId GROUP BY g.GenreId ORDER BY SUM(l.UnitPrice * l.Quantity) DESC LIMIT 1"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--preset", default="auto")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "first_answer" / "first_answer.md")
    args = parser.parse_args(argv)
    import groundsql
    from groundsql.demo import generate_demo_database
    from groundsql.evaluation.scoring import Scorer
    from groundsql.knowledge.store import write_demo_knowledge
    from groundsql.models import load_model

    model = load_model(args.model)
    started = time.perf_counter()
    model.complete([{"role": "user", "content": "Say OK."}], max_tokens=2)  # load the weights: a warm model
    load_s = time.perf_counter() - started
    scorer = Scorer("spider")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        shop = Path(folder) / "shop.sqlite"
        generate_demo_database(shop, seed=7)
        write_demo_knowledge(shop)  # as `groundsql demo-db` does: the shop's rules and examples
        paths = {"demo shop": shop, "Chinook": CHINOOK}
        for name, question, reference in CASES:
            path = paths[name]
            if not path.exists():
                print(f"skipping {name}: {path} not found", file=sys.stderr)
                continue
            db = groundsql.connect(str(path))
            for pass_name in ("schema not cached", "schema cached"):
                began = time.perf_counter()
                answer = groundsql.ask(question, db, model=model, preset=args.preset)
                wall = time.perf_counter() - began
                usage = answer.trace.usage()
                calls = [e for e in answer.trace.events if type(e).__name__ == "ModelCall"]
                steps = ", ".join(f"{c.step} {c.latency_s:.1f}s/{c.prompt_tokens - c.cached_tokens}ev"
                                  for c in calls)
                verdict = scorer.score(path, reference, answer.sql)
                rows.append({"database": name, "question": question, "pass": pass_name, "wall_s": round(wall, 1),
                             "model_s": round(sum(c.latency_s for c in calls), 1), "calls": usage.llm_calls,
                             "prompt_tokens": usage.prompt_tokens,
                             "evaluated_prompt_tokens": usage.evaluated_prompt_tokens,
                             "completion_tokens": usage.completion_tokens, "steps": steps,
                             "right": verdict.correct, "sql": answer.sql, "confidence": answer.confidence})
                print(json.dumps(rows[-1]), flush=True)
    from provenance import current_commit

    commit = current_commit()  # the entry point's label, else HEAD (-dirty when tracked files differ)
    given = argv if argv is not None else sys.argv[1:]
    command = "python benchmarks/first_answer.py " + " ".join(shlex.quote(a) for a in given)
    threads = os.environ.get("GROUNDSQL_THREADS", "")
    lines = ["# A person waiting: the first answers, stage by stage", "",
             f"Command: `{('GROUNDSQL_THREADS=' + threads + ' ') if threads else ''}{command.strip()}` at commit "
             f"`{commit}`; {platform.machine()}, {os.cpu_count()} CPU cores; model {args.model} (loading it took "
             f"{load_s:.1f} s, not counted below); preset `{args.preset}`.", "",
             "*Evaluated* prompt tokens are those the model had to read (the rest came from its prefix cache).", "",
             "| database | question | pass | wall s | model s | calls | prompt tokens (evaluated) | completion | "
             "right | confidence |", "|---|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        lines.append(f"| {r['database']} | {r['question']} | {r['pass']} | {r['wall_s']} | {r['model_s']} | "
                     f"{r['calls']} | {r['prompt_tokens']} ({r['evaluated_prompt_tokens']}) | "
                     f"{r['completion_tokens']} | {'yes' if r['right'] else 'no'} | {r['confidence']} |")
    lines += ["", "Per model call (step, seconds, evaluated prompt tokens):", ""]
    lines += [f"- {r['database']}, {r['pass']}: {r['steps']}" for r in rows]
    lines += ["", "SQL returned:", ""] + [f"- {r['database']}, {r['pass']}: `{' '.join(r['sql'].split())}`"
                                          for r in rows]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
