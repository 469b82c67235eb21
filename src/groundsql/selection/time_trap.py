"""The `time_trap` check: a SQLite date function applied to values SQLite does not read as dates.

SQLite's date functions (`strftime`, `date`, `datetime`, `julianday`, `time`, `unixepoch`) read ISO 8601 text
('2014-03-15', '2014-03-15 10:00') and numbers, a number as a Julian day unless a 'unixepoch' or 'auto' modifier
says otherwise. So `strftime('%Y', year)` over a year kept as 2014 or '2014' is '-4707' (day 2014 of the Julian
period), over 20130107 or '03/15/2019' it is NULL, and nothing fails: the query runs and every filter, group or
output built on it is silently wrong. The check asks the database how SQLite reads the column's stored values
(`date(col)` over a few of them, through `Context.query`) and reports when it reads none of them as a date between
the years 1000 and 2999. It says nothing on other engines, where the same call raises an error instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from groundsql.catalog.schema import Table
from groundsql.selection.query_view import Finding, QueryView, own_nodes, table_sources

#: SQLite's date and time functions, as sqlglot renders them in the SQLite dialect.
TIME_FUNCTIONS = frozenset({"STRFTIME", "DATE", "DATETIME", "JULIANDAY", "TIME", "UNIXEPOCH"})
#: Modifiers that make a number an epoch rather than a Julian day.
EPOCH_MODIFIERS = frozenset({"unixepoch", "auto"})
#: Years a stored value read as a date should fall in; outside them the reading is an accident of the encoding.
PLAUSIBLE_YEARS = range(1000, 3000)
#: Stored values probed per column.
PROBED_VALUES = 5


def check_time_trap(q: QueryView) -> list[Finding]:
    """Date functions over a column whose stored values SQLite reads as no plausible date (SQLite only)."""
    if q.ctx.db.dialect != "sqlite":
        return []
    findings = []
    seen: set[tuple[str, str]] = set()
    for table, column, call in _time_calls(q):
        if (table.name, column.name) in seen:
            continue
        seen.add((table.name, column.name))
        readings = _readings(q, table.name, column.name)
        if not readings or any(_plausible(read) for _, read in readings):
            continue
        stored, read = readings[0]
        shown = ", ".join(repr(value) for value, _ in readings[:3])
        name = f"{table.name}.{column.name}"
        findings.append(Finding(
            "time_trap",
            f"{_function(call).lower()}() over {name}: SQLite reads none of its values as a date "
            f"(date({stored!r}) is {'NULL' if read is None else repr(read)})",
            f"{name} holds values such as {shown}, which SQLite's date functions do not read as dates (a number "
            f"is taken as a Julian day; only ISO text such as '2014-03-15' is read), so "
            f"{call.sql(dialect='sqlite')} is wrong for every row. Use the stored values as they are: compare or "
            f"group by {column.name} itself (a year kept as a number or as text: `{column.name} = 2014`), or take "
            f"the part you need with arithmetic or substr()."))
    return findings


def _time_calls(q: QueryView) -> Iterator[tuple[Table, exp.Column, exp.Func]]:
    """(table, column, call) for every table column that a date function reads without an epoch modifier, in
    every SELECT of the query (each resolved against its own FROM and JOINs)."""
    for select in q.tree.find_all(exp.Select):
        sources = table_sources(q.ctx, select)
        for column in own_nodes(select, exp.Column):
            call = _enclosing_time_call(column)
            table = sources.get(column.table) if column.table else None
            if call is not None and table is not None and not _epoch_modifier(call):
                yield table, column, call


def _enclosing_time_call(column: exp.Column) -> exp.Func | None:
    """The nearest date function the column is an argument of, through casts and other calls only."""
    parent = column.parent
    while isinstance(parent, exp.Func):
        if _function(parent) in TIME_FUNCTIONS:
            return parent
        parent = parent.parent
    return None


def _function(call: exp.Func) -> str:
    return call.sql(dialect="sqlite").split("(", 1)[0].strip().upper()


def _epoch_modifier(call: exp.Func) -> bool:
    return any(literal.is_string and literal.this.strip().lower() in EPOCH_MODIFIERS
               for literal in call.find_all(exp.Literal))


def _readings(q: QueryView, table: str, column: str) -> list[tuple[object, object]]:
    """(stored value, SQLite's `date()` of it) for a few distinct non-NULL values of the column."""
    ref = exp.column(column)
    stored = exp.Not(this=exp.Is(this=ref.copy(), expression=exp.Null()))
    probe = (exp.select(ref.copy(), exp.Anonymous(this="date", expressions=[ref.copy()]))
             .distinct().from_(exp.to_table(table)).where(stored).limit(PROBED_VALUES))
    rows = q.probe(probe, "time_trap")
    return [(row[0], row[1]) for row in rows or []]


def _plausible(read: object) -> bool:
    """Whether SQLite's reading of a value is a date in `PLAUSIBLE_YEARS`."""
    if not isinstance(read, str) or read.startswith("-"):
        return False
    year = read.split("-", 1)[0]
    return year.isdigit() and int(year) in PLAUSIBLE_YEARS
