"""An evaluation suite from the user's own verified questions: "how good is it on my database?"

`build_suite` collects the verified examples of a database's knowledge folder and the runs a user marked (right,
or wrong with the corrected SQL) into one JSON file that `groundsql eval run` reads like a benchmark. Each
question keeps its gold SQL in the database's own dialect (it was checked to run there) and the gold result as
it was at build time (a digest of every row, plus the first rows to show), and the suite keeps the database's
fingerprint (structure and row counts). When the suite runs, a question whose gold SQL now gives another result
is reported as `gold_changed`, not scored against an answer that no longer holds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError

from groundsql.db import Database, Result
from groundsql.errors import ConfigError, DatabaseError, GroundsqlError
from groundsql.evaluation.datasets import Dataset, Question
from groundsql.evaluation.matching import has_order_by
from groundsql.evaluation.results import write_atomic
from groundsql.evaluation.scoring import SCORING_MAX_ROWS, SCORING_TIMEOUT_S, comparable

log = logging.getLogger("groundsql")

SUITE_FORMAT = "groundsql-suite"
SUITE_VERSION = 1
#: Rows of each frozen gold result kept in the file to show; the digest covers every row.
FROZEN_ROWS = 20


@dataclass
class BuildReport:
    """What `build_suite` wrote: the file, how many questions came from where, and what was left out and why."""

    path: Path
    questions: int
    from_examples: int
    from_runs: int
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "questions": self.questions, "from_examples": self.from_examples,
                "from_runs": self.from_runs, "skipped": self.skipped}


def suite_name(db: Database) -> str:
    """A short name for the database a suite is about: its file's stem, or the database's name."""
    display = db.display
    if "://" not in display:
        return Path(display).stem or "db"
    return Path(urlsplit(display).path).stem or db.backend


def default_suite_path(db: Database, suites_dir: Path | None = None) -> Path:
    """Where a database's suite goes by default: ``<state dir>/suites/<name>.json``."""
    from groundsql.runs import state_dir

    return (suites_dir or state_dir() / "suites") / f"{suite_name(db)}.json"


def build_suite(db: Database, *, folder: str | Path | None = None, store: Any | None = None,
                out: str | Path | None = None, examples: bool = True, runs: bool = True) -> BuildReport:
    """Collect verified examples and marked runs of `db` into a suite file.

    Args:
        db: the database; every gold query is run on it (guarded, read-only) and its result frozen.
        folder: the knowledge folder whose verified examples count (default: the one beside the database).
        store: the run store whose marked runs count (default: the user's); only runs asked of `db` are taken.
        out: the suite file (default: `default_suite_path`); an existing suite of another database is refused.
        examples: take the knowledge folder's verified examples.
        runs: take the marked runs (right: the run's SQL; wrong with a correction: the corrected SQL).

    Returns:
        The `BuildReport`; a question asked twice is kept once (a verified example first, then the latest mark),
        and every item left out is listed with the reason.
    """
    path = Path(out).expanduser() if out is not None else default_suite_path(db)
    if path.is_file():
        existing = _read(path)
        if existing.get("database") != db.display:
            raise ConfigError(f"{path} holds the suite of {existing.get('database')}; choose another --out")
    candidates: list[tuple[str, str, str, str]] = []  # (kind, source, question, sql)
    skipped: list[dict[str, str]] = []
    folder_used = _folder(db, folder) if examples else None
    if folder_used is not None:
        candidates += [("example", e.source, e.question, e.sql) for e in _examples(folder_used, skipped)]
    if runs:
        from groundsql.runs import RunStore

        for run in reversed((store or RunStore()).marked(db.display)):  # the latest mark of a question wins
            source = f"run #{run['id']} (marked {run['verdict']})"
            sql = run["sql"] if run["verdict"] == "right" else run["corrected_sql"]
            if not sql:
                skipped.append({"source": source, "question": run["question"],
                                "reason": "marked wrong without the corrected SQL: there is no gold answer"})
                continue
            candidates.append(("run", source, run["question"], sql))
    kept: dict[str, dict[str, Any]] = {}
    counts = {"example": 0, "run": 0}
    for kind, source, question, sql in candidates:
        key = question_key(question)
        if key in kept:
            same = same_query(kept[key]["gold_sql"], sql, db.dialect)
            kept[key]["sources"].append(source)
            if not same:
                skipped.append({"source": source, "question": question,
                                "reason": f"asked before with other SQL ({kept[key]['sources'][0]} is kept)"})
            continue
        try:
            gold = freeze_result(db, sql)
        except GroundsqlError as exc:
            skipped.append({"source": source, "question": question, "reason": f"the gold SQL fails: {exc}"})
            continue
        kept[key] = {"id": question_id(question), "question": question.strip(), "gold_sql": sql.strip(),
                     "sources": [source], "difficulty": _difficulty(sql, db.dialect), "gold": gold}
        counts[kind] += 1
    if not kept:
        raise ConfigError(f"no verified question for {db.display}: add verified examples (`groundsql knowledge "
                          "add-example`) or mark answers (`groundsql runs mark RUN_ID right`) first")
    suite = {"format": SUITE_FORMAT, "version": SUITE_VERSION, "name": suite_name(db), "database": db.display,
             "dialect": db.dialect, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "fingerprint": database_fingerprint(db),
             "knowledge_folder": str(folder_used) if folder_used is not None else None,
             "questions": list(kept.values()), "skipped": skipped}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(suite, indent=2, ensure_ascii=False) + "\n")
    return BuildReport(path, len(kept), counts["example"], counts["run"], skipped)


