"""Foreign-key inference benchmark: strip the declared foreign keys, infer them again, compare.

Databases: the 14 open Spider dev databases plus Chinook and Northwind (../shared/data). Declared keys are
read with the SQLAlchemy inspector; inference sees only the declared primary keys, names, types and values.

    .venv/bin/python benchmarks/fk_inference.py [--out benchmarks/results/fk_inference/fk_inference.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from groundsql.catalog import KeyOptions, build_catalog, introspect
from groundsql.catalog.keys import relationship_keys
from groundsql.db import Database

DATA = Path(os.environ.get("GROUNDSQL_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "data"


def databases() -> list[tuple[str, Path]]:
    spider = sorted((DATA / "spider" / "database").glob("*/*.sqlite"))
    found = [(p.stem, p) for p in spider]
    for name, path in (("chinook", DATA / "chinook" / "Chinook_Sqlite.sqlite"),
                       ("northwind", DATA / "northwind" / "northwind.sqlite")):
        if path.exists():
            found.append((name, path))
    return found


def declared_keys(db: Database) -> set:
    schema = introspect(db)
    keys = set()
    for table in schema.tables:
        for fk in table.foreign_keys:
            ref = schema.table(fk.ref_table)
            ref_columns = fk.ref_columns or (ref.primary_key if ref else [])
            keys.add((table.name.lower(), tuple(c.lower() for c in fk.columns), fk.ref_table.lower(),
                      tuple(c.lower() for c in ref_columns)))
    return keys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "fk_inference" / "fk_inference.md",
                        help="also write the Markdown report here")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every missed and spurious key")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"no data at {DATA}", file=sys.stderr)
        return 1
    lines = [
        "# Foreign-key inference (declared foreign keys stripped)",
        "",
        f"Command: `{' '.join([Path(sys.executable).name, *sys.argv])}`  ",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "",
        "| database | declared | inferred | correct | recall | precision | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    details = []
    total = {"declared": 0, "inferred": 0, "correct": 0}
    for name, path in databases():
        db = Database(str(path))
        truth = declared_keys(db)
        started = time.perf_counter()
        catalog = build_catalog(db, use_cache=False, key_options=KeyOptions(use_declared=False))
        seconds = time.perf_counter() - started
        inferred = relationship_keys([r for r in catalog.join_graph.relationships if r.inferred])
        correct = truth & inferred
        total["declared"] += len(truth)
        total["inferred"] += len(inferred)
        total["correct"] += len(correct)
        recall = len(correct) / len(truth) if truth else 1.0
        precision = len(correct) / len(inferred) if inferred else 1.0
        lines.append(f"| {name} | {len(truth)} | {len(inferred)} | {len(correct)} | {recall:.0%} | "
                     f"{precision:.0%} | {seconds:.2f} |")
        for key in sorted(truth - inferred):
            details.append(f"- missed   {name}: {_fmt(key)}")
        for key in sorted(inferred - truth):
            details.append(f"- spurious {name}: {_fmt(key)}")
        db.close()
    recall = total["correct"] / total["declared"]
    precision = total["correct"] / total["inferred"] if total["inferred"] else 1.0
    lines.append(f"| **all** | {total['declared']} | {total['inferred']} | {total['correct']} | "
                 f"**{recall:.1%}** | **{precision:.1%}** | |")
    lines += ["", "Targets: recall ≥ 90%, precision ≥ 80%.", "", "Misses and spurious keys:", ""] + details
    text = "\n".join(lines)
    print(text if args.verbose else "\n".join(lines[: lines.index("Misses and spurious keys:")]))
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


def _fmt(key) -> str:
    table, cols, ref, ref_cols = key
    return f"{table}.{','.join(cols)} → {ref}.{','.join(ref_cols)}"


if __name__ == "__main__":
    sys.exit(main())
