"""Build a large-schema benchmark: the tables of many Spider databases side by side in one SQLite file.

Table names get their database id as a prefix (``concert_singer__singer``); the open Spider dev questions are
kept, their gold SQL rewritten with sqlglot to the prefixed names (the original name stays as the table's
alias, so qualified column references keep working). Every rewritten gold query is executed on the combined
database and must return the rows it returned on its own database; a query that does not is dropped and
reported. At ~800 tables and ~4,000 columns this is the scale where schema linking decides accuracy.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.db import Database
from groundsql.errors import ConfigError, DatabaseError
from groundsql.evaluation.datasets import load_dataset
from groundsql.evaluation.matching import has_order_by, spider_equal
from groundsql.evaluation.scoring import SCORING_MAX_ROWS

log = logging.getLogger("groundsql")

SEPARATOR = "__"


@dataclass
class LargeSchemaReport:
    path: Path
    databases: int = 0
    tables: int = 0
    columns: int = 0
    questions: int = 0
    dropped: list[dict] = field(default_factory=list)


def prefixed(db_id: str, table: str) -> str:
    return f"{db_id}{SEPARATOR}{table}"


def rewrite_gold(sql: str, db_id: str, dialect: str = "sqlite") -> str:
    """`sql` with every table renamed to its prefixed name; unaliased tables keep their old name as alias."""
    tree = sqlglot.parse_one(sql, read=dialect)
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        name = table.name
        if not name or name.lower() in ctes:
            continue
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
        table.set("this", exp.to_identifier(prefixed(db_id, name), quoted=True))
    return tree.sql(dialect=dialect)


def make_large_schema(out: str | Path, *, spider: str | Path, train: str | Path | None = None,
                      name: str = "spider_large") -> LargeSchemaReport:
    """Write a Spider-format dataset directory (dev.json, tables.json, database/<name>/<name>.sqlite).

    Args:
        out: the directory to create; it must not hold a previous build.
        spider: the Spider dev dataset (its databases and questions are used).
        train: a folder of further Spider databases (<db>/<db>.sqlite) whose tables are added.
        name: the combined database's id.

    Returns:
        What was built, including gold queries dropped because they did not reproduce their rows.
    """
    out = Path(out)
    target_dir = out / "database" / name
    target = target_dir / f"{name}.sqlite"
    if target.exists():
        raise ConfigError(f"{target} already exists; remove it or choose another --out")
    dataset = load_dataset(spider, kind="spider")
    sources: dict[str, Path] = {}
    for q in dataset.questions:
        if q.db_path is not None:
            sources.setdefault(q.db_id, q.db_path)
    if train is not None:
        for path in sorted(Path(train).glob("*/*.sqlite")):
            sources.setdefault(path.parent.name, path)
    if not sources:
        raise ConfigError(f"no databases found under {spider}")
    target_dir.mkdir(parents=True, exist_ok=True)
    report = LargeSchemaReport(path=out)
    entry = {"db_id": name, "table_names": [], "table_names_original": [], "column_names": [[-1, "*"]],
             "column_names_original": [[-1, "*"]], "column_types": ["text"], "primary_keys": [], "foreign_keys": []}
    # Building the dataset writes a new file, which the read-only Database cannot do; sources are opened read-only.
    combined = sqlite3.connect(target)
    try:
        for db_id, path in sources.items():
            report.databases += 1
            _copy_database(combined, db_id, path, entry, report)
        combined.commit()
    finally:
        combined.close()
    (out / "tables.json").write_text(json.dumps([entry], indent=1) + "\n", encoding="utf-8")
    questions = _rewrite_questions(dataset, target, name, report)
    (out / "dev.json").write_text(json.dumps(questions, indent=1) + "\n", encoding="utf-8")
    report.questions = len(questions)
    return report


def _copy_database(combined: sqlite3.Connection, db_id: str, path: Path, entry: dict,
                   report: LargeSchemaReport) -> None:
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
        first_column: dict[str, int] = {}
        pending_keys: list[tuple[str, str, str, str]] = []
        for table in names:
            columns = source.execute(f"PRAGMA table_info({_q(table)})").fetchall()
            keys = source.execute(f"PRAGMA foreign_key_list({_q(table)})").fetchall()
            new = prefixed(db_id, table)
            combined.execute(_create_table(db_id, new, columns, keys))
            table_index = len(entry["table_names_original"])
            entry["table_names_original"].append(new)
            entry["table_names"].append(new.replace("_", " ").lower())
            first_column[table.lower()] = len(entry["column_names_original"])
            for _, column, declared, _, _, pk in columns:
                if pk:
                    entry["primary_keys"].append(len(entry["column_names_original"]))
                entry["column_names_original"].append([table_index, column])
                entry["column_names"].append([table_index, column.replace("_", " ").lower()])
                entry["column_types"].append(_spider_type(declared))
                report.columns += 1
            pending_keys += [(table, k[3], k[2], k[4]) for k in keys if k[4]]
            report.tables += 1
        combined.execute("ATTACH DATABASE ? AS source", (f"file:{path}?mode=ro",))
        try:
            for table in names:
                combined.execute(f"INSERT INTO main.{_q(prefixed(db_id, table))} "
                                 f"SELECT * FROM source.{_q(table)}")
            combined.commit()
        finally:
            combined.execute("DETACH DATABASE source")
        for table, column, ref_table, ref_column in pending_keys:
            left = _column_index(entry, first_column, table, column)
            right = _column_index(entry, first_column, ref_table, ref_column)
            if left is not None and right is not None:
                entry["foreign_keys"].append([left, right])
    finally:
        source.close()


def _create_table(db_id: str, name: str, columns: list, keys: list) -> str:
    q = _q
    parts = [f"{q(column)} {declared or ''}".rstrip() for _, column, declared, _, _, _ in columns]
    primary = [column for _, column, _, _, _, pk in sorted(columns, key=lambda c: c[5]) if pk]
    if primary:
        parts.append(f"PRIMARY KEY ({', '.join(q(c) for c in primary)})")
    for key in keys:
        if key[4]:
            parts.append(f"FOREIGN KEY ({q(key[3])}) REFERENCES {q(prefixed(db_id, key[2]))} ({q(key[4])})")
    return f"CREATE TABLE {q(name)} ({', '.join(parts)})"


def _q(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="sqlite")


def _column_index(entry: dict, first_column: dict[str, int], table: str, column: str) -> int | None:
    start = first_column.get(table.lower())
    if start is None:
        return None
    table_index = entry["column_names_original"][start][0]
    for index in range(start, len(entry["column_names_original"])):
        owner, name = entry["column_names_original"][index]
        if owner != table_index:
            break
        if name.lower() == column.lower():
            return index
    return None


def _spider_type(declared: str | None) -> str:
    kind = (declared or "").upper()
    if any(k in kind for k in ("INT", "REAL", "FLOA", "DOUB", "NUM", "DEC")):
        return "number"
    if any(k in kind for k in ("DATE", "TIME")):
        return "time"
    return "text"


def _rewrite_questions(dataset, target: Path, name: str, report: LargeSchemaReport) -> list[dict]:
    combined = Database(str(target), max_rows=SCORING_MAX_ROWS)
    originals: dict[Path, Database] = {}
    kept = []
    try:
        for q in dataset.questions:
            if q.db_path is None:
                continue
            try:
                rewritten = rewrite_gold(q.gold_sql, q.db_id)
                original = originals.setdefault(q.db_path, Database(str(q.db_path), max_rows=SCORING_MAX_ROWS))
                before = original.execute(q.gold_sql)
                after = combined.execute(rewritten)
            except (SqlglotError, DatabaseError) as exc:
                report.dropped.append({"id": q.id, "db_id": q.db_id, "reason": str(exc)})
                continue
            if not spider_equal(before.rows, after.rows, order_matters=has_order_by(q.gold_sql)):
                report.dropped.append({"id": q.id, "db_id": q.db_id, "reason": "rows differ after rewriting"})
                continue
            kept.append({"db_id": name, "question": q.question, "query": rewritten, "source_db_id": q.db_id,
                         "source_id": q.id, "difficulty": q.difficulty})
    finally:
        combined.close()
        for database in originals.values():
            database.close()
    return kept


def twin_databases(gold_tables: set[str], gold_columns: set[tuple[str, str]],
                   schema: dict[str, list[str]]) -> list[str]:
    """Other source databases in a combined schema that could answer the same query unchanged.

    A database is a twin when it has, under the same base name, every table the gold query reads, each with every
    column the gold query reads from it (names compared case-insensitively). Questions with twins are ambiguous
    in the combined schema: nothing in the question says which database is meant, so a linker that keeps only
    one copy is right by chance.
    """
    by_db: dict[str, dict[str, set[str]]] = {}
    for table, columns in schema.items():
        db_id, sep, base = table.partition(SEPARATOR)
        if sep:
            by_db.setdefault(db_id, {})[base.lower()] = {c.lower() for c in columns}
    needed: dict[str, set[str]] = {}
    sources = set()
    for table in gold_tables:
        db_id, sep, base = table.lower().partition(SEPARATOR)
        if not sep:
            return []
        sources.add(db_id)
        needed[base] = {c for t, c in gold_columns if t == table.lower()}
    twins = []
    for db_id, tables in by_db.items():
        if db_id.lower() in sources:
            continue
        if all(base in tables and columns <= tables[base] for base, columns in needed.items()):
            twins.append(db_id)
    return sorted(twins)
