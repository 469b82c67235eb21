"""A result as the ecosystem's tables: pandas and polars DataFrames, Arrow tables.

Each column gets one kind (`column_kinds`): the engine's type where it reported one and the values agree with it,
else what the values are. Dates stay dates (an ISO text date in a SQLite column declared DATE included), decimals
stay exact, NULLs stay missing. The libraries are optional (``pip install 'groundsql[dataframes]'``) and imported
only when a conversion is asked for.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from dataclasses import dataclass
from typing import Any, Protocol

from groundsql.errors import ConfigError

INT, FLOAT, DECIMAL, BOOL, STRING, DATE, DATETIME, TIME, BYTES, NULL = (
    "int", "float", "decimal", "bool", "string", "date", "datetime", "time", "bytes", "null")

_DECIMAL_TYPE = re.compile(r"^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Result(Protocol):
    """What a conversion reads of a `groundsql.db.Result` (named here so that `db.result` may import this module)."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    types: list[str | None]


@dataclass(frozen=True)
class ColumnKind:
    """One column's kind; `precision`/`scale` for decimals (None: taken from the values)."""

    kind: str
    precision: int | None = None
    scale: int | None = None


def column_kinds(result: Result) -> list[ColumnKind]:
    """The kind of each column of `result`: the engine's type when the values agree with it, else the values'."""
    types = list(result.types or []) + [None] * len(result.columns)
    kinds = []
    for index in range(len(result.columns)):
        values = [row[index] for row in result.rows if row[index] is not None]
        declared = _kind_of_type(types[index])
        kinds.append(declared if declared is not None and _agrees(declared.kind, values) else _kind_of_values(values))
    return kinds


def column_values(result: Result, index: int, kind: ColumnKind) -> list[Any]:
    """The values of one column as Python objects of its kind (None for NULL)."""
    return [_convert(row[index], kind.kind) for row in result.rows]


def to_arrow(result: Result, metadata: dict[str, str] | None = None) -> Any:
    """A `pyarrow.Table` with one typed column per result column (`metadata` goes on its schema)."""
    pa = _need("pyarrow", "to_arrow")
    arrays, fields = [], []
    for index, (name, kind) in enumerate(zip(result.columns, column_kinds(result))):
        array = pa.array(column_values(result, index, kind), type=_arrow_type(pa, kind, result, index))
        arrays.append(array)
        fields.append(pa.field(name, array.type))
    schema = pa.schema(fields, metadata=metadata)
    return pa.Table.from_arrays(arrays, schema=schema)


def to_pandas(result: Result) -> Any:
    """A `pandas.DataFrame`: nullable integers, floats, booleans and strings, datetime64 dates and timestamps,
    `decimal.Decimal` objects for decimals (exact), None/NA for NULL."""
    pd = _need("pandas", "to_pandas")
    series = {}
    for index, kind in enumerate(column_kinds(result)):
        values = column_values(result, index, kind)
        series[index] = _pandas_series(pd, values, kind.kind)
    frame = pd.DataFrame(series, index=pd.RangeIndex(len(result.rows)))
    frame.columns = list(result.columns)
    return frame


def to_polars(result: Result) -> Any:
    """A `polars.DataFrame` with the columns' kinds (a repeated column name gets a ``_2``, ``_3``… suffix:
    polars needs unique names)."""
    pl = _need("polars", "to_polars")
    columns = []
    for index, (name, kind) in enumerate(zip(_unique(result.columns), column_kinds(result))):
        values = column_values(result, index, kind)
        columns.append(pl.Series(name, values, dtype=_polars_type(pl, kind, values), strict=False))
    return pl.DataFrame(columns)


# -- kinds ------------------------------------------------------------------------------------------------


def _kind_of_type(name: str | None) -> ColumnKind | None:
    if not name:
        return None
    upper = name.upper().strip()
    match = _DECIMAL_TYPE.match(upper)
    if match:
        return ColumnKind(DECIMAL, int(match.group(1)), int(match.group(2) or 0))
    base = upper.split("(")[0].strip()
    if base in {"DECIMAL", "NUMERIC"}:
        return ColumnKind(DECIMAL)
    if "BOOL" in base or base == "BIT":
        return ColumnKind(BOOL)
    if base == "DATE":
        return ColumnKind(DATE)
    if base.startswith(("TIMESTAMP", "DATETIME")):
        return ColumnKind(DATETIME)
    if base.startswith("TIME"):
        return ColumnKind(TIME)
    if "INT" in base or base == "YEAR":
        return ColumnKind(INT)
    if base in {"REAL", "FLOAT", "DOUBLE", "DOUBLE PRECISION", "FLOAT4", "FLOAT8"}:
        return ColumnKind(FLOAT)
    if any(word in base for word in ("CHAR", "TEXT", "STRING", "CLOB", "UUID", "JSON")):
        return ColumnKind(STRING)
    if any(word in base for word in ("BLOB", "BYTEA", "BINARY")):
        return ColumnKind(BYTES)
    return None


