"""Result sanity checks: deterministic probes of a query that ran, for mistakes its result cannot show by itself.

Each check reads the query's syntax tree (sqlglot), the schema and, where present, the catalog's profiles, and
may run small probe queries — always through `Context.query`, so the guard, read-only mode and limits hold.
A finding is a warning for the reader and a precise hint for a repair round; checks never change a query.

Checks: ``fanout`` (an aggregate that counts rows of a table more than once through a join), ``row_loss`` (an
inner join that drops groups the question asks about), ``null_trap`` (``= NULL``, ``NOT IN`` over a subquery
that yields NULL, averages over NULL-heavy columns), ``type_trap`` (numbers or dates stored as text and compared
or sorted as text), ``time_trap`` (a SQLite date function over values SQLite does not read as dates, such as a
year kept as 2014: `selection/time_trap.py`), ``literal`` (a literal that no stored value equals, with the stored
near spellings), ``shape`` (a list where the question asks for one number) and ``ties`` (``LIMIT 1`` that cuts between equal values).
Two more read only the result and are not run by default (`RESULT_CHECKS`; AgentNLQ's execution feedback runs
them): ``null_columns`` (an output column that is NULL in every row) and ``duplicates`` (repeated rows).
``extra_join`` (an inner join that contributes nothing but changes the rows) is not run by default either
(`JOIN_CHECKS`; the `recap` validator runs it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator

from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.catalog.schema import Table
from groundsql.context import Context
from groundsql.selection import shape
from groundsql.selection.query_view import (
    Finding,
    QueryView,
    body,
    inner_joins,
    own_nodes,
    prepare,
)
from groundsql.selection.switches import switched_on
from groundsql.selection.time_trap import check_time_trap

log = logging.getLogger("groundsql")

CHECKS = ("fanout", "row_loss", "null_trap", "type_trap", "time_trap", "literal", "shape", "ties")
#: Result-only checks, off by default (an all-NULL column or repeated rows can be the right answer).
RESULT_CHECKS = ("null_columns", "duplicates")
#: Checks a reviewing agent runs before its own verdict (off by default for the presets measured without them).
JOIN_CHECKS = ("extra_join",)
#: A column with at least this share of NULLs makes AVG over it worth a warning.
NULL_HEAVY = 0.2
_EVERY = re.compile(r"\b(each|every|all|for all|per)\b", re.IGNORECASE)
_ONE_NUMBER = re.compile(r"^\s*(how many|what is the (total )?number of|what is the (total|average|count)|"
                         r"count the number of|find the number of|what is the sum)\b", re.IGNORECASE)
_GROUPING_WORDS = re.compile(r"\b(each|every|per|by|for all|respectively|group|breakdown|distribution)\b",
                             re.IGNORECASE)


def sanity_check(ctx: Context, candidate: Candidate, *, checks: tuple[str, ...] = CHECKS) -> list[Finding]:
    """Run the named checks on a candidate that ran; returns the findings (empty when all look sane).

    Candidates that failed, or whose SQL does not parse, are not checked: their error already says enough.
    """
    if not candidate.ok or not candidate.sql:
        return []
    query = prepare(ctx, candidate)
    if query is None:
        return []
    findings: list[Finding] = []
    for name in switched_on(ctx, checks, known=tuple(CHECK_FUNCTIONS)):
        try:
            findings.extend(CHECK_FUNCTIONS[name](query))
        except (SqlglotError, KeyError, ValueError, TypeError) as exc:  # a check that cannot read a query skips it
            log.debug("sanity check %s skipped: %s", name, exc)
    if findings:
        ctx.trace.note("sanity", sql=candidate.sql, findings=[f.check for f in findings])
    return findings


#: Checks whose findings are warnings only, never a reason to ask the model again: on the training folds,
#: escalating on them turned 5 right answers wrong and no wrong one right (`auto`'s `advisory_checks`).
ADVISORY_CHECKS = ("row_loss", "type_trap")


def settled_findings(ctx: Context, candidate: Candidate, *,
                     advisory: tuple[str, ...] | list[str] = ADVISORY_CHECKS) -> list[Finding]:
    """The findings a preset decides on: every check's (result and question-shape) but the advisory ones."""
    return sanity_check(ctx, candidate, checks=tuple(c for c in CHECKS + shape.SHAPE_CHECKS if c not in advisory))


def settles(ctx: Context, candidate: Candidate, *, advisory: tuple[str, ...] | list[str] = ADVISORY_CHECKS) -> bool:
    """Whether a query may stand without another model call: it ran, returned rows, and no check but the
    advisory ones finds anything."""
    return bool(candidate.ok and candidate.result.row_count) and not settled_findings(ctx, candidate,
                                                                                      advisory=advisory)


