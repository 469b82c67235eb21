"""Schema-linking quality: the tables and columns gold SQL uses versus those a linker kept.

SRR (strict recall: every gold item kept), NSR (share of gold items kept), NSP (share of kept items that are
gold) and NSF (their harmonic mean), per question, at table and at column level (APEX-SQL §4.2.1, ProSPy §2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

Schema = dict[str, list[str]]  # table -> column names


@dataclass
class GoldSchema:
    """Tables and (table, column) pairs a gold query reads, lower-cased."""

    tables: set[str] = field(default_factory=set)
    columns: set[tuple[str, str]] = field(default_factory=set)


def gold_schema(sql: str, schema: Schema, dialect: str = "sqlite") -> GoldSchema:
    """Extract the tables and columns `sql` uses, resolving unqualified columns with `schema`."""
    gold = GoldSchema()
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return gold
    lowered = {t.lower(): {c.lower(): "TEXT" for c in cols} for t, cols in schema.items()}
    try:
        tree = qualify(tree.copy(), schema=lowered, dialect=dialect, validate_qualify_columns=False,
                       identify=False, quote_identifiers=False)
    except Exception:  # qualification is best effort; table names are still collected below
        pass
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    gold.tables = {t.name.lower() for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in ctes}
    try:
        scopes = traverse_scope(tree)
    except Exception:
        scopes = []
    for scope in scopes:
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if isinstance(source, exp.Table) and source.name.lower() not in ctes:
                gold.columns.add((source.name.lower(), column.name.lower()))
    known = {(t, c) for t, cols in lowered.items() for c in cols}
    if known:
        gold.columns &= known
    return gold


def linking_scores(gold: GoldSchema, linked: Schema, schema: Schema) -> dict[str, dict[str, float] | None]:
    """Per-question SRR/NSR/NSP/NSF (as 0..1) at table and column level.

    A linked table with no columns listed keeps all its columns. Column scores are None when the gold query
    names no column (e.g. ``SELECT count(*) FROM t``).
    """
    all_columns = {t.lower(): [c.lower() for c in cols] for t, cols in schema.items()}
    kept_tables = {t.lower() for t in linked}
    kept_columns = set()
    for table, columns in linked.items():
        names = [c.lower() for c in columns] or all_columns.get(table.lower(), [])
        kept_columns.update((table.lower(), c) for c in names)
    return {
        "table": _scores(gold.tables, kept_tables),
        "column": _scores(gold.columns, kept_columns) if gold.columns else None,
    }


def _scores(gold: set, kept: set) -> dict[str, float]:
    hit = len(gold & kept)
    recall = hit / len(gold) if gold else 1.0
    precision = hit / len(kept) if kept else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return {"srr": float(gold <= kept), "nsr": recall, "nsp": precision, "nsf": f1}
