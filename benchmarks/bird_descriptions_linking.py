"""Schema-linking recall on BIRD mini-dev metadata, with and without its database_description files.

    .venv/bin/python benchmarks/bird_descriptions_linking.py [--linker vector] [--out FILE]

The BIRD databases themselves are not in ../shared, so empty SQLite files are made from `schemas/*.sql` (the
structure only) in a temporary folder laid out as a BIRD dataset, with each `database_description/` folder beside
its database, where groundsql finds it. Linking is scored on all 212 questions (`eval run --stage link`); the
"without" run turns the knowledge folder off (`--option knowledge=false`). No model call is made by the
default `vector` linker (lexical backend when sentence-transformers is not installed).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from groundsql.evaluation import evaluate

BIRD = Path(os.environ.get("GROUNDSQL_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "data" / "bird_minidev"


def make_dataset(root: Path) -> Path:
    (root / "dev_databases").mkdir(parents=True)
    shutil.copy(BIRD / "mini_dev_sqlite.json", root / "mini_dev_sqlite.json")
    for ddl in sorted((BIRD / "schemas").glob("*.sql")):
        folder = root / "dev_databases" / ddl.stem
        folder.mkdir()
        conn = sqlite3.connect(folder / f"{ddl.stem}.sqlite")
        conn.executescript(ddl.read_text(encoding="utf-8"))
        conn.commit()
        conn.close()
        shutil.copytree(BIRD / "dev_databases" / ddl.stem / "database_description", folder / "database_description")
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--linker", default="vector")
    parser.add_argument("--model", default=None, help="for linkers that call a model")
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "results" / "bird_descriptions_linking" / "bird_descriptions_linking.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        dataset = make_dataset(Path(tmp) / "bird")
        for name, options in (("with descriptions", {}), ("without descriptions", {"knowledge": False})):
            summary = evaluate(dataset, model=args.model, stage="link", linker=args.linker, options=options,
                               report=False)
            table, column = summary["linking"]["table"], summary["linking"]["column"]
            rows.append(f"| {name} | {table['srr']:.1f} | {table['nsr']:.1f} | {column['srr']:.1f} | "
                        f"{column['nsr']:.1f} | {column['nsp']:.1f} | {summary['linking']['mean_columns_kept']:.1f} |")
    report = "\n".join([
        "# BIRD mini-dev schema linking with and without database_description", "",
        f"Command: `python benchmarks/bird_descriptions_linking.py {' '.join(sys.argv[1:])}`", "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; 212 questions on 5 databases "
        f"(structure only); linker `{args.linker}`.", "",
        "| run | table SRR | table NSR | column SRR | column NSR | column NSP | columns kept |",
        "|---|---|---|---|---|---|---|", *rows, ""])
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