def findings_hint(findings: list[Finding]) -> str:
    """The findings as one hint block for a repair prompt."""
    return "\n".join(f"- {f.hint}" for f in findings)


# ---- the checks -------------------------------------------------------------------------------------------


def check_fanout(q: QueryView) -> list[Finding]:
    """SUM/AVG over a column of table T while the join repeats some T rows: COUNT(*) > COUNT(DISTINCT T.key)."""
    if not q.select.args.get("joins"):
        return []
    findings = []
    seen: set[str] = set()
    for agg in own_nodes(q.select, exp.AggFunc):
        if not isinstance(agg, (exp.Sum, exp.Avg)) or isinstance(agg.this, exp.Distinct):
            continue
        columns = list(agg.find_all(exp.Column))
        tables = {c.table for c in columns if c.table in q.sources}
        if len(tables) != 1:
            continue
        alias = tables.pop()
        table = q.sources[alias]
        if alias in seen or len(table.primary_key) != 1:
            continue
        seen.add(alias)
        key = exp.column(table.primary_key[0], table=alias)
        probe = body(q.select, exp.Count(this=exp.Star()).as_("n"),
                      exp.Count(this=exp.Distinct(expressions=[key])).as_("k"))
        rows = q.probe(probe, "fanout")
        if not rows or rows[0][0] is None or rows[0][1] is None:
            continue
        joined, distinct = int(rows[0][0]), int(rows[0][1])
        if joined > distinct:
            name = agg.sql(dialect=q.ctx.db.dialect)
            findings.append(Finding(
                "fanout",
                f"{name} adds up some {table.name} rows more than once: the joins turn {distinct} {table.name} "
                f"rows into {joined}",
                f"The joins repeat rows of {table.name} ({distinct} distinct rows become {joined}), so {name} "
                f"double-counts. Aggregate {table.name} before joining, or join only tables with one row per "
                f"{table.name} row."))
    return findings


def check_row_loss(q: QueryView) -> list[Finding]:
    """The question asks about each/every/all X, the query groups by X over an inner join and loses some X."""
    select = q.select
    group = select.args.get("group")
    if (not _EVERY.search(q.ctx.question) or group is None or not inner_joins(select)
            or select.args.get("where") is not None or select.args.get("having") is not None
            or select.args.get("limit") is not None or q.candidate.result.truncated):
        return []
    keys = [k for k in group.expressions if isinstance(k, exp.Column) and k.table in q.sources]
    if len(keys) != 1:
        return []
    key = keys[0]
    table = q.sources[key.table]
    probe = exp.select(exp.Count(this=exp.Distinct(expressions=[exp.column(key.name)])).as_("n")).from_(
        exp.to_table(table.name))
    rows = q.probe(probe, "row_loss")
    if not rows or rows[0][0] is None:
        return []
    total, kept = int(rows[0][0]), q.candidate.result.row_count
    if kept >= total:
        return []
    return [Finding(
        "row_loss",
        f"the result has {kept} of the {total} {table.name}.{key.name} values: the inner join drops those "
        f"without a match",
        f"The question asks about every {table.name}, but the inner join drops {total - kept} of {total} "
        f"{table.name}.{key.name} values that have no matching row. Use a LEFT JOIN from {table.name} (and count "
        f"a column of the joined table) if those should appear with zero.")]


def check_null_trap(q: QueryView) -> list[Finding]:
    findings = []
    dialect = q.ctx.db.dialect
    for node in q.tree.find_all(exp.EQ, exp.NEQ):
        if isinstance(node.left, exp.Null) or isinstance(node.right, exp.Null):
            text = node.sql(dialect=dialect)
            findings.append(Finding("null_trap", f"`{text}` is never true: NULL equals nothing",
                                    f"`{text}` compares with NULL and is never true; write IS NULL / IS NOT NULL."))
    for node in q.tree.find_all(exp.Not):
        inner = node.this
        subquery = inner.args.get("query") if isinstance(inner, exp.In) else None
        select = subquery.this if isinstance(subquery, exp.Subquery) else subquery
        if not isinstance(select, exp.Select) or len(select.expressions) != 1 or select.args.get("group"):
            continue
        value = select.expressions[0].unalias()
        probe = body(select, exp.Count(this=exp.Star()))
        probe = probe.where(exp.Is(this=value.copy(), expression=exp.Null()))
        rows = q.probe(probe, "null_trap")
        if rows and rows[0][0]:
            findings.append(Finding(
                "null_trap",
                "NOT IN over a subquery that returns NULL matches no row at all",
                f"The NOT IN subquery returns NULL ({rows[0][0]} rows), which makes NOT IN match nothing. Add "
                f"`WHERE {value.sql(dialect=dialect)} IS NOT NULL` inside the subquery or use NOT EXISTS."))
    for agg in own_nodes(q.select, exp.Avg):
        column = agg.this if isinstance(agg.this, exp.Column) else None
        table = q.table_of(column) if column is not None else None
        profile = q.profile(table, column.name) if table is not None else None
        if profile is not None and profile.null_ratio >= NULL_HEAVY:
            findings.append(Finding(
                "null_trap",
                f"AVG({table.name}.{column.name}) ignores its NULLs ({profile.null_ratio:.0%} of the rows)",
                f"{table.name}.{column.name} is NULL in {profile.null_ratio:.0%} of rows and AVG skips them; if "
                f"NULL means zero here, average COALESCE({column.name}, 0)."))
    return findings


