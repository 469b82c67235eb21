"""A small school database built per session: students and courses joined many-to-many through enrollment."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundsql.context import Context
from groundsql.db import Database
from groundsql.models import ScriptedModel

SCHOOL_DDL = """
CREATE TABLE teacher (teacher_id INTEGER PRIMARY KEY, full_name TEXT, department TEXT);
CREATE TABLE course (course_id INTEGER PRIMARY KEY, title TEXT, credits INTEGER,
                     teacher_id INTEGER REFERENCES teacher(teacher_id));
CREATE TABLE student (student_id INTEGER PRIMARY KEY, name TEXT, country TEXT, birth_year INTEGER);
CREATE TABLE enrollment (student_id INTEGER REFERENCES student(student_id),
                         course_id INTEGER REFERENCES course(course_id), grade REAL,
                         PRIMARY KEY (student_id, course_id));
CREATE TABLE audit_log (log_id INTEGER PRIMARY KEY, happened_at TEXT, message TEXT);
CREATE TABLE sales_2019 (sale_id INTEGER, amount REAL);
CREATE TABLE sales_2020 (sale_id INTEGER, amount REAL);
"""
SCHOOL_ROWS = [
    "INSERT INTO teacher VALUES (1, 'Ada Byron', 'Mathematics'), (2, 'Alan Turing', 'Computing')",
    "INSERT INTO course VALUES (10, 'Linear Algebra', 6, 1), (11, 'Compilers', 5, 2)",
    "INSERT INTO student VALUES (100, 'Marie', 'France', 2001), (101, 'Kenji', 'Japan', 2000),"
    " (102, 'Lucia', 'Argentina', 2002)",
    "INSERT INTO enrollment VALUES (100, 10, 17.5), (100, 11, 15.0), (101, 11, 12.0), (102, 10, 19.0)",
    "INSERT INTO audit_log VALUES (1, '2024-01-01', 'created')",
    "INSERT INTO sales_2019 VALUES (1, 9.5)",
    "INSERT INTO sales_2020 VALUES (1, 7.0)",
]


@pytest.fixture(scope="session")
def school_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("linking") / "school.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCHOOL_DDL)
    for statement in SCHOOL_ROWS:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


@pytest.fixture()
def school(school_db):
    db = Database(str(school_db))
    yield db
    db.close()


def make_ctx(db: Database, question: str, replies=None, **options) -> Context:
    model = ScriptedModel(list(replies or []))
    return Context(question=question, db=db, models={"default": model}, options=dict(options))
