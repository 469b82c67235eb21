"""Growing a knowledge folder: verified examples and rules are appended to its files, which stay hand-editable.

`learn` is the loop by which groundsql gets better on a user's own database: a run from the run store that the
user confirms (or corrects) becomes a verified example, checked against the database and never added twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlglot
import yaml
from sqlglot.errors import ParseError, TokenError

from groundsql.db import Database
from groundsql.errors import KnowledgeError
from groundsql.knowledge.items import VerifiedExample
from groundsql.knowledge.loader import (
    EXAMPLES_FILES,
    RULES_FILE,
    check_example,
    discover_folder,
    read_examples,
    read_rules,
)


@dataclass(frozen=True)
class Added:
    """The outcome of an addition: where it went, and whether it was new."""

    path: Path
    added: bool
    reason: str = ""


def default_folder(db: Database) -> Path:
    """The folder knowledge is written to: the one found next to the database, else ``<db file>.knowledge/``."""
    found = discover_folder(db)
    if found is not None and found.name != "database_description":
        return found
    path = db.target.path or (db.target.data_files[0] if db.target.data_files else None)
    if path is None:
        raise KnowledgeError(f"{db.display} is not a file database: name a knowledge folder with --knowledge DIR")
    return path.with_name(path.name + ".knowledge")


def add_example(folder: str | Path, question: str, sql: str, db: Database) -> Added:
    """Append a verified example after checking it runs (read-only) on `db`; an example with the same question
    (ignoring case, spacing and punctuation) or the same question and query is not added twice.

    Raises:
        KnowledgeError: the SQL does not parse, writes, or fails on the database.
    """
    question, sql = question.strip(), sql.strip().rstrip(";").strip()
    if not question or not sql:
        raise KnowledgeError("an example needs a question and its SQL")
    root = Path(folder).expanduser()
    path = next((root / n for n in EXAMPLES_FILES if (root / n).is_file()), root / "examples.yaml")
    check_example(VerifiedExample(question, sql, source=f"{path.name} (new)"), db)
    existing = read_examples(path) if path.is_file() else []
    for example in existing:
        if _same_question(example.question, question):
            same = _same_sql(example.sql, sql, db.dialect)
            return Added(path, False, f"{example.source} already answers this question"
                         + ("" if same else " (with other SQL; edit that entry to change it)"))
    root.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        import json

        _append(path, json.dumps({"question": question, "sql": sql}, ensure_ascii=False) + "\n")
    else:
        _append_yaml_entry(path, "examples", {"question": question, "sql": sql})
    return Added(path, True)


def add_rule(folder: str | Path, text: str, *, tables: list[str] | None = None) -> Added:
    """Append a business rule (optionally scoped to tables) to the folder's rules.yaml."""
    text = " ".join(text.split())
    if not text:
        raise KnowledgeError("a rule needs its text")
    path = Path(folder).expanduser() / RULES_FILE
    if path.is_file() and any(" ".join(r.text.split()).lower() == text.lower() for r in read_rules(path)):
        return Added(path, False, "the same rule is already there")
    path.parent.mkdir(parents=True, exist_ok=True)
    entry: dict[str, Any] = {"text": text}
    if tables:
        entry["tables"] = list(tables)
    _append_yaml_entry(path, "rules", entry)
    return Added(path, True)


def learn(run_id: int, *, db: Database | None = None, folder: str | Path | None = None, sql: str | None = None,
          store: Any | None = None) -> Added:
    """Turn run `run_id` of the run store into a verified example (its SQL, or `sql` as the correction).

    Args:
        run_id: the id shown by `groundsql runs`.
        db: the database (default: reopened from the run's record, which works for database files).
        folder: the knowledge folder (default: `default_folder(db)`).
        sql: corrected SQL to store instead of the run's (default: the corrected SQL of a run marked wrong).
        store: a `RunStore` (default: the user's).
    """
    from groundsql.runs import RunStore

    record = (store or RunStore()).get(run_id)
    if record is None:
        raise KnowledgeError(f"no run #{run_id} in the run store (see `groundsql runs`)")
    chosen = sql or learnable_sql(record)
    if not chosen:
        raise KnowledgeError(f"run #{run_id} has no SQL to learn from; give the correct query with --sql")
    database = db or Database(record["database"])
    return add_example(folder or default_folder(database), record["question"], chosen, database)


def learnable_sql(record: dict[str, Any]) -> str | None:
    """The SQL a run teaches: the corrected SQL of a run marked wrong, none for a wrong mark without one, else
    the run's own SQL."""
    mark = record.get("mark") or {}
    if mark.get("verdict") == "wrong":
        if not mark.get("corrected_sql"):
            raise KnowledgeError(f"run #{record['id']} was marked wrong; give the correct query with --sql")
        return mark["corrected_sql"]
    return record.get("sql")


# -- writing -----------------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _append_yaml_entry(path: Path, key: str, entry: dict[str, Any]) -> None:
    """Append one list entry to a YAML file, keeping what is there (comments included) untouched."""
    text = yaml.dump([entry], Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    if not path.is_file() or not path.read_text(encoding="utf-8").strip():
        _append(path, f"{key}:\n" + _indent(text))
        return
    current = path.read_text(encoding="utf-8")
    keyed = isinstance(yaml.safe_load(current), dict)
    _append(path, ("" if current.endswith("\n") else "\n") + (_indent(text) if keyed else text))


def _indent(text: str) -> str:
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(keepends=True))


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def _same_question(a: str, b: str) -> bool:
    return re.sub(r"[\W_]+", " ", a).strip().lower() == re.sub(r"[\W_]+", " ", b).strip().lower()


def _same_sql(a: str, b: str, dialect: str) -> bool:
    try:
        return sqlglot.parse_one(a, read=dialect) == sqlglot.parse_one(b, read=dialect)
    except (ParseError, TokenError):
        return " ".join(a.split()) == " ".join(b.split())


def write_demo_knowledge(db_path: str | Path, *, overwrite: bool = False) -> Path:
    """Copy the demo shop's knowledge folder (rules, glossary, examples, a handbook) to ``<db_path>.knowledge/``."""
    from importlib import resources

    target = Path(db_path).with_name(Path(db_path).name + ".knowledge")
    if target.exists() and not overwrite:
        raise KnowledgeError(f"{target} exists; pass --force to overwrite it")
    source = resources.files("groundsql.knowledge").joinpath("demo")
    for name in ("rules.yaml", "glossary.yaml", "examples.yaml", "docs/handbook.md"):
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source.joinpath(name).read_text(encoding="utf-8"), encoding="utf-8")
    return target
