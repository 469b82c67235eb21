"""The tables and columns a SQL query reads, resolved with sqlglot (aliases, subqueries, CTEs, stars)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope

from groundsql.catalog.schema import Schema, Table

log = logging.getLogger("groundsql")


@dataclass
class SqlRefs:
    """Schema elements referenced by one query, spelled as in the schema; `unknown` holds names it lacks.

    `misplaced` maps a table the query read to the column names it asked of that table but the table lacks
    ('' for an unqualified name no table of the query has): a frequent error of draft queries, and a hint that
    another table is needed.
    """

    columns: dict[str, set[str]] = field(default_factory=dict)  # table → columns
    unknown: list[str] = field(default_factory=list)
    misplaced: dict[str, set[str]] = field(default_factory=dict)
    ok: bool = True

    @property
    def tables(self) -> list[str]:
        return list(self.columns)

    def add(self, table: str, column: str | None = None) -> None:
        entry = self.columns.setdefault(table, set())
        if column is not None:
            entry.add(column)


def sql_refs(sql: str, schema: Schema, dialect: str | None = None) -> SqlRefs:
    """Resolve every table and column `sql` reads against `schema`.

    Args:
        sql: one query (any statement sqlglot parses for the dialect).
        schema: the database structure, used to qualify unqualified columns and expand `*`.
        dialect: sqlglot dialect; defaults to the schema's.

    Returns:
        `SqlRefs`; `ok` is False when the query does not parse (then nothing is referenced).
    """
    dialect = dialect or schema.dialect
    refs = SqlRefs()
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError as exc:
        log.debug("cannot parse SQL for references: %s", exc)
        refs.ok = False
        return refs
    if tree is None:
        refs.ok = False
        return refs
    mapping = {t.name: {c.name: (c.type or "TEXT") for c in t.columns} for t in schema.tables}
    try:
        tree = qualify(tree, schema=mapping, dialect=dialect, validate_qualify_columns=False,
                       quote_identifiers=False, identify=False)
    except SqlglotError as exc:  # an unknown table or a construct qualify cannot handle: resolve what we can
        log.debug("qualify failed (%s); resolving columns without it", exc)
    try:
        scopes = traverse_scope(tree)
    except SqlglotError:
        scopes = []
    for scope in scopes:
        _collect_scope(scope, schema, refs)
    if not scopes:
        for table in tree.find_all(exp.Table):
            _add_table(table.name, schema, refs)
    return refs


def _collect_scope(scope: Scope, schema: Schema, refs: SqlRefs) -> None:
    base = {alias: source for alias, source in scope.sources.items() if isinstance(source, exp.Table)}
    for source in base.values():
        _add_table(source.name, schema, refs)
    for column in scope.columns:
        if isinstance(column.this, exp.Star):
            continue
        name = column.name
        source = base.get(column.table) if column.table else None
        if source is not None:
            _add_column(source.name, name, schema, refs)
        elif column.table and column.table in scope.sources:
            continue  # a column of a derived table or CTE: the inner scope records its origin
        else:
            owners = [s.name for s in base.values() if _table(schema, s.name) and _table(schema, s.name).column(name)]
            for owner in owners:  # an ambiguous name goes to every table of the query that has it
                _add_column(owner, name, schema, refs)
            if owners:
                continue
            if column.table == "" and column.this.args.get("quoted"):
                continue  # SQLite reads an unresolvable "double-quoted" name as a string literal
            if not _is_output_alias(scope, name):
                refs.unknown.append(f"{column.table + '.' if column.table else ''}{name}")
                only = next(iter(base.values())).name if len(base) == 1 else ""  # the one table it can mean
                refs.misplaced.setdefault(_schema_name(schema, only), set()).add(name)


def _is_output_alias(scope: Scope, name: str) -> bool:
    select = scope.expression
    if not isinstance(select, exp.Select):
        return False
    lowered = name.lower()
    return any(isinstance(e, exp.Alias) and e.alias.lower() == lowered
               and not (isinstance(e.this, exp.Column) and e.this.name.lower() == lowered)  # qualify's `x AS x`
               for e in select.expressions)


def _schema_name(schema: Schema, name: str) -> str:
    table = schema.table(name) if name else None
    return table.name if table is not None else name


def _table(schema: Schema, name: str):
    return schema.table(name)


def _add_table(name: str, schema: Schema, refs: SqlRefs) -> None:
    table = schema.table(name)
    if table is None:
        refs.unknown.append(name)
        return
    refs.add(table.name)


def _add_column(table_name: str, column_name: str, schema: Schema, refs: SqlRefs) -> None:
    table = schema.table(table_name)
    if table is None:
        refs.unknown.append(f"{table_name}.{column_name}")
        refs.misplaced.setdefault(table_name, set()).add(column_name)
        return
    column = table.column(column_name)
    if column is None:
        refs.unknown.append(f"{table.name}.{column_name}")
        refs.misplaced.setdefault(table.name, set()).add(column_name)
        refs.add(table.name)
        return
    refs.add(table.name, column.name)


def owners_of(schema: Schema, names: set[str], *, near: str = "") -> list[Table]:
    """Tables having any of the column `names`, those with most of them first, then by name likeness to `near`."""
    scored = []
    for position, table in enumerate(schema.tables):
        covered = sum(table.column(name) is not None for name in names)
        if covered:
            likeness = SequenceMatcher(None, near.lower(), table.name.lower()).ratio() if near else 0.0
            scored.append((-covered, -likeness, position, table))
    return [table for *_, table in sorted(scored, key=lambda item: item[:3])]