def check_type_trap(q: QueryView) -> list[Finding]:
    """Numbers or dates stored as text, compared, sorted or aggregated as text (known from the catalog)."""
    if q.ctx.catalog is None:
        return []
    findings = []
    seen = set()
    for column in _compared_columns(q.select):
        table = q.table_of(column)
        profile = q.profile(table, column.name) if table is not None else None
        if profile is None or (table.name, column.name) in seen:
            continue
        hidden = profile.hidden_type or ""
        if hidden.startswith("numeric-text"):
            seen.add((table.name, column.name))
            findings.append(Finding(
                "type_trap",
                f"{table.name}.{column.name} holds numbers as text: it is compared and sorted as text ('10' < '9')",
                f"{table.name}.{column.name} stores numbers as text; CAST it to a number before comparing, "
                f"sorting or taking MIN/MAX."))
        elif len(profile.time_formats) > 1:
            seen.add((table.name, column.name))
            formats = ", ".join(profile.time_formats[:3])
            findings.append(Finding(
                "type_trap",
                f"{table.name}.{column.name} holds dates as text in several formats ({formats}): text comparison "
                f"mixes them up",
                f"{table.name}.{column.name} stores dates as text in several formats ({formats}); comparing or "
                f"sorting the text does not order them by date."))
    return findings


def _compared_columns(select: exp.Select) -> Iterator[exp.Column]:
    """Columns used bare in an order comparison, ORDER BY, MIN/MAX or BETWEEN (not already CAST)."""
    for node in own_nodes(select, exp.Column):
        parent = node.parent
        if isinstance(parent, (exp.Ordered, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.Max, exp.Min)):
            yield node


def check_literal(q: QueryView) -> list[Finding]:
    """`col = 'text'` / `col IN ('text')` where no stored value equals the literal but a near spelling exists."""
    findings = []
    dialect = q.ctx.db.dialect
    for column, literal in _literal_filters(q.select):
        table = q.table_of(column)
        if table is None:
            continue
        ref = exp.column(column.name)
        exact = exp.select(exp.Literal.number(1)).from_(exp.to_table(table.name)).where(
            exp.EQ(this=ref.copy(), expression=exp.Literal.string(literal))).limit(1)
        rows = q.probe(exact, "literal")
        if rows is None or rows:
            continue
        near = _near_values(q, table, column.name, literal)
        if not near:
            continue
        shown = ", ".join(repr(v) for v in near)
        findings.append(Finding(
            "literal",
            f"no {table.name}.{column.name} equals {literal!r}; stored spellings close to it: {shown}",
            f"No value of {table.name}.{column.name} is exactly {literal!r}; the stored spelling is {shown}. "
            f"Use the stored value exactly (`{exp.column(column.name).sql(dialect=dialect)} = "
            f"{exp.Literal.string(str(near[0])).sql(dialect=dialect)}`)."))
    return findings


def _literal_filters(select: exp.Select) -> Iterator[tuple[exp.Column, str]]:
    where = select.args.get("where")
    if where is None:
        return
    for node in where.find_all(exp.EQ, exp.In):
        if isinstance(node, exp.EQ):
            pairs = [(node.left, node.right), (node.right, node.left)]
            for column, literal in pairs:
                if isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string:
                    yield column, literal.this
        elif isinstance(node.this, exp.Column) and not node.args.get("query"):
            for literal in node.expressions:
                if isinstance(literal, exp.Literal) and literal.is_string:
                    yield node.this, literal.this


def _near_values(q: QueryView, table: Table, column: str, literal: str) -> list:
    """Stored values of the column that equal the literal up to case and surrounding spaces, else the value
    index's close spellings in that column."""
    ref = exp.column(column)
    folded = exp.Lower(this=exp.Trim(this=exp.Cast(this=ref.copy(), to=exp.DataType.build("text"))))
    probe = (exp.select(ref.copy()).distinct().from_(exp.to_table(table.name))
             .where(exp.EQ(this=folded, expression=exp.Literal.string(literal.strip().lower()))).limit(3))
    rows = q.probe(probe, "literal")
    if rows:
        return [r[0] for r in rows]
    catalog = q.ctx.catalog
    if catalog is None or catalog.value_index is None:
        return []
    matches = catalog.value_index.lookup(literal, limit=5, min_score=85.0, tables=[table.name])
    values = [m.value for m in matches if m.column.lower() == column.lower() and m.value != literal]
    return values[:1] if len(values) == 1 else []  # only an unambiguous near spelling is worth a hint


