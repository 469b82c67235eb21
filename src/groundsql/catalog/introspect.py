"""Read a database's structure with the SQLAlchemy inspector."""

from __future__ import annotations

import logging

import sqlalchemy as sa

from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
from groundsql.catalog.sqlite_types import restore_keys, split_comment
from groundsql.db import Database

log = logging.getLogger("groundsql")


def introspect(db: Database) -> Schema:
    """Tables and views with their columns, declared types, nullability, keys and comments."""
    if db.backend == "duckdb":
        # duckdb-engine's inspector breaks on recent DuckDB releases (pg_catalog gaps); DuckDB's own
        # catalog functions answer the same questions through the guarded path.
        schema = _introspect_duckdb(db)
    elif db.backend == "spark":
        schema = _introspect_spark(db)
    else:
        schema = _introspect_sqlalchemy(db)
    for table in schema.tables:  # a copy's comments carry its SQLite original's types and keys, not descriptions
        for column in table.columns:
            column.source_type, column.comment = split_comment(column.comment)
        restore_keys(table)
    return schema


def _introspect_sqlalchemy(db: Database) -> Schema:
    inspector = sa.inspect(db.engine)
    schema = Schema(dialect=db.dialect)
    names = [(n, False) for n in sorted(inspector.get_table_names())]
    try:
        names += [(n, True) for n in sorted(inspector.get_view_names())]
    except NotImplementedError:
        pass
    for name, is_view in names:
        if name.startswith("sqlite_"):
            continue
        try:
            schema.tables.append(_table(inspector, name, is_view))
        except sa.exc.SQLAlchemyError as exc:  # e.g. a view over a dropped table
            log.warning("skipping %s: its columns cannot be read (%s)", name, str(exc).splitlines()[0])
    _stored_key_names(schema)
    return schema


def _stored_key_names(schema: Schema) -> None:
    """Keys in the stored spelling of the names they mean: SQLite accepts `REFERENCES singer(singer_id)` for
    `Singer.Singer_ID`, so the catalog reads the same on SQLite as on a copy that must name them exactly."""
    def stored(table: Table | None, name: str) -> str:
        column = table.column(name) if table is not None and name else None
        return column.name if column is not None else name

    for table in schema.tables:
        table.primary_key = [stored(table, c) for c in table.primary_key]
        for key in table.foreign_keys:
            parent = schema.table(key.ref_table)
            key.columns = [stored(table, c) for c in key.columns]
            key.ref_table = parent.name if parent is not None else key.ref_table
            key.ref_columns = [stored(parent, c) for c in key.ref_columns]


def _table(inspector: sa.Inspector, name: str, is_view: bool) -> Table:
    try:
        pk = list(inspector.get_pk_constraint(name).get("constrained_columns") or [])
    except Exception:  # views and some engines have no key metadata
        pk = []
    columns = [
        Column(
            name=c["name"],
            type=_type_name(c["type"]),
            nullable=bool(c.get("nullable", True)),
            primary_key=c["name"] in pk,
            comment=c.get("comment"),
        )
        for c in inspector.get_columns(name)
    ]
    fks: list[ForeignKey] = []
    try:
        for fk in inspector.get_foreign_keys(name):
            if fk.get("referred_table") and fk.get("constrained_columns"):
                fks.append(ForeignKey(list(fk["constrained_columns"]), fk["referred_table"],
                                      list(fk.get("referred_columns") or [])))
    except Exception as exc:
        log.debug("no foreign keys for %s: %s", name, exc)
    try:
        comment = (inspector.get_table_comment(name) or {}).get("text")
    except (NotImplementedError, Exception):
        comment = None
    return Table(name=name, columns=columns, primary_key=pk, foreign_keys=fks, comment=comment, is_view=is_view)


def _type_name(type_: object) -> str:
    try:
        return str(type_)
    except Exception:  # NullType and some dialect types cannot render
        return type(type_).__name__.upper()


def _introspect_duckdb(db: Database) -> Schema:
    schema = Schema(dialect=db.dialect)
    kinds = db.execute_catalog_query(
        "SELECT table_name, table_type FROM information_schema.tables "
        "WHERE table_schema = current_schema() ORDER BY table_type, table_name", max_rows=100_000).rows
    columns = db.execute_catalog_query(
        "SELECT table_name, column_name, data_type, is_nullable, \"comment\" FROM duckdb_columns() "
        "WHERE schema_name = current_schema() AND database_name = current_database() AND NOT internal "
        "ORDER BY table_name, column_index", max_rows=1_000_000).rows
    constraints = db.execute_catalog_query(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names "
        "FROM duckdb_constraints() WHERE schema_name = current_schema() AND database_name = current_database()",
        max_rows=100_000).rows
    comments = dict(db.execute_catalog_query(
        "SELECT table_name, \"comment\" FROM duckdb_tables() WHERE schema_name = current_schema() "
        "AND database_name = current_database()", max_rows=100_000).rows)
    by_table: dict[str, Table] = {}
    for name, kind in kinds:
        table = Table(name=name, is_view=kind == "VIEW", comment=comments.get(name) or None)
        by_table[name] = table
        schema.tables.append(table)
    for table_name, name, data_type, nullable, comment in columns:
        if table_name in by_table:
            by_table[table_name].columns.append(Column(name=name, type=str(data_type),
                                                       nullable=nullable in (True, "YES"), comment=comment or None))
    for table_name, kind, cols, ref_table, ref_cols in constraints:
        table = by_table.get(table_name)
        if table is None:
            continue
        if kind == "PRIMARY KEY":
            table.primary_key = list(cols)
            for column in table.columns:
                column.primary_key = column.name in table.primary_key
        elif kind == "FOREIGN KEY" and ref_table:
            table.foreign_keys.append(ForeignKey(list(cols), ref_table, list(ref_cols or [])))
    return schema


def _introspect_spark(db: Database) -> Schema:
    """Spark's catalog API (no SQLAlchemy dialect): tables, views and temporary views of the current database.
    Spark keeps no enforced keys, so keys are left to inference (a copy's recorded keys are restored)."""
    schema = Schema(dialect=db.dialect)
    for relation in db.relations():  # type: ignore[attr-defined]
        columns = [Column(name=c.name, type=c.type.upper(), nullable=c.nullable, comment=c.comment)
                   for c in relation.columns]
        schema.tables.append(Table(name=relation.name, columns=columns, comment=relation.comment,
                                   is_view=relation.is_view))
    return schema
