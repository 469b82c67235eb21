"""Dialect notes: every shipped note's check runs on the real engine; notes are chosen by need, never all."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest
import sqlglot

from groundsql.db import Database
from groundsql.knowledge.dialect_notes import DIALECTS, choose_notes, notes_for

TOPICS = {"dates", "concat", "division", "limit", "nulls", "regex", "boolean", "cast", "quoting"}


def check_all(db: Database, dialect: str) -> None:
    for topic, note in notes_for(dialect).items():
        result = db.execute(note.check_sql)
        value = result.rows[0][0]
        if isinstance(value, Decimal):
            value = float(value)
        assert value == note.expect, f"{dialect}/{topic}: {note.check_sql} gave {value!r}"


@pytest.mark.unit
@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_has_every_topic_and_its_checks_parse(dialect: str) -> None:
    notes = notes_for(dialect)
    assert set(notes) == TOPICS
    for note in notes.values():
        assert sqlglot.parse_one(note.check_sql, read=dialect) is not None
        assert len(note.text) < 330  # short: a few notes must fit a small model's prompt


@pytest.mark.integration
def test_sqlite_notes_hold(tmp_path: Path) -> None:
    sqlite3.connect(tmp_path / "x.sqlite").execute("CREATE TABLE t (x INTEGER)").connection.commit()
    check_all(Database(str(tmp_path / "x.sqlite")), "sqlite")


@pytest.mark.integration
def test_duckdb_notes_hold(tmp_path: Path) -> None:
    import duckdb

    duckdb.connect(str(tmp_path / "x.duckdb")).execute("CREATE TABLE t (x INTEGER)").close()
    check_all(Database(str(tmp_path / "x.duckdb")), "duckdb")


@pytest.mark.integration
def test_postgres_notes_hold(postgres_database: str) -> None:
    check_all(Database(postgres_database), "postgres")


@pytest.mark.integration
def test_mysql_notes_hold(mysql_database: str) -> None:
    check_all(Database(mysql_database), "mysql")


@pytest.mark.integration
@pytest.mark.slow  # the test run's one local Spark session (starting it takes tens of seconds)
def test_spark_notes_hold(spark_session) -> None:
    for topic, note in notes_for("spark").items():
        assert spark_session.sql(note.check_sql).collect()[0][0] == note.expect, topic


@pytest.mark.unit
@pytest.mark.parametrize(("question", "draft", "first"), [
    ("How many orders were placed in 2023?", None, "dates"),
    ("What percentage of customers are active?", None, "division"),
    ("Show each customer's full name", None, "concat"),
    ("Which product has the highest price?", None, "limit"),
    ("Products whose name starts with 'Es'", None, "regex"),
    ("List the customers", "SELECT first || ' ' || last FROM customers", "concat"),
    ("Average", "SELECT count(a) / count(b) FROM t", "division"),
])
def test_notes_follow_the_question_and_the_draft(question: str, draft: str | None, first: str) -> None:
    chosen = choose_notes("sqlite", question, draft=draft)
    assert chosen[0][0].topic == first
    assert len(chosen) <= 3


@pytest.mark.unit
def test_no_need_no_notes_and_schema_reasons_count() -> None:
    assert choose_notes("sqlite", "List the singers") == []
    assert [n.topic for n, _ in choose_notes("sqlite", "List the singers", quoted_names=True)] == ["quoting"]
    assert choose_notes("oracle", "How many orders in 2023?") == []  # no notes for a dialect we do not ship
