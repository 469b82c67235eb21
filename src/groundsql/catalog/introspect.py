"""Read a database's structure with the SQLAlchemy inspector."""

from __future__ import annotations

import logging

import sqlalchemy as sa

from groundsql.catalog.schema import Column, ForeignKey, Schema, Table
from groundsql.db import Database

log = logging.getLogger("groundsql")


def introspect(db: Database) -> Schema:
    """Tables and views with their columns, declared types, nullability, keys and comments."""
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
        schema.tables.append(_table(inspector, name, is_view))
    return schema


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