def is_suite_file(path: str | Path) -> bool:
    """Whether `path` is a suite file (a JSON object with ``"format": "groundsql-suite"``)."""
    path = Path(path)
    if not path.is_file() or path.suffix.lower() != ".json":
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(200).decode("utf-8", errors="ignore")
    except OSError:
        return False
    return head.lstrip().startswith("{") and SUITE_FORMAT in head


def load_suite(path: str | Path, *, database: str | None = None) -> Dataset:
    """A suite file as a `Dataset` (kind ``suite``): one database, its questions, the frozen gold in `suite`.

    Args:
        path: the suite file.
        database: the live database URL to ask (default: the one the suite was built on; give it when the URL
            needs a password, which the suite never stores).
    """
    path = Path(path).expanduser()
    suite = _read(path)
    location = database or suite["database"]
    questions = [Question(id=q["id"], db_id=suite["name"], question=q["question"], gold_sql=q["gold_sql"],
                          difficulty=q.get("difficulty"), db_url=location) for q in suite["questions"]]
    return Dataset(name=suite["name"], kind="suite", root=path.resolve(), questions=questions, suite=suite)


# -- the database and its gold results ------------------------------------------------------------------------


def database_fingerprint(db: Database) -> dict[str, Any]:
    """The database's structure (tables, columns, types, keys) and row count per table, hashed."""
    from groundsql.catalog import introspect
    from groundsql.catalog.cache import fingerprint

    schema = introspect(db)
    rows: dict[str, int | None] = {}
    for table in schema.tables:
        if table.is_view:
            continue
        count = exp.select(exp.Count(this=exp.Star())).from_(exp.Table(this=exp.to_identifier(table.name,
                                                                                                quoted=True)))
        try:
            rows[table.name] = int(db.execute(count.sql(dialect=db.dialect), max_rows=1).rows[0][0])
        except (DatabaseError, IndexError, TypeError, ValueError):
            rows[table.name] = None
    structure = fingerprint(schema, "")
    digest = hashlib.sha256(json.dumps([structure, sorted(rows.items())]).encode()).hexdigest()[:24]
    return {"digest": digest, "structure": structure, "rows": rows}