def _agrees(kind: str, values: list[Any]) -> bool:
    """Whether every value can be read as `kind` without guessing (a text date only as YYYY-MM-DD)."""
    checks = {
        INT: lambda v: isinstance(v, int) and not isinstance(v, bool),
        FLOAT: lambda v: isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool),
        DECIMAL: lambda v: isinstance(v, (decimal.Decimal, int)) and not isinstance(v, bool),
        BOOL: lambda v: isinstance(v, bool) or v in (0, 1),
        STRING: lambda v: isinstance(v, str),
        DATE: lambda v: (isinstance(v, dt.date) and not isinstance(v, dt.datetime))
        or (isinstance(v, str) and _iso_date(v) is not None),
        DATETIME: lambda v: isinstance(v, dt.datetime) or (isinstance(v, str) and _iso_datetime(v) is not None),
        TIME: lambda v: isinstance(v, dt.time),
        BYTES: lambda v: isinstance(v, (bytes, bytearray, memoryview)),
    }
    check = checks.get(kind)
    return check is not None and all(check(v) for v in values)


def _kind_of_values(values: list[Any]) -> ColumnKind:
    if not values:
        return ColumnKind(NULL)
    for kind in (BOOL, INT, DECIMAL, FLOAT, DATETIME, DATE, TIME, BYTES):
        if kind in (DATE, DATETIME) and any(isinstance(v, str) for v in values):
            continue  # text that looks like a date stays text unless the engine declared a date
        if kind == BOOL and not all(isinstance(v, bool) for v in values):
            continue
        if kind == DECIMAL and not any(isinstance(v, decimal.Decimal) for v in values):
            continue
        if _agrees(kind, values):
            return ColumnKind(kind)
    return ColumnKind(STRING)


def _convert(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == INT:
        return int(value)
    if kind == FLOAT:
        return float(value)
    if kind == DECIMAL:
        return value if isinstance(value, decimal.Decimal) else decimal.Decimal(value)
    if kind == BOOL:
        return bool(value)
    if kind == DATE:
        return _iso_date(value) if isinstance(value, str) else value
    if kind == DATETIME:
        return _iso_datetime(value) if isinstance(value, str) else value
    if kind == BYTES:
        return bytes(value)
    if kind in (TIME, NULL):
        return value
    return value if isinstance(value, str) else str(value)


def _iso_date(text: str) -> dt.date | None:
    if not _ISO_DATE.match(text.strip()):
        return None
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        return None


def _iso_datetime(text: str) -> dt.datetime | None:
    text = text.strip()
    if len(text) < 16 or not _ISO_DATE.match(text[:10]):
        return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def _decimal_shape(result: Result, index: int, kind: ColumnKind) -> tuple[int, int]:
    """(precision, scale) of a decimal column: the engine's, else the smallest that holds every value."""
    if kind.precision is not None:
        return kind.precision, kind.scale or 0
    scale = whole = 0
    for row in result.rows:
        value = row[index]
        if isinstance(value, decimal.Decimal) and value.is_finite():
            sign, digits, exponent = value.as_tuple()
            scale = max(scale, -exponent if isinstance(exponent, int) and exponent < 0 else 0)
            whole = max(whole, len(digits) + (exponent if isinstance(exponent, int) else 0))
        elif isinstance(value, int):
            whole = max(whole, len(str(abs(value))))
    return min(38, max(1, whole + scale)), min(scale, 38)


def _arrow_type(pa: Any, kind: ColumnKind, result: Result, index: int) -> Any:
    if kind.kind == DECIMAL:
        precision, scale = _decimal_shape(result, index, kind)
        return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
    if kind.kind == DATETIME:
        zones = {v.tzname() for v in (row[index] for row in result.rows) if isinstance(v, dt.datetime)}
        zone = next(iter(zones)) if len(zones) == 1 else None
        return pa.timestamp("us", tz="UTC" if zone == "UTC" else None) if zone in (None, "UTC") else None
    return {INT: pa.int64(), FLOAT: pa.float64(), BOOL: pa.bool_(), STRING: pa.string(), DATE: pa.date32(),
            TIME: pa.time64("us"), BYTES: pa.binary(), NULL: pa.null()}.get(kind.kind)


def _pandas_series(pd: Any, values: list[Any], kind: str) -> Any:
    if kind == INT:
        return pd.array(values, dtype="Int64")
    if kind == FLOAT:
        return pd.array(values, dtype="Float64")
    if kind == BOOL:
        return pd.array(values, dtype="boolean")
    if kind == STRING:
        return pd.array(values, dtype="string")
    if kind in (DATE, DATETIME):
        try:
            return pd.to_datetime(pd.Series(values, dtype=object))
        except (ValueError, TypeError):  # mixed time zones: keep the objects
            pass
    return pd.Series(values, dtype=object)


def _polars_type(pl: Any, kind: ColumnKind, values: list[Any]) -> Any:
    if kind.kind == DECIMAL:
        scales = [-v.as_tuple().exponent for v in values
                  if isinstance(v, decimal.Decimal) and isinstance(v.as_tuple().exponent, int)]
        scale = kind.scale if kind.scale is not None else max([0, *scales])
        return pl.Decimal(precision=kind.precision or 38, scale=scale)
    return {INT: pl.Int64, FLOAT: pl.Float64, BOOL: pl.Boolean, STRING: pl.String, DATE: pl.Date,
            DATETIME: pl.Datetime("us"), TIME: pl.Time, BYTES: pl.Binary, NULL: pl.Null}.get(kind.kind)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return unique


def _need(module: str, verb: str) -> Any:
    """Import an optional library, or say which extra brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"{verb}() needs {module}: pip install 'groundsql[dataframes]'") from None
