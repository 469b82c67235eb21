"""Profiling one table (ProSPy A.1): physical and semantic types, per-type statistics, samples, nested JSON.

Every query is templated with sqlglot and runs through `Database.execute`. A table is read with one
aggregate query over all its columns, one preview query, and one grouped query per dimension or text column.
"""

from __future__ import annotations

import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from groundsql.catalog import sql as q
from groundsql.catalog import types as T
from groundsql.catalog.nested import profile_json_values
from groundsql.catalog.profiles import VALUE_CHAR_LIMIT, ColumnProfile, TableProfile, ValueCount
from groundsql.catalog.schema import Column, Table
from groundsql.catalog.values import MAX_VALUE_LENGTH, MAX_VALUES_PER_COLUMN
from groundsql.db import Database
from groundsql.errors import DatabaseError

log = logging.getLogger("groundsql")


@dataclass(frozen=True)
class ProfileOptions:
    """Knobs of the profiler. Unknown keyword arguments are rejected (a typo fails loudly)."""

    sample_threshold: int = 500_000  # tables with more rows are profiled on a sample …
    sample_size: int = 200_000  # … of about this many rows
    top_k: int = 10
    sample_values: int = 3
    preview_rows: int = 200  # rows read for hidden-type detection and samples
    id_unique_ratio: float = 0.9
    dimension_unique_ratio: float = 0.5
    dimension_max_distinct: int = 1000
    dimension_max_length: int = 64
    index_values: bool = True
    max_index_values: int = MAX_VALUES_PER_COLUMN
    column_workers: int = 2  # concurrent per-column queries on sampled (large) tables


@dataclass
class TableScan:
    """What profiling a table produced: the profile, and the distinct values found for the value index."""

    profile: TableProfile
    index_values: dict[str, list[Any]]


def profile_table(db: Database, table: Table, options: ProfileOptions | None = None) -> TableScan:
    """Profile `table` through the guarded path. Failures of single queries are recorded, never raised."""
    options = options or ProfileOptions()
    started = time.perf_counter()
    profile = TableProfile(name=table.name, is_view=table.is_view, primary_key=list(table.primary_key),
                           foreign_keys=list(table.foreign_keys), description=table.comment,
                           description_source="comment" if table.comment else None)
    profile.columns = [_base_column(c) for c in table.columns]
    values: dict[str, list[Any]] = {}
    try:
        row_count = _scalar(db, q.count_rows(table.name, db.dialect))
        profile.row_count = int(row_count or 0)
    except DatabaseError as exc:
        profile.errors.append(f"row count: {exc}")
        profile.profile_seconds = time.perf_counter() - started
        return TableScan(profile, values)
    sampled = profile.row_count > options.sample_threshold
    source = q.row_source(table.name, db.dialect, profile.row_count, options.sample_size if sampled else None)
    profile.sampled = sampled
    rows_seen = profile.row_count
    aggregates = _aggregates(db, source, profile, sampled)
    if sampled:
        rows_seen = int(aggregates.pop("__rows__", 0) or 0) or options.sample_size
        profile.sample_size = rows_seen
    preview = _preview(db, source, profile, options.preview_rows)
    for column in profile.columns:
        _fill_statistics(column, aggregates.get(column.name, {}), rows_seen)
        _classify(column, preview.get(column.name, []), table, options, rows_seen)
    jobs = [c for c in profile.columns if _needs_values(c, options)]
    workers = options.column_workers if sampled and len(jobs) > 1 else 1

    def run(column: ColumnProfile) -> tuple[str, list[Any] | None]:
        return column.name, _column_values(db, source, column, rows_seen, options, profile.errors)

    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run, jobs))
    else:
        results = [run(c) for c in jobs]
    for name, found in results:
        if found:
            values[name] = found
    for column in profile.columns:
        _finish(db, source, column, preview.get(column.name, []), options, profile.errors)
    profile.profile_seconds = time.perf_counter() - started
    return TableScan(profile, values)


# -- queries -----------------------------------------------------------------------------------------


def _scalar(db: Database, sql: str) -> Any:
    result = db.execute(sql, max_rows=1)
    return result.rows[0][0] if result.rows else None


