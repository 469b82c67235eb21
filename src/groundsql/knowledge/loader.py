"""Reading a knowledge folder: rules, glossary, verified examples, documents, descriptions, a dbt project.

Layout (every file optional)::

    shop.sqlite.knowledge/
      knowledge.yaml        # optional settings, e.g. ``dbt: ../analytics`` (a dbt project folder)
      rules.yaml            # business rules in plain language
      glossary.yaml         # terms and synonyms → a column, a value or an expression
      examples.yaml         # verified question → SQL pairs (or examples.jsonl)
      descriptions.yaml     # table and column descriptions (or descriptions.csv, or database_description/)
      docs/*.md, docs/*.txt # documents, chunked at their headings

A file that cannot be used is an error naming the file and line, never a silent skip.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import threading
from pathlib import Path
from typing import Any

import sqlglot
import yaml
from sqlglot.errors import ParseError, TokenError

from groundsql.catalog.descriptions import ColumnNote, Descriptions, load_descriptions
from groundsql.db import Database
from groundsql.db.guard import parser_failures_refused
from groundsql.errors import DatabaseError, KnowledgeError, RefusedStatement
from groundsql.knowledge.docs import chunk_document
from groundsql.knowledge.items import DocChunk, Knowledge, Rule, Term, VerifiedExample

log = logging.getLogger("groundsql")

RULES_FILE = "rules.yaml"
GLOSSARY_FILE = "glossary.yaml"
EXAMPLES_FILES = ("examples.yaml", "examples.yml", "examples.jsonl")
SETTINGS_FILE = "knowledge.yaml"
DOC_SUFFIXES = (".md", ".txt")


def load_knowledge(folder: str | Path, db: Database | None = None) -> Knowledge:
    """Read every part of a knowledge folder.

    Args:
        folder: the knowledge folder (a BIRD ``database_description`` folder, or the database folder holding one,
            is read as descriptions only).
        db: when given, every verified example is checked by the guard and run once (read-only, one row).

    Returns:
        The `Knowledge`.

    Raises:
        KnowledgeError: a file is malformed, or an example writes, fails to parse or no longer runs
            (the message names the file and line).
    """
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise KnowledgeError(f"knowledge folder not found: {root}")
    found = Knowledge(folder=str(root))
    if _is_description_folder(root):
        found.descriptions = load_descriptions(root)
        return found
    settings = _read_settings(root / SETTINGS_FILE)
    found.rules = read_rules(root / RULES_FILE)
    found.terms = _read_glossary(root / GLOSSARY_FILE)
    examples_file = next((root / n for n in EXAMPLES_FILES if (root / n).is_file()), None)
    if examples_file is not None:
        found.examples = read_examples(examples_file)
        if db is not None:
            for example in found.examples:
                check_example(example, db)
    found.chunks = _read_docs(root / "docs")
    found.descriptions = _read_descriptions(root)
    if settings.get("dbt"):
        from groundsql.knowledge.dbt import apply_dbt_project

        project = Path(str(settings["dbt"])).expanduser()
        apply_dbt_project(found, project if project.is_absolute() else root / project)
    log.info("knowledge from %s: %s", root, found.counts())
    return found


def check_example(example: VerifiedExample, db: Database) -> None:
    """Parse `example.sql` in the database's dialect and run it once, read-only; a clear error otherwise."""
    try:
        with parser_failures_refused():  # deep nesting or a parser bug: refused, not an undocumented error
            statements = [s for s in sqlglot.parse(example.sql, read=db.dialect) if s is not None]
    except (ParseError, TokenError, RefusedStatement) as exc:
        raise KnowledgeError(f"{example.source}: the example's SQL does not parse: {_first_line(exc)}") from None
    if len(statements) != 1:
        raise KnowledgeError(f"{example.source}: an example must hold exactly one SQL statement")
    try:
        db.execute(example.sql, max_rows=1)
    except RefusedStatement as exc:
        raise KnowledgeError(f"{example.source}: the example is refused: examples must only read ({exc})") from None
    except DatabaseError as exc:
        raise KnowledgeError(f"{example.source}: the example no longer runs on {db.display}: {exc}") from None


