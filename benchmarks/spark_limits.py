"""Spark resource statements, each in a fresh process with the local session groundsql starts itself: how long
the statement takes to end, the peak memory of the process (Python and its Spark JVM together), and whether
the next query answers (and how long it takes, a JVM restart included).

    PYTHONPATH=src python benchmarks/spark_limits.py [--timeout 5] > benchmarks/results/spark_limits/spark_limits.md

`--one SQL` (repeatable; the tests use it) runs the given statements in this process instead, one after the other
on the session the previous one left, a RESULT line each. `--raw` runs them past the guard (straight to the
engine), to measure the engine-side limits alone: the time limit, the stuck-statement restart and the JVM's own
memory bound.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

#: (label, statement, through the guard?) — the issue's statements first, then variants.
STATEMENTS: list[tuple[str, str, bool]] = [
    ("lpad of a computed length", "SELECT length(lpad('a', CAST('1000000000' AS INT), 'b'))", True),
    ("repeat of a column", "SELECT length(repeat('a', id)) FROM range(1000000000, 1000000001)", True),
    ("CTE doubling 20 times", "WITH " + ", ".join(
        ["t0 AS (SELECT 'x' AS s)"] + [f"t{i} AS (SELECT concat(s, s) AS s FROM t{i - 1})" for i in range(1, 21)])
     + " SELECT length(s) FROM t20", True),
    ("cross join of two ranges", "SELECT count(*) FROM range(1000000) a CROSS JOIN range(1000000) b", True),
    ("collect_list of 1 MB values", "SELECT size(collect_list(repeat('x', 1000000))) FROM range(5000)", True),
    ("collect_list of 100 kB values", "SELECT size(collect_list(repeat('x', 100000))) FROM range(100000)", True),
    ("sort of 1e9 rows", "SELECT id FROM range(1000000000) ORDER BY rand() LIMIT 5", True),
    ("sequence of 1e9", "SELECT size(sequence(1, 1000000000))", True),
    ("CTE doubling 20 times, unguarded", "WITH " + ", ".join(
        ["t0 AS (SELECT 'x' AS s)"] + [f"t{i} AS (SELECT concat(s, s) AS s FROM t{i - 1})" for i in range(1, 21)])
     + " SELECT length(s) FROM t20", False),
    ("lpad of a computed length, unguarded", "SELECT length(lpad('a', CAST('1000000000' AS INT), 'b'))", False),
    ("collect_list of 1 MB values, unguarded",
     "SELECT size(collect_list(repeat('x', 1000000))) FROM range(5000)", False),
]


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _jvm_pid() -> int | None:
    try:
        from pyspark import SparkContext

        process = getattr(SparkContext._gateway, "proc", None)
        return process.pid if process is not None else None
    except Exception:
        return None


def run_one(sql: str, timeout_s: float, guarded: bool) -> dict:
    """In this process: open groundsql's own local session, run `sql`, then `SELECT 1`; time and memory."""
    from groundsql.db import Database
    from groundsql.errors import DatabaseError

    db = Database("spark+local://", timeout_s=timeout_s, max_rows=50)
    db.execute("SELECT 1 AS warm", timeout_s=120)  # a cold JVM under load may take longer than the limit
    peak = {"kb": 0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.05):
            pid = _jvm_pid()
            total = _rss_kb(os.getpid()) + (_rss_kb(pid) if pid else 0)
            peak["kb"] = max(peak["kb"], total)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    try:
        result = db.execute(sql, timeout_s=timeout_s) if guarded else db._run(sql, 50, timeout_s)
        verdict, detail = "ran", f"{result.row_count} row(s)"
    except DatabaseError as exc:
        verdict, detail = type(exc).__name__, str(exc)
    ended = time.perf_counter() - started
    next_started = time.perf_counter()
    try:
        answered = db.execute("SELECT 1 AS ok", timeout_s=120).rows == [(1,)]
    except DatabaseError as exc:
        answered, detail = False, f"{detail}; next: {exc}"
    stop.set()
    return {"verdict": verdict, "detail": detail[:160], "ended_s": round(ended, 2),
            "next_s": round(time.perf_counter() - next_started, 2), "next_ok": answered,
            "peak_mb": round(peak["kb"] / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--only", help="Labels to run, comma-separated.")
    parser.add_argument("--one", action="append", help=argparse.SUPPRESS)
    parser.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # each in turn in this process, the next on the session the previous one left (restarted)
        for sql in args.one:
            print("RESULT " + json.dumps(run_one(sql, args.timeout, not args.raw)), flush=True)
        return
    chosen = [s for s in STATEMENTS if not args.only or s[0] in args.only.split(",")]
    print(f"command: `python benchmarks/spark_limits.py --timeout {args.timeout:g}"
          f"{' --only ' + args.only if args.only else ''}`  ")
    print(f"machine: {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs "
          f"(affinity {sorted(os.sched_getaffinity(0))})  \n")
    print("| statement | through the guard | outcome | ended after (s) | peak memory, Python + JVM (MB) "
          "| next query answers | next query took (s) |")
    print("|---|---|---|---|---|---|---|")
    for label, sql, guarded in chosen:
        command = [sys.executable, __file__, "--one", sql, "--timeout", str(args.timeout)] + ([] if guarded
                                                                                              else ["--raw"])
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            print(f"| {label} | {'yes' if guarded else 'no'} | the process failed: "
                  f"{(done.stderr.strip().splitlines() or ['?'])[-1][:100]} |||||")
            continue
        r = json.loads(line.removeprefix("RESULT "))
        outcome = f"{r['verdict']}: {r['detail'][:90]}".replace("|", "\\|")
        print(f"| {label} | {'yes' if guarded else 'no'} | {outcome} | {r['ended_s']} | {r['peak_mb']} "
              f"| {'yes' if r['next_ok'] else 'NO'} | {r['next_s']} |", flush=True)


if __name__ == "__main__":
    main()
