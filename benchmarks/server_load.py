"""Server load on loopback: concurrent guarded SQL requests and concurrent asks (scripted model), p50/p99.

    .venv/bin/python benchmarks/server_load.py [--sql 50] [--asks 20] [--model-delay 0.05] [--out FILE]

A real uvicorn server on 127.0.0.1 (a free port) serves the demo shop database generated in a temporary folder.
The asks use the scripted demo model (each model call sleeps --model-delay seconds, standing in for an API
model), so the numbers measure the server, the queue and the database — not a language model.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from groundsql.demo import generate_demo_database
from groundsql.runs import RunStore
from groundsql.server import ServerOptions, Workspace
from groundsql.server.app import create_app
from groundsql.server.testing import BackgroundServer, demo_model, fire, percentile

SQL = ["SELECT r.region_name, COUNT(*) AS customers FROM customers c JOIN regions r USING (region_id) GROUP BY 1",
       "SELECT category, SUM(l.quantity * l.unit_price) AS revenue FROM order_lines l "
       "JOIN products p USING (product_id) GROUP BY category ORDER BY revenue DESC",
       "SELECT status, COUNT(*) FROM orders GROUP BY status",
       "SELECT * FROM customers ORDER BY customer_id LIMIT 100"]
QUESTIONS = ["How many customers per region?", "How many orders per month?", "How many orders are there?",
             "How many customers are in each country?"]


def measure(url: str, path: str, bodies: list[dict]) -> dict:
    started = time.perf_counter()
    results = fire(url, path, bodies)
    wall = time.perf_counter() - started
    seconds = [s for _, s in results]
    errors = sum(1 for status, _ in results if status != 200)
    return {"n": len(results), "errors": errors, "p50": percentile(seconds, 50), "p99": percentile(seconds, 99),
            "max": max(seconds), "wall": wall, "statuses": sorted({status for status, _ in results})}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sql", type=int, default=50, help="concurrent SQL requests")
    parser.add_argument("--asks", type=int, default=20, help="concurrent asks")
    parser.add_argument("--model-delay", type=float, default=0.05, help="seconds per scripted model call")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "server_load" / "server_load.md",
                        help="also write the Markdown report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "shop.sqlite"
        generate_demo_database(db, seed=7)
        options = ServerOptions(queue_size=max(args.asks, 16), model_concurrency=4, record=True)
        workspace = Workspace({"shop": str(db)}, demo_model(args.model_delay), options,
                              runs=RunStore(Path(folder) / "runs.sqlite"))
        with BackgroundServer(create_app(workspace)) as server:
            fire(server.url, "/v1/sql", [{"sql": "SELECT 1"}])  # warm-up
            sql = measure(server.url, "/v1/sql", [{"sql": SQL[i % len(SQL)]} for i in range(args.sql)])
            asks = measure(server.url, "/v1/ask", [{"question": QUESTIONS[i % len(QUESTIONS)]}
                                                   for i in range(args.asks)])
        workspace.close()
    lines = ["# Server load on loopback", "",
             f"Command: `{' '.join([Path(sys.executable).name, *sys.argv])}`  ",
             f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
             f"demo shop database (SQLite); asks use the scripted model ({args.model_delay:g} s per call), "
             f"4 model slots, preset refine. Load average when measured: {os.getloadavg()[0]:.1f} "
             "(a shared machine).", "",
             "| workload | concurrent requests | errors | p50 (s) | p99 (s) | max (s) | wall (s) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, row in (("POST /v1/sql (guarded SQL)", sql), ("POST /v1/ask (scripted model)", asks)):
        lines.append(f"| {name} | {row['n']} | {row['errors']} | {row['p50']:.3f} | {row['p99']:.3f} | "
                     f"{row['max']:.3f} | {row['wall']:.2f} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if sql["errors"] == 0 and asks["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
