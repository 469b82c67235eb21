"""A column's type and values as SQLite reads them (`catalog.sqlite_types`), for SQLite prompts on any engine."""

from __future__ import annotations

import sqlite3

import pytest

from groundsql.catalog.schema import Column, ForeignKey, Table
from groundsql.catalog.sqlite_types import (
    SOURCE_TYPE_MARKER,
    keys_comment,
    restore_keys,
    source_type_comment,
    split_comment,
    sqlite_type,
    sqlite_value,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("declared", "dialect", "source", "expected"), [
    ("BIGINT", "postgres", "int", "int"),  # a copy shows its original's type
    ("varchar(20)", "sqlite", None, "varchar(20)"),  # SQLite's own is kept
    ("BIGINT", "duckdb", None, "INTEGER"),
    ("DOUBLE PRECISION", "postgres", None, "REAL"),
    ("LONGTEXT", "mysql", None, "TEXT"),
    ("VARCHAR(255)", "mysql", None, "TEXT"),
    ("NUMERIC(10, 2)", "postgres", None, "NUMERIC"),
    ("BYTEA", "postgres", None, "BLOB"),
    ("TIMESTAMP WITH TIME ZONE", "postgres", None, "DATETIME"),
    ("DATE", "duckdb", None, "DATE"),
    ("BOOLEAN", "duckdb", None, "BOOLEAN"),
])
def test_sqlite_type(declared: str, dialect: str, source: str | None, expected: str) -> None:
    assert sqlite_type(declared, dialect, source) == expected


def test_the_copys_comment_carries_the_type_and_nothing_else() -> None:
    assert split_comment(source_type_comment("varchar(20)")) == ("varchar(20)", None)
    assert split_comment(source_type_comment("")) == ("", None)
    assert split_comment("the singer's name") == (None, "the singer's name")
    assert split_comment(None) == (None, None)
    assert source_type_comment("int").startswith(SOURCE_TYPE_MARKER)


@pytest.mark.parametrize("declared", ["text", "int", "INTEGER", "real", "number", "bool", "varchar(3)", "double"])
@pytest.mark.parametrize("stored", [1, 61.5, 80.0, "1", "61.5", "Joe", " 5", "1e3", "", None])
def test_values_read_as_sqlite_stores_them(declared: str, stored: object) -> None:
    """What SQLite itself returns for a value inserted into a column declared `declared`."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE t (c {declared})")
    conn.execute("INSERT INTO t VALUES (?)", (stored,))
    [(expected,)] = conn.execute("SELECT c FROM t").fetchall()
    value = sqlite_value(stored, declared)
    assert value == expected and type(value) is type(expected)


def test_the_copys_table_comment_carries_the_originals_keys() -> None:
    original = Table("flights", [Column("Airline"), Column("FlightNo"), Column("DestAirport")],
                     primary_key=["Airline", "FlightNo"],
                     foreign_keys=[ForeignKey(["DestAirport"], "airports", ["AirportCode"])])
    copy = Table("flights", [Column("Airline"), Column("FlightNo"), Column("DestAirport")],
                 comment=keys_comment(original))  # the server kept no key: a row breaks the foreign key
    restore_keys(copy)
    assert copy.comment is None and copy.primary_key == ["Airline", "FlightNo"]
    assert [c.primary_key for c in copy.columns] == [True, True, False]
    assert copy.foreign_keys == original.foreign_keys
    described = Table("t", comment="Flights of 2015")
    restore_keys(described)
    assert described.comment == "Flights of 2015" and described.primary_key == []