def _aggregates(db: Database, source: exp.Expression, profile: TableProfile, sampled: bool
                ) -> dict[str, dict[str, Any]]:
    """One pass over the rows: non-null and distinct counts, MIN/MAX, lengths, and moments of numbers."""
    projections: list[exp.Expression] = []
    keys: list[tuple[str, str]] = []
    if sampled:
        projections.append(exp.Count(this=exp.Star()).as_("n_rows"))
        keys.append(("__rows__", "rows"))
    for index, column in enumerate(profile.columns):
        ref = q.col(column.name)
        family = column.physical_type
        parts: list[tuple[str, exp.Expression]] = [
            ("non_null", exp.Count(this=ref.copy())),
            ("distinct", exp.Count(this=exp.Distinct(expressions=[ref.copy()]))),
        ]
        if family not in (T.SEMI_STRUCTURED, T.BINARY, T.GEOSPATIAL):
            parts += [("min", exp.Min(this=ref.copy())), ("max", exp.Max(this=ref.copy()))]
        if family in (T.STRING, T.SEMI_STRUCTURED):
            length = exp.Length(this=q.cast(ref.copy(), "text"))
            parts += [("min_len", exp.Min(this=length)), ("max_len", exp.Max(this=length.copy()))]
        if family in (T.INTEGER, T.FLOAT):
            number = q.cast(ref.copy(), "double")
            parts += [("avg", exp.Avg(this=number)),
                      ("avg_sq", exp.Avg(this=exp.Mul(this=number.copy(), expression=number.copy())))]
        for key, expression in parts:
            projections.append(expression.as_(f"c{index}_{key}"))
            keys.append((column.name, key))
    if not projections:
        return {}
    sql = q.select_from(source, *projections).sql(dialect=db.dialect)
    try:
        row = db.execute(sql, max_rows=1).rows[0]
    except DatabaseError as exc:
        if len(profile.columns) <= 1:
            profile.errors.append(f"statistics: {exc}")
            return {}
        log.debug("aggregate query over %s failed (%s); falling back to one query per column", profile.name, exc)
        return _aggregates_per_column(db, source, profile, sampled)
    found: dict[str, dict[str, Any]] = {}
    for (name, key), value in zip(keys, row):
        if name == "__rows__":
            found["__rows__"] = value  # type: ignore[assignment]
        else:
            found.setdefault(name, {})[key] = value
    return found


def _aggregates_per_column(db: Database, source: exp.Expression, profile: TableProfile, sampled: bool
                           ) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for column in profile.columns:
        single = TableProfile(name=profile.name, columns=[column])
        part = _aggregates(db, source, single, sampled)
        found.update(part)
        profile.errors.extend(single.errors)
    return found


def _preview(db: Database, source: exp.Expression, profile: TableProfile, limit: int) -> dict[str, list[Any]]:
    """Non-null values per column from the first `limit` rows (for hidden-type detection and samples)."""
    if not profile.columns or limit <= 0:
        return {}
    sql = q.select_from(source, exp.Star()).limit(limit).sql(dialect=db.dialect)
    try:
        result = db.execute(sql, max_rows=limit)
    except DatabaseError as exc:
        profile.errors.append(f"preview: {exc}")
        return {}
    by_position = {name: i for i, name in enumerate(result.columns)}
    preview: dict[str, list[Any]] = {}
    for column in profile.columns:
        position = by_position.get(column.name)
        if position is not None:
            preview[column.name] = [row[position] for row in result.rows if row[position] is not None]
    return preview


def _needs_values(column: ColumnProfile, options: ProfileOptions) -> bool:
    """Dimensions get top-k values; short text columns also feed the value index."""
    if column.semantic_type == T.DIMENSION:
        return True
    return options.index_values and _indexable(column)


def _indexable(column: ColumnProfile) -> bool:
    return (column.physical_type == T.STRING and column.hidden_type is None
            and (column.max_length or 0) <= MAX_VALUE_LENGTH and column.semantic_type != T.TIME)


def _column_values(db: Database, source: exp.Expression, column: ColumnProfile, rows_seen: int,
                   options: ProfileOptions, errors: list[str]) -> list[Any] | None:
    """Top-k with frequencies for dimensions; distinct values (bounded) for the value index."""
    ref = q.col(column.name)
    count = exp.Count(this=exp.Star())
    limit = options.max_index_values if _indexable(column) and options.index_values else options.top_k
    query = (q.select_from(source, ref.copy(), count.as_("n")).where(q.not_null(column.name))
             .group_by(ref.copy()).order_by(exp.Ordered(this=exp.column("n"), desc=True), ref.copy())
             .limit(limit))
    try:
        result = db.execute(query.sql(dialect=db.dialect), max_rows=limit)
    except DatabaseError as exc:
        errors.append(f"values of {column.name}: {exc}")
        return None
    non_null = max(1, rows_seen - column.null_count)
    if column.semantic_type == T.DIMENSION:
        column.top_values = [ValueCount(_bounded(v), int(n), round(int(n) / non_null, 4))
                             for v, n in result.rows[: options.top_k]]
    return [v for v, _ in result.rows] if _indexable(column) and options.index_values else None


# -- classification ------------------------------------------------------------------------------------