def fingerprint_changes(built: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between two fingerprints, in words (empty when they are equal)."""
    if built.get("digest") == now.get("digest"):
        return []
    changes = []
    if built.get("structure") != now.get("structure"):
        changes.append("the structure changed (tables, columns, types or keys)")
    before, after = built.get("rows") or {}, now.get("rows") or {}
    for table in sorted(set(before) | set(after)):
        if table not in after:
            changes.append(f"table {table} is gone")
        elif table not in before:
            changes.append(f"table {table} is new")
        elif before[table] != after[table]:
            changes.append(f"{table}: {before[table]} → {after[table]} rows")
    return changes or ["the database changed"]


def freeze_result(db: Database, sql: str) -> dict[str, Any]:
    """Run `sql` (guarded, read-only) and keep its result: columns, row count, the first rows and a digest."""
    result = db.execute(sql, max_rows=SCORING_MAX_ROWS, timeout_s=SCORING_TIMEOUT_S)
    data = result.to_dict()
    return {"columns": data["columns"], "row_count": result.row_count, "truncated": result.truncated,
            "rows": data["rows"][:FROZEN_ROWS], "digest": result_digest(result, sql, db.dialect)}


def result_digest(result: Result, sql: str, dialect: str) -> str:
    """A digest of a result's rows as the scoring rules compare them: values made comparable across engines
    (numbers to 4 places), row order kept only when the query orders its rows."""
    rows = [json.dumps([_plain(v) for v in row], default=str) for row in comparable(result.rows)]
    if not has_order_by(sql, dialect):
        rows.sort()
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:24]


class SuiteGold:
    """At run time: whether each question's gold SQL still gives the result frozen in the suite."""

    def __init__(self, suite: dict[str, Any]) -> None:
        self.frozen = {str(q["id"]): q["gold"] for q in suite["questions"]}

    def check(self, q: Question, db: Database) -> tuple[str | None, str | None]:
        """(exclusion class or None, why): ``gold_error`` when the gold fails now, ``gold_changed`` when it
        returns another result than at build time."""
        frozen = self.frozen.get(str(q.id))
        if frozen is None:
            return None, None
        try:
            result = db.execute(q.gold_sql, max_rows=SCORING_MAX_ROWS, timeout_s=SCORING_TIMEOUT_S)
        except DatabaseError as exc:
            return "gold_error", f"the gold SQL fails on the database now: {exc}"
        if result_digest(result, q.gold_sql, db.dialect) != frozen.get("digest"):
            return "gold_changed", (f"the gold SQL returns another result than when the suite was built "
                                    f"({result.row_count} rows now, {frozen.get('row_count')} then)")
        return None, None


# -- helpers -------------------------------------------------------------------------------------------------


def question_key(question: str) -> str:
    """A question with case, spacing and punctuation folded (two spellings of one question are one question)."""
    return re.sub(r"[\W_]+", " ", question).strip().lower()


def question_id(question: str) -> str:
    """A stable id from the question's text, so a rebuilt suite keeps its ids and runs compare across builds."""
    return "q" + hashlib.sha1(question_key(question).encode()).hexdigest()[:8]


def same_query(a: str, b: str, dialect: str) -> bool:
    """Whether two statements are the same query (the same syntax tree), whatever their spacing."""
    try:
        return sqlglot.parse_one(a, read=dialect) == sqlglot.parse_one(b, read=dialect)
    except (ParseError, TokenError):
        return " ".join(a.split()) == " ".join(b.split())


def _folder(db: Database, folder: str | Path | None) -> Path | None:
    if folder is not None:
        root = Path(folder).expanduser()
        if not root.is_dir():
            raise ConfigError(f"knowledge folder not found: {root}")
        return root
    from groundsql.knowledge import discover_folder

    found = discover_folder(db)
    return found if found is not None and found.name != "database_description" else None


def _examples(folder: Path, skipped: list[dict[str, str]]) -> list[Any]:
    from groundsql.knowledge.loader import EXAMPLES_FILES, read_examples

    path = next((folder / n for n in EXAMPLES_FILES if (folder / n).is_file()), None)
    if path is None:
        return []
    try:
        return read_examples(path)
    except GroundsqlError as exc:
        skipped.append({"source": path.name, "question": "", "reason": str(exc)})
        return []


def _difficulty(sql: str, dialect: str) -> str | None:
    from groundsql.evaluation.hardness import spider_hardness

    try:
        return spider_hardness(sql, dialect)
    except (SqlglotError, ValueError, AttributeError):
        return None


def _plain(value: Any) -> Any:
    return value if isinstance(value, (int, float, str)) or value is None else str(value)


def _read(path: Path) -> dict[str, Any]:
    try:
        suite = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the suite {path}: {exc}") from None
    if not isinstance(suite, dict) or suite.get("format") != SUITE_FORMAT:
        raise ConfigError(f"{path} is not a groundsql suite (build one with `groundsql eval suite build`)")
    if suite.get("version") != SUITE_VERSION:
        raise ConfigError(f"{path} is a suite of version {suite.get('version')}; this groundsql reads version "
                          f"{SUITE_VERSION}: rebuild it with `groundsql eval suite build`")
    if not suite.get("questions"):
        raise ConfigError(f"the suite {path} holds no questions")
    return suite
