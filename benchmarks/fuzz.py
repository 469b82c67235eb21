"""Fuzzed, not only attacked: generated SQL through the guard on every engine, the HTTP API under schema fuzzing,
kill -9 of the server under load. Nightly-style; writes benchmarks/results/fuzz/.

    PYTHONPATH=src:. python benchmarks/fuzz.py sql --engines sqlite,duckdb --count 100000 [--seed 47]
    PYTHONPATH=src:. python benchmarks/fuzz.py api --requests 10000
    PYTHONPATH=src:. python benchmarks/fuzz.py crash --restarts 20
    PYTHONPATH=src:. python benchmarks/fuzz.py report      # fuzz.md and fuzz.png from the JSON results

`sql`: the seeded generator (tests/fuzz/sqlgen.py) through `Database.execute` on each engine with canaries and
oracles (tests/fuzz/harness.py); one JSON per engine (sql_<engine>.json), rewritten every 1,000 statements.
`api`: Schemathesis over the OpenAPI schema of a real `groundsql serve` app (scripted model, loopback), every
endpoint, stateful links where the schema has them (tests/fuzz/api.py). `crash`: `groundsql serve` killed
with SIGKILL under load and restarted; the run and conversation stores are checked after each restart
(tests/fuzz/crash.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
OUT = HERE / "results" / "fuzz"


def git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src", "tests"], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return commit + (" (with uncommitted changes)" if dirty else "")
    except Exception:
        return "unknown"


def machine() -> str:
    return f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def command_line() -> str:
    return " ".join(["python", "benchmarks/fuzz.py", *sys.argv[1:]])


# -- sql --------------------------------------------------------------------------------------------------


def run_sql(args: argparse.Namespace) -> int:
    from tests.fuzz.harness import fuzz_engine

    OUT.mkdir(parents=True, exist_ok=True)
    failed = 0
    for engine in [e for e in args.engines.split(",") if e]:
        # A later slice of the same seed (`--start N`) is its own file; the report adds the slices up.
        out = OUT / (f"sql_{engine}.json" if args.start == 0 else f"sql_{engine}.from{args.start}.json")
        meta = {"engine": engine, "seed": args.seed, "start": args.start, "count": args.count,
                "timeout_s": args.timeout, "check_state_every": args.check_every, "command": command_line(),
                "commit": git_commit(), "machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                       time.gmtime())}

        def save(report, done: bool = False, meta=meta, out=out) -> None:
            payload = {**meta, "done": done, "statements": report.statements, "elapsed_s": round(report.elapsed_s, 1),
                       "slowest_s": round(report.slowest_s, 2), "state_checks": report.state_checks,
                       "verdicts": dict(report.verdicts),
                       "by_kind": {f"{k}|{v}": n for (k, v), n in sorted(report.by_kind.items())},
                       "findings": [f.__dict__ for f in report.findings][:200],
                       "findings_total": len(report.findings), "stopped_at": report.stopped_at}
            out.write_text(json.dumps(payload, indent=1, default=str))
            if done or report.statements % 10_000 == 0:  # the portable verdicts, for the consistency table
                with gzip.open(out.with_suffix(".portable.json.gz"), "wt") as handle:
                    json.dump(report.guard_verdicts, handle)

        def progress(report, engine=engine, save=save) -> None:
            save(report)
            print(f"{engine}: {report.statements} statements, {dict(report.verdicts)}, "
                  f"{len(report.findings)} findings, {report.elapsed_s:.0f} s", flush=True)

        with tempfile.TemporaryDirectory(prefix="groundsql-fuzz-") as tmp:
            try:
                report = fuzz_engine(engine, Path(tmp) / engine, seed=args.seed, count=args.count, start=args.start,
                                     timeout_s=args.timeout, check_state_every=args.check_every, progress=progress)
            except Exception as exc:
                print(f"{engine}: could not run: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
                failed += 1
                continue
        save(report, done=True)
        print(f"{engine}: done, {report.statements} statements, {dict(report.verdicts)}, "
              f"{len(report.findings)} findings", flush=True)
        for finding in report.findings[:20]:
            print(f"  {finding.oracle} #{finding.number} {finding.kind}: {finding.sql[:200]!r} -> {finding.detail[:200]}")
        failed += bool(report.findings)
    return 1 if failed else 0


# -- report ---------------------------------------------------------------------------------------------


ENGINE_ORDER = ("sqlite", "duckdb", "files", "postgres", "mysql", "spark")


def consistency(results: dict[str, dict]) -> tuple[int, int, Counter]:
    """Portable cases run on two engines or more: how many, how many with one verdict, and the reasons of the
    differences (the refusing engine's reason)."""
    numbers: dict[str, dict[str, str]] = {}
    for engine, result in results.items():
        for number, verdict in result.get("portable", {}).items():
            numbers.setdefault(number, {})[engine] = verdict
    shared = {n: v for n, v in numbers.items() if len(v) >= 2}
    reasons: Counter = Counter()
    agree = 0
    for verdicts in shared.values():
        passed = {e for e, v in verdicts.items() if v == "pass"}
        if not passed or len(passed) == len(verdicts):
            agree += 1
            continue
        for engine, verdict in verdicts.items():
            if verdict != "pass":
                reasons[(engine, verdict)] += 1
    return len(shared), agree, reasons


def load_engine_slices(engine: str) -> dict:
    """One engine's results: the run from statement 0 plus any later slices of the same seed (`--start N`),
    added up while each slice starts where the one before it ended."""
    paths = [OUT / f"sql_{engine}.json"] + sorted(OUT.glob(f"sql_{engine}.from*.json"),
                                                    key=lambda p: int(p.name.split(".from")[1].split(".")[0]))
    merged: dict = {}
    for path in paths:
        part = json.loads(path.read_text())
        portable: dict = {}
        if (gz := path.with_suffix(".portable.json.gz")).exists():
            with gzip.open(gz, "rt") as handle:
                portable = json.load(handle)
        if not merged:
            merged = {**part, "portable": portable, "slices": [part]}
            continue
        if part["seed"] != merged["seed"] or part["start"] != merged["start"] + merged["statements"]:
            break  # not the continuation of what is merged so far: left out
        merged["statements"] += part["statements"]
        merged["elapsed_s"] += part["elapsed_s"]
        merged["state_checks"] += part["state_checks"]
        merged["slowest_s"] = max(merged["slowest_s"], part["slowest_s"])
        merged["verdicts"] = dict(Counter(merged["verdicts"]) + Counter(part["verdicts"]))
        merged["by_kind"] = dict(Counter(merged["by_kind"]) + Counter(part["by_kind"]))
        merged["findings"] = merged["findings"] + part["findings"]
        merged["findings_total"] += part["findings_total"]
        # done: the statements merged so far reach the end of the longest range any slice was asked for
        end = max(merged.get("end", merged["start"] + merged["count"]), part["start"] + part["count"])
        merged["end"] = end
        merged["done"] = part["done"] and merged["start"] + merged["statements"] >= end
        merged["stopped_at"] = merged.get("stopped_at") or part.get("stopped_at")
        merged["portable"].update(portable)
        merged["slices"].append(part)
    return merged


def write_report(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = {}
    for engine in ENGINE_ORDER:
        if (OUT / f"sql_{engine}.json").exists():
            results[engine] = load_engine_slices(engine)
    lines = ["# Fuzzed, not only attacked (issue 47)", ""]
    lines += ["Generated SQL (tests/fuzz/sqlgen.py: sqlglot trees per dialect, plus writes, DDL, utility statements, "
              "system catalogs, engine functions from each engine's own catalogue, comments, odd quoting, stacked and "
              "mutated statements) through `Database.execute`, judged by the oracles of tests/fuzz/harness.py: "
              "state checksums before/after (no write), planted canaries (a file, another database or schema, an "
              "environment variable, a PostgreSQL setting, another session's query text), session and server "
              "settings, the time limit + 2 s, and the documented error types.", ""]
    lines += ["## Statements per engine", "",
              "| engine | seed | statements | refused | unknown table | engine error | timeout | ran | writes | canary reads | "
              "setting changes | past limit + 2 s | undocumented errors | sessions ended | slowest | state checks | wall time "
              "| done |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for engine, r in results.items():
        v = Counter(r["verdicts"])
        oracles = Counter(f["oracle"] for f in r["findings"])
        lines.append(f"| {engine} | {r['seed']} | {r['statements']:,} | {v['refused']:,} | {v['unknown_relation']:,} | "
                     f"{v['engine_error']:,} | {v['timeout']:,} | {v['ran']:,} | {oracles['write']} | "
                     f"{oracles['canary']} | {oracles['setting']} | {oracles['late']} | {oracles['error_type']} | "
                     f"{oracles['session_ended']} | {r['slowest_s']:.2f} s | {r['state_checks']:,} | {r['elapsed_s'] / 60:.1f} min | "
                     f"{'yes' if r.get('done') else 'no (partial)'} |")
    lines += ["", "Commands and commits:", ""]
    for engine, r in results.items():
        for part in r["slices"]:
            span = "" if len(r["slices"]) == 1 else \
                f" (statements {part['start']:,}–{part['start'] + part['statements'] - 1:,})"
            lines.append(f"- {engine}{span}: `{part['command']}` at {part['commit']}, started {part['started']} "
                         f"(state and settings checked after every {part['check_state_every']} statement(s) the guard "
                         f"let through; time limit {part['timeout_s']:g} s)."
                         + (f" Note: {part['note']}." if part.get("note") else ""))
    machines = {r["machine"] for r in results.values()}
    lines += ["", f"Machine: {'; '.join(sorted(machines))}.", ""]
    kinds = sorted({key.split("|")[0] for r in results.values() for key in r["by_kind"]})
    lines += ["## Verdicts by statement kind (all engines together)", "",
              "| kind | " + " | ".join(("refused", "unknown table", "engine error", "timeout", "ran")) + " |",
              "|---|---:|---:|---:|---:|---:|"]
    for kind in kinds:
        counts = Counter()
        for r in results.values():
            for key, n in r["by_kind"].items():
                k, verdict = key.split("|")
                if k == kind:
                    counts[verdict] += n
        lines.append(f"| {kind} | " + " | ".join(f"{counts[v]:,}" for v in
                                                 ("refused", "unknown_relation", "engine_error", "timeout", "ran")) + " |")
    from tests.fuzz.harness import guard_verdicts
    from tests.fuzz.sqlgen import DIALECTS

    verdicts = guard_verdicts(args.seed, args.consistency, DIALECTS)
    shared, agree, reasons = consistency({d: {"portable": v} for d, v in verdicts.items()})
    lines += ["", "## The same statement on every engine", "",
              f"The guard's verdict on the same sqlglot tree written in each of the five dialects (one generator over "
              f"all dialects, seed {args.seed}, statement numbers 0–{args.consistency - 1:,}, each engine's shop scope; "
              "`benchmarks/fuzz.py report --consistency N`). The per-engine runs above each read their own engine's "
              "function catalogue, which changes the draws, so their statement *n* is not the same tree across "
              f"engines and is not compared. Portable statements: {shared:,}; the same verdict (let through or "
              f"refused) in every dialect: {agree:,}. The differences, by the refusing dialect's reason:", "",
              "| dialect | reason | statements |", "|---|---|---:|"]
    for (engine, why), n in reasons.most_common(25):
        lines.append(f"| {engine} | {why} | {n:,} |")
    findings = [f for r in results.values() for f in r["findings"]]
    lines += ["", "## Findings in these runs", ""]
    if not findings:
        lines.append("None: 0 writes, 0 canary reads, 0 setting changes, 0 runs past the limit + 2 s, 0 undocumented "
                     "errors.")
    for f in findings[:50]:
        lines.append(f"- {f['engine']} #{f['number']} ({f['kind']}, {f['oracle']}): `{f['sql'][:160]}` → {f['detail'][:160]}")
    extra = OUT / "findings.md"
    if extra.exists():
        lines += ["", extra.read_text().strip()]
    for name in ("api.md", "crash.md"):
        part = OUT / name
        if part.exists():
            lines += ["", part.read_text().strip()]
    if (OUT / "soak.md").exists():
        lines += ["", "## Memory at full load", "", "The soak's own report: [soak.md](soak.md) (and soak.png)."]
    if (OUT / "notes.md").exists():
        lines += ["", (OUT / "notes.md").read_text().strip()]
    (OUT / "fuzz.md").write_text("\n".join(lines) + "\n")

    fig, ax = plt.subplots(figsize=(9, 4.5))
    verdicts = ("refused", "unknown_relation", "engine_error", "timeout", "ran")
    bottom = [0.0] * len(results)
    for verdict in verdicts:
        values = [results[e]["verdicts"].get(verdict, 0) for e in results]
        ax.bar(list(results), values, bottom=bottom, label=verdict)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel("generated statements")
    ax.set_title("Generated statements per engine by verdict (0 writes, canary reads, setting changes)"
                 if not findings else "Generated statements per engine by verdict")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "fuzz.png", dpi=110)
    print((OUT / "fuzz.md").read_text())
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sql = sub.add_parser("sql", help="generated SQL on each engine")
    sql.add_argument("--engines", default="sqlite,duckdb,files,postgres,mysql,spark")
    sql.add_argument("--count", type=int, default=100_000)
    sql.add_argument("--start", type=int, default=0)
    sql.add_argument("--seed", type=int, default=47)
    sql.add_argument("--timeout", type=float, default=2.0, help="statement time limit (s)")
    sql.add_argument("--check-every", type=int, default=1,
                     help="check state and settings after every N statements the guard let through")
    api = sub.add_parser("api", help="Schemathesis over the HTTP API")
    api.add_argument("--requests", type=int, default=10_000)
    api.add_argument("--seed", type=int, default=47)
    crash = sub.add_parser("crash", help="kill -9 of groundsql serve under load")
    crash.add_argument("--restarts", type=int, default=20)
    crash.add_argument("--seed", type=int, default=47)
    report = sub.add_parser("report", help="fuzz.md and fuzz.png from the results")
    report.add_argument("--seed", type=int, default=47)
    report.add_argument("--consistency", type=int, default=5000,
                        help="statements compared across the five dialects (guard only)")
    args = parser.parse_args()
    if args.what == "sql":
        return run_sql(args)
    if args.what == "api":
        from tests.fuzz.api import run_api

        return run_api(args, OUT, command_line(), git_commit(), machine())
    if args.what == "crash":
        from tests.fuzz.crash import run_crash

        return run_crash(args, OUT, command_line(), git_commit(), machine())
    return write_report(args)


if __name__ == "__main__":
    sys.exit(main())
