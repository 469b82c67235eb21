"""`both_union` on a crafted submissions database: 'both A and B' answered with a UNION of one query per condition
is flagged, its INTERSECT rewrite returns the items with both, shape repair applies it; a UNION of two lists over
different tables, an INTERSECT, and a question without 'both' stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsql.catalog import build_catalog
from groundsql.db import Database
from groundsql.generation.shape_repair import shape_repair
from groundsql.selection.shapes import SET_OPERATION_CHECKS, SHAPE_CHECKS
from tests.conftest import sqlite_from_script
from tests.selection.helpers import checked

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def papers(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("both_union") / "papers.sqlite"
    return sqlite_from_script(path, """
        CREATE TABLE submission (submission_id INTEGER PRIMARY KEY, author TEXT, college TEXT, scores REAL);
        CREATE TABLE teacher (teacher_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE student (student_id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO submission VALUES (1, 'Ann', 'Fisk', 95), (2, 'Bo', 'Fisk', 72), (3, 'Cy', 'Yale', 93),
                                      (4, 'Di', 'Yale', 85), (5, 'Ed', 'Reed', 70), (6, 'Flo', 'Reed', 91);
        INSERT INTO teacher VALUES (1, 'Gus'), (2, 'Hal');
        INSERT INTO student VALUES (1, 'Ivy'), (2, 'Jo');
    """)


@pytest.fixture(scope="module")
def catalog(papers: Path):
    return build_catalog(Database(str(papers)), use_cache=False)


def run(papers: Path, catalog, question: str, sql: str):
    return checked(papers, catalog, question, sql, "both_union")


QUESTION = "Show the colleges that have both authors with scores above 90 and authors with scores below 80."


def test_a_union_answering_both_is_rewritten_as_an_intersection(papers, catalog) -> None:
    assert "both_union" in SHAPE_CHECKS and "both_union" in SET_OPERATION_CHECKS
    sql = "SELECT college FROM submission WHERE scores > 90 UNION SELECT college FROM submission WHERE scores < 80"
    ctx, candidate, found = run(papers, catalog, QUESTION, sql)
    assert len(candidate.result.rows) == 3  # every college meets one of the two
    assert len(found) == 1 and "INTERSECT" in found[0].rewrite.upper()
    repaired, _ = shape_repair(ctx, candidate)
    assert sorted(repaired.result.rows) == [("Fisk",), ("Reed",)]


def test_the_intersection_stands_when_no_college_has_both(papers, catalog) -> None:
    """No college has an author above 94 and one below 71: the UNION lists two colleges, the INTERSECT none, and
    the empty answer is kept, since the UNION answers 'either' whatever the rows are."""
    sql = "SELECT college FROM submission WHERE scores > 94 UNION SELECT college FROM submission WHERE scores < 71"
    ctx, candidate, found = run(papers, catalog, "Show the colleges that have both authors with scores above 94 "
                                "and authors with scores below 71.", sql)
    assert sorted(candidate.result.rows) == [("Fisk",), ("Reed",)]
    assert [(f.check, f.empty_ok) for f in found] == [("both_union", True)]
    repaired, remaining = shape_repair(ctx, candidate)
    assert "INTERSECT" in repaired.sql.upper() and repaired.result.rows == [] and not remaining


def test_a_rewrite_that_empties_the_result_is_dropped_unless_its_finding_allows_it(papers, catalog,
                                                                                   monkeypatch) -> None:
    """A rewrite is a proposal: one that returns no rows is dropped (it more likely broke the query than fixed
    it), except where its finding says the original is wrong whatever the data holds."""
    import groundsql.generation.shape_repair as module
    from groundsql.selection.query_view import Finding

    sql = "SELECT college FROM submission WHERE scores > 90"
    empty = "SELECT college FROM submission WHERE scores > 1000"
    ctx, candidate, _ = run(papers, catalog, "Which colleges have an author above 90?", sql)
    for empty_ok, kept in ((False, sql), (True, empty)):
        finding = Finding("probe", "a crafted finding", "", rewrite=empty, empty_ok=empty_ok)
        monkeypatch.setattr(module, "shape_findings",
                            lambda _ctx, c, f=finding: [f] if c.sql == sql else [])
        assert shape_repair(ctx, candidate)[0].sql == kept


@pytest.mark.parametrize(("question", "sql"), [
    # two lists of different tables: a UNION is what 'both' asks for here
    ("List the names of both the teachers and the students.",
     "SELECT name FROM teacher UNION SELECT name FROM student"),
    # already an intersection
    (QUESTION, "SELECT college FROM submission WHERE scores > 90 INTERSECT "
               "SELECT college FROM submission WHERE scores < 80"),
    # no 'both' in the question
    ("Show the colleges with an author scoring above 90 or below 80.",
     "SELECT college FROM submission WHERE scores > 90 UNION SELECT college FROM submission WHERE scores < 80"),
    # the branches show different columns
    (QUESTION, "SELECT college FROM submission WHERE scores > 90 UNION SELECT author FROM submission "
               "WHERE scores < 80"),
])
def test_unions_that_are_right_stay_silent(papers, catalog, question, sql) -> None:
    _, _, found = run(papers, catalog, question, sql)
    assert found == []