def _base_column(column: Column) -> ColumnProfile:
    family = T.physical_family(column.type)
    original = T.physical_family(column.source_type) if column.source_type is not None else None
    if original in (T.TEMPORAL, T.BOOLEAN):  # a copy's dates and flags stored as text or numbers: read as on
        family = original                   # the SQLite original, whose declared type decides them
    return ColumnProfile(
        name=column.name, declared_type=column.type, source_type=column.source_type, physical_type=family,
        nullable=column.nullable, primary_key=column.primary_key,
        description=column.description or column.comment,
        description_source="comment" if (column.comment and not column.description) else
        ("user" if column.description else None),
    )


def _fill_statistics(column: ColumnProfile, stats: dict[str, Any], rows: int) -> None:
    non_null = int(stats.get("non_null") or 0)
    column.null_count = max(0, rows - non_null)
    column.null_ratio = round(column.null_count / rows, 4) if rows else 0.0
    distinct = stats.get("distinct")
    column.distinct_count = int(distinct) if distinct is not None else None
    if column.distinct_count is not None and non_null:
        column.unique_ratio = round(column.distinct_count / non_null, 4)
    column.min, column.max = stats.get("min"), stats.get("max")
    column.min_length = _int_or_none(stats.get("min_len"))
    column.max_length = _int_or_none(stats.get("max_len"))
    avg, avg_sq = stats.get("avg"), stats.get("avg_sq")
    if avg is not None:
        column.avg = float(avg)
        if avg_sq is not None and non_null > 1:
            variance = max(0.0, float(avg_sq) - float(avg) ** 2) * non_null / (non_null - 1)
            column.stddev = math.sqrt(variance)


def _classify(column: ColumnProfile, preview: list[Any], table: Table, options: ProfileOptions,
              rows: int) -> None:
    """Refine the physical family from observed values, find hidden encodings, and pick the semantic type."""
    observed = {T.family_of_value(v) for v in preview} - {None}
    if column.physical_type == T.STRING and len(observed) == 1 and observed != {T.STRING}:
        column.physical_type = observed.pop()  # SQLite: untyped or loosely typed columns
    elif column.physical_type == T.STRING and observed == {T.INTEGER, T.FLOAT}:
        column.physical_type = T.FLOAT
    family = column.physical_type
    name = column.name
    non_null = rows - column.null_count
    unique = column.unique_ratio if column.unique_ratio is not None else 0.0
    single_pk = len(table.primary_key) == 1 and table.primary_key[0].lower() == name.lower()

    if family == T.STRING and preview and T.detect_json_text(preview):
        family = column.physical_type = T.SEMI_STRUCTURED
        column.hidden_type = "json"
    if family in (T.SEMI_STRUCTURED, T.BINARY, T.GEOSPATIAL):
        column.semantic_type = T.OTHER
        return
    if family == T.TEMPORAL:
        column.semantic_type = T.TIME
        return
    if single_pk or (T.has_id_token(name) and unique >= options.id_unique_ratio and non_null > 1):
        column.semantic_type = T.IDENTIFIER
        return
    if family == T.STRING:
        probe = [v for v in preview if isinstance(v, str)] + [v for v in (column.min, column.max) if isinstance(v, str)]
        found = T.detect_text_datetime(probe, name)
        if found and all(T.parse_with_any(v, found[0]) for v in (column.min, column.max) if isinstance(v, str)):
            column.semantic_type = T.TIME
            column.hidden_type = "text-datetime"
            column.time_formats = found[0]
            return
        numeric = T.detect_text_number(probe) if probe else None
        if numeric and not T.has_id_token(name):
            column.hidden_type = f"numeric-text:{numeric}"
    if family in (T.INTEGER, T.FLOAT) or (column.hidden_type or "").startswith("numeric-text"):
        integral = family in (T.INTEGER, T.FLOAT) or column.hidden_type == "numeric-text:integer"
        encoding = T.detect_integer_time(column.min, column.max, name) if integral else None
        if encoding:
            column.semantic_type = T.TIME
            if family == T.STRING:
                column.hidden_type = f"text-{encoding}"
            else:
                column.hidden_type = encoding if encoding.startswith("epoch") else f"integer-{encoding}"
            column.time_formats = [encoding]
            return
    if _is_reference_name(name) and family in (T.INTEGER, T.STRING):
        column.semantic_type = T.IDENTIFIER
        return
    distinct = column.distinct_count or 0
    if family == T.BOOLEAN or (0 < distinct <= 2 and T.detect_boolean(preview)):
        column.semantic_type = T.DIMENSION
        if family != T.BOOLEAN:
            column.hidden_type = "boolean"
        return
    categorical = (
        0 < distinct <= options.dimension_max_distinct
        and unique <= options.dimension_unique_ratio
        and (column.max_length or 0) <= options.dimension_max_length
    )
    numeric = family in (T.INTEGER, T.FLOAT) or (column.hidden_type or "").startswith("numeric-text")
    if numeric:
        few = distinct <= 20 and family != T.FLOAT
        column.semantic_type = T.DIMENSION if categorical and few and not T.has_metric_token(name) else T.METRIC
        return
    column.semantic_type = T.DIMENSION if categorical else T.OTHER