# -- cached loading ---------------------------------------------------------------------------------

_CACHE: dict[tuple[str, str, tuple], Knowledge] = {}
_LOCK = threading.Lock()
#: Knowledge folders kept loaded at once (oldest loaded first out).
MAX_CACHED = 32


def cached_knowledge(folder: str | Path, db: Database | None = None) -> Knowledge:
    """`load_knowledge`, reused while no file in the folder changes (examples are checked once per database)."""
    root = Path(folder).expanduser().resolve()
    stamp = tuple(sorted((str(p), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file())) \
        if root.is_dir() else ()
    key = (str(root), db.display if db is not None else "", stamp)
    with _LOCK:
        if key not in _CACHE:
            # a folder that changed (an example added from the UI) replaces its old entry: a server that runs for
            # days keeps one Knowledge per folder and database, not one per edit
            for stale in [k for k in _CACHE if k[:2] == key[:2]]:
                del _CACHE[stale]
            while len(_CACHE) >= MAX_CACHED:
                del _CACHE[next(iter(_CACHE))]
            _CACHE[key] = load_knowledge(root, db)
        return _CACHE[key]


def discover_folder(db: Database) -> Path | None:
    """The knowledge folder next to a database file: ``<file>.knowledge/``, ``<stem>.knowledge/``, or a BIRD
    ``database_description/`` folder beside it; None for server databases or when there is none."""
    path = db.target.path or (db.target.data_files[0] if db.target.data_files else None)
    if path is None:
        return None
    for candidate in (path.with_name(path.name + ".knowledge"), path.with_name(path.stem + ".knowledge"),
                      path.parent / "database_description"):
        if candidate.is_dir():
            return candidate
    return None


# -- the parts ---------------------------------------------------------------------------------------


def _is_description_folder(root: Path) -> bool:
    return root.name == "database_description" or (
        (root / "database_description").is_dir() and not any((root / n).exists() for n in (
            RULES_FILE, GLOSSARY_FILE, SETTINGS_FILE, *EXAMPLES_FILES, "docs")))


def _read_settings(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data, _ = _yaml_with_lines(path, None)
    if not isinstance(data, dict):
        raise KnowledgeError(f"{path}: expected a mapping of settings, e.g. 'dbt: ../my_dbt_project'")
    return data


def read_rules(path: Path) -> list[Rule]:
    if not path.is_file():
        return []
    entries, lines = _yaml_with_lines(path, "rules")
    rules = []
    for entry, line in zip(entries, lines):
        source = f"{path.name}:{line}"
        if isinstance(entry, str):
            entry = {"text": entry}
        if not isinstance(entry, dict) or not str(entry.get("text") or "").strip():
            raise KnowledgeError(f"{source}: a rule needs 'text' (or is a plain string)")
        _only(entry, {"text", "tables", "columns", "always", "keywords"}, source)
        rules.append(Rule(text=" ".join(str(entry["text"]).split()), source=source,
                          tables=_names(entry.get("tables")), columns=_names(entry.get("columns")),
                          always=bool(entry.get("always", False)), keywords=_names(entry.get("keywords"))))
    return rules


def _read_glossary(path: Path) -> list[Term]:
    if not path.is_file():
        return []
    data, lines = _yaml_with_lines(path, "terms")
    terms = []
    for entry, line in zip(data, lines):
        source = f"{path.name}:{line}"
        if not isinstance(entry, dict) or not entry.get("term") or not entry.get("means"):
            raise KnowledgeError(f"{source}: a glossary entry needs 'term' and 'means' "
                                 "(a column, a value or an SQL expression)")
        _only(entry, {"term", "means", "synonyms", "note"}, source)
        terms.append(Term(term=str(entry["term"]).strip(), means=str(entry["means"]).strip(), source=source,
                          synonyms=_names(entry.get("synonyms")), note=str(entry.get("note") or "").strip()))
    return terms


def read_examples(path: Path) -> list[VerifiedExample]:
    """The question → SQL pairs of an examples.yaml or examples.jsonl file (not yet checked against a database)."""
    if path.suffix == ".jsonl":
        entries, lines = [], []
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not text.strip():
                continue
            try:
                entries.append(json.loads(text))
            except ValueError as exc:
                raise KnowledgeError(f"{path.name}:{number}: not a JSON object: {exc}") from None
            lines.append(number)
    else:
        entries, lines = _yaml_with_lines(path, "examples")
    examples = []
    for entry, line in zip(entries, lines):
        source = f"{path.name}:{line}"
        if not isinstance(entry, dict) or not str(entry.get("question") or "").strip() \
                or not str(entry.get("sql") or "").strip():
            raise KnowledgeError(f"{source}: an example needs 'question' and 'sql'")
        _only(entry, {"question", "sql", "note"}, source)
        examples.append(VerifiedExample(question=str(entry["question"]).strip(), sql=str(entry["sql"]).strip(),
                                        source=source))
    return examples


def _read_docs(folder: Path) -> list[DocChunk]:
    if not folder.is_dir():
        return []
    chunks = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix.lower() in DOC_SUFFIXES:
            chunks.extend(chunk_document(path, str(path.relative_to(folder.parent))))
    return chunks


def _read_descriptions(root: Path) -> Descriptions:
    found = Descriptions()
    if (root / "database_description").is_dir():
        _merge(found, load_descriptions(root / "database_description"))
    for name in ("descriptions.yaml", "descriptions.yml"):
        if (root / name).is_file():
            _yaml_with_lines(root / name, None)  # a clear error with the line for broken YAML
            _merge(found, load_descriptions(root / name))
    if (root / "descriptions.csv").is_file():
        _merge(found, _descriptions_csv(root / "descriptions.csv"))
    return found


def _descriptions_csv(path: Path) -> Descriptions:
    """A single CSV with columns table, column (empty for the table itself), description and optional values;
    a BIRD table file (original_column_name, column_description, …) is read as it is."""
    text = path.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text))
    fields = {(f or "").strip().lower() for f in reader.fieldnames or []}
    if "original_column_name" in fields:
        return load_descriptions(path)
    if not {"table", "description"} <= fields:
        raise KnowledgeError(f"{path.name}:1: expected the columns table, column, description[, values] "
                             "(or BIRD's original_column_name, column_description, value_description)")
    found = Descriptions()
    for number, row in enumerate(reader, start=2):
        row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items() if k}
        table, column = row.get("table"), row.get("column")
        if not table:
            raise KnowledgeError(f"{path.name}:{number}: the table is empty")
        if column:
            found.columns.setdefault(table, {})[column] = ColumnNote(description=row.get("description") or None,
                                                                     values=row.get("values") or None)
        elif row.get("description"):
            found.tables[table] = row["description"]
    return found


def _merge(into: Descriptions, other: Descriptions) -> None:
    into.tables.update(other.tables)
    for table, columns in other.columns.items():
        into.columns.setdefault(table, {}).update(columns)


# -- YAML with line numbers ------------------------------------------------------------------------


def _yaml_with_lines(path: Path, key: str | None) -> tuple[Any, list[int]]:
    """The YAML document, and (for a list, top-level or under `key`) the 1-based line of each entry."""
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path.name}:{mark.line + 1}" if mark is not None else path.name
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KnowledgeError(f"{where}: broken YAML: {problem}") from None
    if key is None:
        return data, []
    if isinstance(data, dict) and key in data:
        data = data[key]
        node = next(v for k, v in node.value if k.value == key)
    if data is None:
        return [], []
    if not isinstance(data, list):
        raise KnowledgeError(f"{path.name}:1: expected a list of entries (top level or under '{key}:')")
    return data, [item.start_mark.line + 1 for item in node.value]


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v).strip() for v in value if str(v).strip())


def _only(entry: dict[str, Any], allowed: set[str], source: str) -> None:
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise KnowledgeError(f"{source}: unknown field(s) {', '.join(map(str, unknown))}; "
                             f"allowed: {', '.join(sorted(allowed))}")


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