def check_shape(q: QueryView) -> list[Finding]:
    """The question asks for one number ('how many …' with no 'each'/'per') but the result has many rows."""
    result = q.candidate.result
    question = q.ctx.question
    if not _ONE_NUMBER.search(question) or _GROUPING_WORDS.search(question) or result.row_count <= 1:
        return []
    return [Finding(
        "shape",
        f"the question asks for one number but the result has {result.row_count} rows",
        f"The question asks for a single number, but the query returns {result.row_count} rows; drop the GROUP "
        f"BY (or aggregate over the groups) so that it returns one row.")]


def check_ties(q: QueryView) -> list[Finding]:
    """ORDER BY … LIMIT 1 where the second row has the same ordering value as the first."""
    select = q.select
    limit = select.args.get("limit")
    order = select.args.get("order")
    if limit is None or order is None or select.args.get("offset") is not None:
        return []
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if not isinstance(count, exp.Literal) or str(count.this) != "1":
        return []
    aliases = {e.alias: e.this for e in select.expressions if isinstance(e, exp.Alias)}
    keys = []
    for index, ordered in enumerate(order.expressions):
        key = ordered.this
        if isinstance(key, exp.Column) and not key.table and key.name in aliases:
            key = aliases[key.name]
        keys.append(key.copy().as_(f"k{index}"))
    outputs = [e.copy() for e in select.expressions]
    probe = select.copy()
    probe.set("expressions", keys + outputs)  # distinct answers only: a join that repeats one row is no tie
    probe.set("distinct", exp.Distinct())
    probe.set("order", exp.Order(expressions=[_ordered(o, k) for o, k in zip(order.expressions, keys)]))
    probe.set("limit", exp.Limit(expression=exp.Literal.number(2)))
    rows = q.probe(probe, "ties")
    width = len(keys)
    if not rows or len(rows) < 2 or rows[0][:width] != rows[1][:width]:
        return []
    return [Finding(
        "ties",
        "LIMIT 1 picks one of several rows that tie on the ordering value",
        "Several rows tie for first place on the ORDER BY value, and LIMIT 1 keeps an arbitrary one; if the "
        "question wants all of them, compare with the maximum (or minimum) in a subquery instead of LIMIT 1.")]


def _ordered(ordered: exp.Ordered, key: exp.Alias) -> exp.Ordered:
    """`ordered` sorting by the aliased key's expression (the probe has no output alias to refer to)."""
    copy = ordered.copy()
    copy.set("this", key.this.copy())
    return copy


def check_null_columns(q: QueryView) -> list[Finding]:
    """An output column that is NULL in every returned row: usually a wrong column or a join that found nothing."""
    result = q.candidate.result
    if not result.rows:
        return []
    empty = [name for index, name in enumerate(result.columns) if all(row[index] is None for row in result.rows)]
    if not empty:
        return []
    names = ", ".join(empty)
    return [Finding(
        "null_columns",
        f"every returned value of {names} is NULL",
        f"The column(s) {names} are NULL in every row of the result: check that they are the right columns and "
        f"that an outer join or a subquery really finds the rows it should.")]


def check_duplicates(q: QueryView) -> list[Finding]:
    """Rows repeated in the result of a query without GROUP BY or DISTINCT: often a join that fans out."""
    result = q.candidate.result
    if result.row_count < 2 or q.select.args.get("distinct") or q.select.args.get("group"):
        return []
    repeated = result.row_count - len(set(map(tuple, result.rows)))
    if repeated <= 0:
        return []
    return [Finding(
        "duplicates",
        f"{repeated} of the {result.row_count} rows repeat other rows",
        f"{repeated} of the {result.row_count} result rows are exact repeats; if the question asks for distinct "
        f"items, use DISTINCT or fix the join that repeats them.")]


CHECK_FUNCTIONS: dict[str, Callable[[QueryView], list[Finding]]] = {
    "fanout": check_fanout, "row_loss": check_row_loss, "null_trap": check_null_trap,
    "type_trap": check_type_trap, "time_trap": check_time_trap, "literal": check_literal, "shape": check_shape,
    "ties": check_ties,
    "null_columns": check_null_columns, "duplicates": check_duplicates,
    **shape.SHAPE_FUNCTIONS,
}