def _is_reference_name(name: str) -> bool:
    """Names like `customer_id`, `CustomerId`, `artist_fk`: a key column whether or not values repeat."""
    tokens = T.name_tokens(name)
    return len(tokens) >= 2 and tokens[-1] in ("id", "fk", "uuid", "guid", "key")


def _finish(db: Database, source: exp.Expression, column: ColumnProfile, preview: list[Any],
            options: ProfileOptions, errors: list[str]) -> None:
    """Type-specific summaries that need the semantic type: time ranges, boolean ratios, numeric text, JSON."""
    column.sample_values = _samples(preview, options.sample_values)
    if column.semantic_type == T.TIME:
        _time_range(column, preview)
    if column.hidden_type == "boolean" or column.physical_type == T.BOOLEAN:
        total = sum(v.count for v in column.top_values) or 0
        if total:
            trues = sum(v.count for v in column.top_values if T.is_true(v.value))
            column.true_ratio = round(trues / total, 4)
            column.false_ratio = round(1 - trues / total, 4)
    if (column.hidden_type or "").startswith("numeric-text"):
        _numeric_text_stats(db, source, column, errors)
    if column.hidden_type == "json" or column.physical_type == T.SEMI_STRUCTURED:
        column.nested = profile_json_values(preview, top_k=options.top_k)
    if column.semantic_type != T.METRIC and column.physical_type not in (T.INTEGER, T.FLOAT) \
            and not (column.hidden_type or "").startswith("numeric-text"):
        column.avg = column.stddev = None
    column.min, column.max = _bounded(column.min), _bounded(column.max)


def _time_range(column: ColumnProfile, preview: list[Any]) -> None:
    fmt = column.time_formats
    if any(f in T.YEARLESS_FORMATS for f in fmt):
        return  # '5 May' is a time, but without a year its range would be invented
    if fmt == ["%Y"]:  # years (possibly before year 1) stay plain numbers
        column.earliest, column.latest = (str(int(float(v))) if v is not None else None for v in (column.min, column.max))
        return
    candidates = [column.min, column.max] + list(preview)
    parsed = []
    for value in candidates:
        if value is None:
            continue
        if column.physical_type == T.TEMPORAL and isinstance(value, (int, float)):
            # SQLite lets a DATE column hold 20131021 or epoch seconds; decode like a hidden time.
            encoding = T.detect_integer_time(column.min, column.max, "date")
            decoded = T.integer_time_value(value, encoding) if encoding and encoding != "%Y" else None
            if decoded:
                parsed.append(decoded)
        elif column.physical_type == T.TEMPORAL:
            parsed.append(value)
        elif fmt and (fmt[0] in ("epoch_s", "epoch_ms") or fmt[0] == "%Y%m%d" and not isinstance(value, str)):
            decoded = T.integer_time_value(value, fmt[0]) if fmt else None
            if decoded:
                parsed.append(decoded)
        elif isinstance(value, str):
            decoded = T.parse_with_any(value, fmt)
            if decoded:
                parsed.append(decoded)
    try:
        if parsed:
            column.earliest = _iso(min(parsed))
            column.latest = _iso(max(parsed))
    except TypeError:  # mixed date and datetime objects
        column.earliest, column.latest = _iso(column.min), _iso(column.max)


def _numeric_text_stats(db: Database, source: exp.Expression, column: ColumnProfile, errors: list[str]) -> None:
    number = q.cast(q.col(column.name), "double")
    query = q.select_from(source, exp.Min(this=number), exp.Max(this=number.copy()), exp.Avg(this=number.copy()),
                          exp.Avg(this=exp.Mul(this=number.copy(), expression=number.copy())))
    try:
        row = db.execute(query.sql(dialect=db.dialect), max_rows=1).rows[0]
    except DatabaseError as exc:
        errors.append(f"numeric text {column.name}: {exc}")
        return
    low, high, avg, avg_sq = row
    column.min, column.max = low, high
    if avg is not None:
        column.avg = float(avg)
        if avg_sq is not None:
            column.stddev = math.sqrt(max(0.0, float(avg_sq) - float(avg) ** 2))


def _samples(values: list[Any], limit: int) -> list[Any]:
    seen: list[Any] = []
    for value in values:
        bounded = _bounded(value)
        if bounded not in seen:
            seen.append(bounded)
        if len(seen) >= limit:
            break
    return seen


def _bounded(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    if type(value).__name__ == "Decimal":
        return float(value)
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return text if len(text) <= VALUE_CHAR_LIMIT else text[: VALUE_CHAR_LIMIT - 1] + "…"


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None
