"""Execution-guided repair hints: classify what went wrong with a candidate and say how to fix it."""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.catalog.schema import Schema
from groundsql.db import Result
from groundsql.sql.references import owners_of, sql_refs

#: Error classes (SSEV §3.1.3 / ReCAPAgent-SQL §3.3.6) and the substrings engines use for them.
_MARKERS: list[tuple[str, tuple[str, ...]]] = [
    ("refused", ("refused:",)),
    ("timeout", ("time limit", "timeout", "interrupted", "canceling statement")),
    ("no_such_table", ("no such table", "does not exist", "table with name", "unknown table",
                       "catalog error: table")),
    ("no_such_column", ("no such column", "unknown column", "referenced column", "column \"",
                        "binder error: referenced")),
    ("ambiguous_column", ("ambiguous",)),
    ("type_mismatch", ("type mismatch", "cannot compare", "could not convert", "conversion", "invalid input syntax",
                       "operator does not exist", "datatype mismatch")),
    ("syntax", ("syntax error", "parser error", "cannot parse", "near \"", "incomplete input")),
]


@dataclass
class Diagnosis:
    kind: str  # refused | syntax | no_such_table | no_such_column | ambiguous_column | type_mismatch | empty_result | timeout | too_many_rows | other | ok
    problem: str  # what happened, for the prompt
    hint: str  # what to do about it


def diagnose(sql: str, result: Result | None, error: str | None, schema: Schema | None) -> Diagnosis:
    """Classify a candidate's outcome; `kind == "ok"` means nothing to repair."""
    if error:
        lowered = error.lower()
        kind = next((k for k, markers in _MARKERS if any(m in lowered for m in markers)), "other")
        if kind == "no_such_column" and "column" not in lowered:
            kind = "other"
        return Diagnosis(kind, f"Running it failed with this error:\n{error}", _hint(kind, sql, schema))
    if result is None:
        return Diagnosis("other", "The query did not run.", "")
    if result.row_count == 0:
        return Diagnosis(
            "empty_result",
            "It ran but returned no rows.",
            "Check filter values against the stored values (spelling, case, codes, trailing spaces) and "
            "whether every join and condition is needed." + _tables_hint(sql, schema),
        )
    if result.truncated:
        return Diagnosis("too_many_rows", f"It returned more than {result.row_count} rows.",
                         "Check for a missing filter, join condition or aggregation.")
    return Diagnosis("ok", "", "")


def _hint(kind: str, sql: str, schema: Schema | None) -> str:
    tables = _tables_hint(sql, schema)
    return {
        "refused": "Only one read-only SELECT (or WITH … SELECT) over this database's own tables may run, with "
                   "standard SQL functions; never change data or schema. Do what the refusal says." + _all_tables(schema),
        "syntax": "Fix the syntax; write plain standard SQL for this engine.",
        "no_such_table": "Use only tables that exist in the schema." + _all_tables(schema),
        "no_such_column": "Use only columns that exist in the tables you query." + tables + _misplaced_hint(sql, schema),
        "ambiguous_column": "Qualify every column with its table name or alias." + tables,
        "type_mismatch": "Compare values of the same type; cast where the stored type differs." + tables,
        "timeout": "Make the query cheaper: avoid cross joins and correlated subqueries over large tables.",
    }.get(kind, tables)


def _parse(sql: str, schema: Schema | None) -> exp.Expression | None:
    """The query's syntax tree in the schema's dialect, or None when there is no schema or it does not parse."""
    if schema is None:
        return None
    try:
        return sqlglot.parse_one(sql, read=schema.dialect)
    except (SqlglotError, ValueError):
        return None


def _tables_hint(sql: str, schema: Schema | None) -> str:
    """The real columns of each table the query names (through aliases), so the model can pick the right one."""
    tree = _parse(sql, schema)
    if tree is None:
        return ""
    lines = []
    seen: set[str] = set()
    for table in tree.find_all(exp.Table):
        found = schema.table(table.name)
        if found is None or found.name in seen:
            continue
        seen.add(found.name)
        alias = f" (alias {table.alias})" if table.alias else ""
        lines.append(f"- {found.name}{alias}: {', '.join(c.name for c in found.columns)}")
    return ("\nColumns of the tables in the query:\n" + "\n".join(lines)) if lines else ""


def _misplaced_hint(sql: str, schema: Schema | None) -> str:
    """For columns that none of the query's tables (through their aliases) has: the tables that do have them."""
    if schema is None:
        return ""
    refs = sql_refs(sql, schema)
    lines: list[str] = []
    for placed_on, names in refs.misplaced.items():
        for name in sorted(names):
            owners = [t.name for t in owners_of(schema, {name}, near=placed_on)]
            line = f"- {name} is a column of {', '.join(owners[:3])}: join that table or use it instead."
            if owners and line not in lines:
                lines.append(line)
    return ("\nMisplaced columns:\n" + "\n".join(lines)) if lines else ""


def _all_tables(schema: Schema | None) -> str:
    if schema is None:
        return ""
    return "\nTables: " + ", ".join(schema.table_names)
