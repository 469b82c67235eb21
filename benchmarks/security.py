"""The attack suite as a report: every attack statement and every legitimate analytics query against real
SQLite, DuckDB, PostgreSQL, MariaDB and a local Spark session; prints a Markdown table of outcomes by class
and engine.

    PYTHONPATH=src python benchmarks/security.py [--engines sqlite,duckdb] [--skip-bombs] > benchmarks/results/security/security.md

Verdicts: refused (by the guard), unknown (a table the database does not have), engine (the engine refused or
failed it), timeout, ran (it ran; its output was checked for planted secrets). State is compared before and
after without groundsql (file checksums, table checksums, sequences, statistics, roles, locks).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from groundsql.db import Database  # noqa: E402
from groundsql.db.guard import check_statement  # noqa: E402
from groundsql.db.limits import EngineLimits  # noqa: E402
from groundsql.errors import DatabaseError, RefusedStatement  # noqa: E402
from tests.security.harness import (  # noqa: E402
    ENGINES,
    attack_files,
    legitimate_queries,
    make_target,
    run_attacks,
    stray_files,
)

VERDICTS = ("refused", "unknown_relation", "engine_error", "timeout", "ran")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--skip-bombs", action="store_true", help="Leave out the resource bombs (slow).")
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    print(f"command: `python benchmarks/security.py --engines {','.join(engines)}"
          f"{' --skip-bombs' if args.skip_bombs else ''}`  ")
    print(f"machine: {platform.platform()}, Python {platform.python_version()}  ")
    totals: dict[str, Counter] = {}
    summary_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for engine in engines:
            try:
                target = make_target(engine, Path(tmp) / engine)
            except Exception as exc:
                summary_rows.append(f"| {engine} | skipped: {str(exc).splitlines()[0][:80]} |||||||")
                continue
            db = Database(target.url, timeout_s=2, max_rows=50, limits=EngineLimits(memory_mb=512))
            try:
                before, strays = target.snapshot(), stray_files()
                attacks = attack_files(engine, slow=False if args.skip_bombs else None)
                started = time.perf_counter()
                outcomes = run_attacks(db, attacks, target.secrets, timeout_s=2.0)
                attack_s = time.perf_counter() - started
                changed = target.snapshot() != before or stray_files() != strays
                legit = legitimate_queries(engine)
                failures = 0
                for sql in legit:
                    try:
                        db.execute(sql, timeout_s=10)
                    except DatabaseError:
                        failures += 1
            finally:
                db.close()
                target.close()
            counts = Counter(o.verdict for o in outcomes)
            leaks = sum(1 for o in outcomes if o.leaked)
            summary_rows.append(
                f"| {engine} | {len(outcomes)} | " + " | ".join(str(counts[v]) for v in VERDICTS)
                + f" | {leaks} | {'yes' if changed else 'no'} | {len(legit) - failures}/{len(legit)} | {attack_s:.1f} |")
            per_class = Counter()
            for o in outcomes:
                per_class[(o.klass, o.verdict)] += 1
            totals[engine] = per_class
    print("## Outcomes by engine\n")
    print("| engine | attacks | refused | unknown table | engine error | timeout | ran | leaks | state changed "
          "| legitimate ran | attack time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in summary_rows:
        print(row)
    print("\n## Outcomes by class (refused / unknown / engine / timeout / ran)\n")
    classes = sorted({klass for counts in totals.values() for klass, _ in counts})
    print("| class | " + " | ".join(totals) + " |")
    print("|---|" + "---|" * len(totals))
    for klass in classes:
        cells = []
        for engine in totals:
            counts = [totals[engine][(klass, v)] for v in VERDICTS]
            cells.append("/".join(map(str, counts)) if any(counts) else "–")
        print(f"| {klass} | " + " | ".join(cells) + " |")
    gold = gold_refusals(Path(os.environ.get("GROUNDSQL_DATA", "/work/shared/data")))
    if gold:
        print("\n## Gold SQL of public benchmarks through the guard (false positives)\n")
        print("| set | queries checked | refused | examples |")
        print("|---|---|---|---|")
        for row in gold:
            print(row)


def gold_refusals(data: Path) -> list[str]:
    """Markdown rows: how many gold queries of Spider dev and BIRD mini-dev the guard refuses (SQLite)."""
    sets = [("Spider dev", data / "spider" / "dev.json", data / "spider" / "database", "query"),
            ("BIRD mini-dev", data / "bird_minidev" / "mini_dev_sqlite.json", data / "bird_minidev" / "dev_databases", "SQL")]
    rows = []
    for label, questions, databases, key in sets:
        if not questions.exists():
            continue
        opened: dict[Path, Database] = {}
        checked = refused = 0
        examples: list[str] = []
        for item in json.loads(questions.read_text()):
            path = databases / item["db_id"] / f"{item['db_id']}.sqlite"
            scope = None  # without the database file: statement kind and functions only
            if path.exists():
                scope = (opened.get(path) or opened.setdefault(path, Database(str(path)))).scope()
            checked += 1
            try:
                check_statement(item[key], "sqlite", scope=scope)
            except RefusedStatement as exc:
                refused += 1
                examples.append(str(exc)[:80])
        for db in opened.values():
            db.close()
        label += "" if opened else " (no database files here: kind and functions only)"
        rows.append(f"| {label} | {checked} | {refused} | {'; '.join(examples[:3])} |")
    return rows


if __name__ == "__main__":
    main()
