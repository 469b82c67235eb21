"""Names in the catalog's own case, quoted where the engine would fold them otherwise.

SQLite, DuckDB and Spark match table and column names whatever their case; PostgreSQL folds an unquoted name to
lower case and then compares exactly, and MariaDB/MySQL compare table names and table aliases exactly (with
`lower_case_table_names=0`, the default on Linux). A query that writes `singer.name` for the stored `Singer.Name`
therefore fails there. `to_catalog_case` resolves each table, column and qualifier case-insensitively (against the
catalog, or the query's own aliases and derived tables) and respells only the names the engine would not match:
a query that already resolves on the engine is never changed.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.catalog.schema import Schema
from groundsql.sql.resolve import ColumnUse, Source, resolve

#: Engines that fold unquoted names to lower case and then compare exactly.
_FOLDING = frozenset({"postgres"})
#: Engines that compare table names and table aliases exactly (quoted or not).
_EXACT_TABLES = frozenset({"postgres", "mysql"})


def case_sensitive(dialect: str) -> bool:
    """Whether the engine can miss a name written in another case than the catalog's."""
    return dialect in _EXACT_TABLES


def to_catalog_case(tree: exp.Expression, schema: Schema, dialect: str) -> list[str]:
    """Respell, in place, every name of `tree` the engine would not match but the catalog has up to case.

    Args:
        tree: a parsed query.
        schema: the database's structure, names as the engine stores them.
        dialect: the sqlglot dialect of the engine.

    Returns:
        What was respelled, in words (empty when nothing was: always on SQLite, DuckDB and Spark).
    """
    if not case_sensitive(dialect):
        return []
    changes: list[str] = []
    ctes = {c.alias.lower() for c in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if table.name and not table.args.get("db") and table.name.lower() not in ctes:
            changes += _respell(table, "this", _stored_table(schema, table, dialect), dialect)
    resolution = resolve(tree, schema, dialect)
    if resolution is None:
        return changes
    # inner scopes first (as traverse_scope lists them), so a derived table's outputs are final when read
    order = {id(view.select): position for position, view in enumerate(resolution.scopes)}
    for use in sorted(resolution.columns, key=lambda u: order.get(id(u.scope.select), 0)):
        if use.node.table and use.source is not None:
            changes += _respell(use.node, "table", _alias_read(use.source, dialect), dialect)
        if use.status == "ok" and use.source is not None and dialect in _FOLDING:
            changes += _respell(use.node, "this", _stored_column(use, dialect), dialect)
    return changes


def in_catalog_case(sql: str, schema: Schema, dialect: str) -> str:
    """`sql` (the engine's dialect) with `to_catalog_case` applied; the text unchanged when nothing needed it or
    sqlglot cannot read or write it."""
    if not case_sensitive(dialect) or not sql:
        return sql
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        if not isinstance(tree, exp.Query) or not to_catalog_case(tree, schema, dialect):
            return sql
        return tree.sql(dialect=dialect)
    except (SqlglotError, ValueError):
        return sql


def _engine_reads(identifier: exp.Identifier, dialect: str) -> str:
    return identifier.name if identifier.quoted or dialect not in _FOLDING else identifier.name.lower()


def _stored_table(schema: Schema, table: exp.Table, dialect: str) -> str | None:
    """The catalog's name for `table`, when the engine would not match it as written and exactly one table
    matches it up to case."""
    identifier = table.this
    if not isinstance(identifier, exp.Identifier):
        return None
    written = _engine_reads(identifier, dialect)
    if any(t.name == written for t in schema.tables):
        return None
    matches = [t.name for t in schema.tables if t.name.lower() == identifier.name.lower()]
    return matches[0] if len(matches) == 1 else None


def _stored_column(use: ColumnUse, dialect: str) -> str | None:
    """The column's name as its source offers it (a table's stored name, a derived table's output as the
    engine reads it), when exactly one matches up to case."""
    source = use.source
    assert source is not None
    names = [c.name for c in source.table.columns] if source.table is not None else _outputs(source.node, dialect)
    matches = [n for n in names if n.lower() == use.name.lower()]
    return matches[0] if len(matches) == 1 else None


def _outputs(node: exp.Expression, dialect: str) -> list[str]:
    """A derived table's or CTE's output names as the engine reads them (from its current, respelled tree)."""
    select = node
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select):
        return []
    names = []
    for expression in select.expressions:
        identifier = None
        if isinstance(expression, exp.Alias):
            identifier = expression.args.get("alias")
        elif isinstance(expression, exp.Column):
            identifier = expression.this
        if isinstance(identifier, exp.Identifier):
            names.append(_engine_reads(identifier, dialect))
    return names


def _alias_read(source: Source, dialect: str) -> str | None:
    """The name a qualifier must read as to reach `source` on the engine: its alias, or the table's own name."""
    node = source.node
    identifier = None
    if isinstance(node, exp.Table):
        alias = node.args.get("alias")
        identifier = alias.this if isinstance(alias, exp.TableAlias) and alias.this else node.this
    elif isinstance(node.parent, (exp.Subquery, exp.CTE)):
        alias = node.parent.args.get("alias")
        identifier = alias.this if isinstance(alias, exp.TableAlias) else None
    return _engine_reads(identifier, dialect) if isinstance(identifier, exp.Identifier) else None


def _respell(node: exp.Expression, key: str, target: str | None, dialect: str) -> list[str]:
    """Set `node`'s identifier `key` so that the engine reads it as `target`, where it now reads the same name in
    another case; anything else is left alone."""
    identifier = node.args.get(key)
    if target is None or not isinstance(identifier, exp.Identifier):
        return []
    if _engine_reads(identifier, dialect) == target or identifier.name.lower() != target.lower():
        return []
    quoted = identifier.quoted or (dialect in _FOLDING and target != target.lower())
    before = identifier.sql(dialect=dialect)
    node.set(key, exp.to_identifier(target, quoted=quoted or None))
    return [f"{before} → {node.args[key].sql(dialect=dialect)}"]
