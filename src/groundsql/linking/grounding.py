"""Literal grounding: values named in the question or evidence keep the columns that store them.

Looks the question's literals up in the catalog's value index; the matching columns are added to the subset
with the stored spellings as evidence (e.g. 'France' → singer.Country stores 'France'). Without a catalog a
small index of the candidate tables' text columns is read once per context through the guarded path.
"""

from __future__ import annotations

import logging

from groundsql.catalog.values import ValueIndex, ValueMatch
from groundsql.context import Context
from groundsql.linking.common import catalog_of
from groundsql.linking.options import LinkOptions
from groundsql.linking.subset import SchemaSubset

log = logging.getLogger("groundsql")

MIN_SCORE = 90.0
MAX_MATCHES = 12
SHORT_VALUE = 3  # stored values this short must match the question's spelling exactly
FALLBACK_VALUES = 200  # distinct values read per text column when no catalog is available
_TEXT_TYPES = ("CHAR", "TEXT", "STRING", "CLOB", "VARCHAR")


def ground_literals(ctx: Context, subset: SchemaSubset, within: SchemaSubset | None = None) -> SchemaSubset:
    """Add value-bearing columns for the question's literals.

    Columns of tables already in `subset` are added for any match at or above the score floor; a table outside
    the subset (but inside `within`, the stage's input) is added only for an exact match of a value stored in
    at most `ground_max_owners` (2) tables. Disabled with the option `link_ground=false`.
    """
    options = ctx.settings(LinkOptions)
    if not options.link_ground:
        return subset
    matches = [m for m in question_matches(ctx)
               if (within is None or within.has(m.table)) and plausible_literal(m)]
    owners: dict[str, set[str]] = {}
    for match in matches:
        owners.setdefault(match.value.strip().lower(), set()).add(match.table)
    max_owners = options.ground_max_owners
    grounded = []
    for match in matches:
        if not subset.has(match.table) and (
                not match.exact or len(owners[match.value.strip().lower()]) > max_owners):
            continue  # a new table only for an exact value that few tables store (large schemas repeat values)
        role = "" if subset.has(match.table) else "filter"
        subset.add(match.table, match.column, role=role, reason=f"stores the value {match.value!r}",
                   evidence=[f"stored value {match.value!r} matches {match.text!r}"])
        grounded.append(f"{match.table}.{match.column}={match.value!r}")
    if grounded:
        subset.notes.append("grounded literals: " + ", ".join(grounded))
    return subset


def plausible_literal(match: ValueMatch) -> bool:
    """False for a short stored code that only matches an ordinary word when case is ignored.

    Codes such as the airport 'AGE' or 'ALL' equal everyday words of a question ("age", "all"); a value of
    `SHORT_VALUE` characters or fewer counts only when the question spells it with the same case.
    """
    value = match.value.strip()
    return len(value) > SHORT_VALUE or match.text.strip() == value


def question_matches(ctx: Context) -> list[ValueMatch]:
    """Value-index matches for the question and evidence, computed once per context."""
    if ctx.cache.literal_matches is None:
        index = value_index(ctx)
        text = ctx.question + (f" {ctx.evidence}" if ctx.evidence else "")
        ctx.cache.literal_matches = index.lookup_question(text, limit=MAX_MATCHES, min_score=MIN_SCORE) if len(
            index) else []
        ctx.trace.note("link.literals", matches=[
            {"table": m.table, "column": m.column, "value": m.value, "text": m.text, "score": m.score}
            for m in ctx.cache.literal_matches])
    return ctx.cache.literal_matches


def value_index(ctx: Context) -> ValueIndex:
    catalog = catalog_of(ctx)
    index = getattr(catalog, "value_index", None)
    if isinstance(index, ValueIndex):
        return index
    if ctx.cache.fallback_value_index is None:
        ctx.cache.fallback_value_index = _read_index(ctx)
    return ctx.cache.fallback_value_index


def _read_index(ctx: Context) -> ValueIndex:
    """The distinct values of text columns, read through `ctx.query` (only when no catalog is given)."""
    from sqlglot import exp

    index = ValueIndex()
    limit = ctx.settings(LinkOptions).ground_max_tables
    for table in ctx.schema.tables[:limit]:
        for column in table.columns:
            if not any(t in (column.type or "TEXT").upper() for t in _TEXT_TYPES):
                continue
            sql = (exp.select(exp.column(column.name, quoted=True)).distinct()
                   .from_(exp.table_(exp.to_identifier(table.name, quoted=True)))
                   .limit(FALLBACK_VALUES).sql(dialect=ctx.db.dialect))
            result, error = ctx.try_query(sql, step="link.values", max_rows=FALLBACK_VALUES)
            if result is not None:
                index.add(table.name, column.name, [row[0] for row in result.rows])
            else:
                log.debug("no values for %s.%s: %s", table.name, column.name, error)
    return index
