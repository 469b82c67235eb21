"""Every finding of the fuzz runs, kept as a regression test (benchmarks/results/fuzz/fuzz.md lists them)."""

from __future__ import annotations

import pytest

from groundsql.db import Database
from groundsql.db.guard import check_statement
from groundsql.errors import RefusedStatement
from tests.fuzz.sqlgen import DIALECTS

DEEP = ["SELECT " + "(" * 3000 + "1" + ")" * 3000, "SELECT " + "- " * 3000 + "1", "SELECT " + "NOT " * 3000 + "1",
        "SELECT 1 FROM orders WHERE " + " AND ".join(["(" * 400 + "1 = 1" + ")" * 400] * 3)]


@pytest.mark.unit
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", DEEP, ids=["parens", "signs", "nots", "conjunction"])
def test_a_statement_nested_past_the_parser_stack_is_refused_not_a_recursion_error(sql, dialect) -> None:
    """Finding 2: sqlglot ran out of stack (RecursionError) on deep nesting; `execute` raised it, undocumented
    (the server answered 500). Now refused."""
    with pytest.raises(RefusedStatement, match="nested too deeply|cannot parse"):
        check_statement(sql, dialect)


@pytest.mark.unit
@pytest.mark.parametrize("sql", ["SELECT DATE_ADD(1)", "SELECT DATE_SUB(order_date) FROM orders",
                                 "SELECT CASE WHEN DATE_ADD(2147483648) THEN 1 END"])
def test_a_parser_crash_on_mysql_date_add_is_refused(sql) -> None:
    """Finding 1: sqlglot's MySQL parser raised AttributeError on DATE_ADD/DATE_SUB with one argument; it
    escaped `Database.execute` as an undocumented error. Any parser failure now refuses the statement."""
    with pytest.raises(RefusedStatement, match="cannot parse"):
        check_statement(sql, "mysql")


@pytest.mark.integration
def test_deep_nesting_through_execute_is_a_refusal(music_db) -> None:
    with Database(str(music_db)) as db:
        for sql in DEEP[:3]:
            with pytest.raises(RefusedStatement):
                db.execute(sql)
        assert db.execute("SELECT " + "(" * 10 + "1" + ")" * 10).rows == [(1,)]


@pytest.mark.unit
@pytest.mark.parametrize("dialect", DIALECTS)
def test_show_all_is_refused_where_the_parser_fails_on_it(dialect) -> None:
    """Finding 6: sqlglot's DuckDB parser raised IndexError on `SHOW ALL` (a utility statement the generator
    writes); before the guard failed closed it escaped `Database.execute` undocumented. Refused on every dialect."""
    with pytest.raises(RefusedStatement):
        check_statement("SHOW ALL", dialect)
