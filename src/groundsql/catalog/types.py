"""Type vocabulary of the catalog: physical type families, semantic types, and value-level detectors.

Everything here is pure Python over names and sampled values, so it can be tested without a database.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Iterable
from typing import Any

# -- physical families (ProSPy A.1: eight coarse families) -----------------------------------------

STRING = "string"
INTEGER = "integer"
FLOAT = "float"
TEMPORAL = "temporal"
BOOLEAN = "boolean"
BINARY = "binary"
SEMI_STRUCTURED = "semi-structured"
GEOSPATIAL = "geospatial"
PHYSICAL_FAMILIES = (STRING, INTEGER, FLOAT, TEMPORAL, BOOLEAN, BINARY, SEMI_STRUCTURED, GEOSPATIAL)

# -- semantic types ----------------------------------------------------------------------------------

IDENTIFIER = "identifier"
DIMENSION = "dimension"
METRIC = "metric"
TIME = "time"
OTHER = "other"
SEMANTIC_TYPES = (IDENTIFIER, DIMENSION, METRIC, TIME, OTHER)

# Order matters: the first family whose marker occurs in the declared type wins.
_FAMILY_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (STRING, ("LONGTEXT", "LONG VARCHAR")),  # MySQL/MariaDB: text, although "LONG" marks an integer below
    (BINARY, ("LONGBLOB", "LONG VARBINARY")),
    (GEOSPATIAL, ("GEOMETRY", "GEOGRAPHY", "POINT", "POLYGON", "LINESTRING")),
    (SEMI_STRUCTURED, ("JSON", "VARIANT", "STRUCT", "MAP(", "MAP<", "[]", "ARRAY", "LIST", "OBJECT", "UNION(")),
    (BOOLEAN, ("BOOL", "BIT")),
    (TEMPORAL, ("TIMESTAMP", "DATETIME", "DATE", "TIME", "INTERVAL", "YEAR")),
    (INTEGER, ("INT", "SERIAL", "LONG")),
    (FLOAT, ("REAL", "FLOA", "DOUB", "DEC", "NUM", "MONEY", "HUGEINT")),
    (BINARY, ("BLOB", "BINARY", "BYTEA", "BYTES", "VARBINARY")),
    (STRING, ("CHAR", "TEXT", "CLOB", "STRING", "UUID", "ENUM", "NAME")),
)

#: Name tokens that mark a column as a key or code (identifier detection).
ID_TOKENS = frozenset({"id", "ids", "uuid", "guid", "key", "pk", "fk", "code", "no", "nr", "sk",
                       "isbn", "ssn", "sku", "zip", "postcode", "phone", "email"})
#: Words that end in "id" without being keys (for glued names such as `customerid`).
_ID_LOOKALIKES = frozenset({"paid", "unpaid", "prepaid", "valid", "invalid", "fluid", "rapid", "humid", "liquid",
                            "squid", "solid", "avoid", "void", "hybrid", "pyramid", "david", "madrid", "android",
                            "acid", "lucid", "vivid", "timid", "rigid", "splendid", "stupid", "candid"})
#: Name tokens that make an integer column worth testing as a hidden time.
TIME_TOKENS = frozenset({"time", "date", "stamp", "timestamp", "ts", "epoch", "created", "updated", "modified",
                         "year", "yr", "day", "dt", "datetime", "at", "when", "month"})
#: Name tokens of quantities that stay metrics even with few distinct values.
METRIC_TOKENS = frozenset({"amount", "price", "cost", "total", "sum", "count", "qty", "quantity", "revenue",
                           "salary", "population", "age", "weight", "height", "length", "width", "size",
                           "budget", "sales", "profit", "balance", "fee", "rate", "percentage", "percent",
                           "ratio", "avg", "average", "score", "points", "area", "distance", "duration",
                           "capacity", "gnp", "income", "tax", "value", "volume", "speed", "km", "kg"})

#: Datetime formats tried on text columns, most specific first. (format, granularity)
DATETIME_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S", "%d/%m/%Y",
    "%m/%d/%Y", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M", "%d-%m-%Y", "%m-%d-%Y", "%d.%m.%Y", "%Y%m%d",
    "%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%b %d %Y", "%B %Y", "%b %Y", "%Y-%m", "%d %B", "%d %b",
    "%B %d", "%H:%M:%S", "%H:%M",
)
#: Formats without a year: the column is a time, but its range cannot be stated.
YEARLESS_FORMATS = frozenset({"%d %B", "%d %b", "%B %d", "%H:%M:%S", "%H:%M"})
#: Formats that only count when the column name also says "time" (too many false positives otherwise).
NAME_GATED_FORMATS = frozenset({"%Y%m%d", "%Y-%m", "%H:%M", "%d %B", "%d %b", "%B %d"})

_TRUE = frozenset({"true", "t", "yes", "y", "1"})
_FALSE = frozenset({"false", "f", "no", "n", "0"})

# Plausible ranges for integers that encode a time.
_EPOCH_S = (315_532_800, 4_102_444_800)  # 1980 .. 2100
_EPOCH_MS = (_EPOCH_S[0] * 1000, _EPOCH_S[1] * 1000)
_YYYYMMDD = (19_000_101, 21_001_231)
_YEAR = (1000, 2200)


def physical_family(declared: str) -> str:
    """The coarse family of a declared SQL type; STRING when the type says nothing (SQLite)."""
    upper = (declared or "").upper()
    if not upper:
        return STRING
    for family, markers in _FAMILY_MARKERS:
        if any(marker in upper for marker in markers):
            return family
    return STRING


def family_of_value(value: Any) -> str | None:
    """The family of one Python value fetched from a driver; None for NULL."""
    if value is None:
        return None
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return TEMPORAL
    if isinstance(value, (bytes, bytearray, memoryview)):
        return BINARY
    if isinstance(value, (dict, list)):
        return SEMI_STRUCTURED
    if type(value).__name__ == "Decimal":
        return FLOAT
    return STRING


def name_tokens(name: str) -> list[str]:
    """Lower-case tokens of a column or table name: `CountryCode` → [country, code], `first_name` → [first, name]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


def has_id_token(name: str) -> bool:
    tokens = name_tokens(name)
    lowered = name.lower()
    glued = lowered.endswith("id") and len(lowered) > 4 and lowered.isalnum() and lowered not in _ID_LOOKALIKES
    return bool(ID_TOKENS.intersection(tokens)) or glued


def has_time_token(name: str) -> bool:
    return bool(TIME_TOKENS.intersection(name_tokens(name)))


def has_metric_token(name: str) -> bool:
    return bool(METRIC_TOKENS.intersection(name_tokens(name)))


def parse_datetime(text: str, fmt: str) -> dt.datetime | None:
    try:
        return dt.datetime.strptime(text.strip(), fmt)
    except (ValueError, TypeError):
        return None


def detect_text_datetime(values: Iterable[str], name: str = "", *, min_coverage: float = 0.95
                         ) -> tuple[list[str], float] | None:
    """Datetime formats that explain sampled text values.

    Returns (formats, coverage) when one format — or, for mixed columns, a few formats together — parse at least
    `min_coverage` of the values; None otherwise. Formats are tried in dictionary order, so among formats that
    parse equally many values the more specific (and ISO) one wins; `%d/%m/%Y` precedes `%m/%d/%Y`.
    """
    texts = [v.strip() for v in values if isinstance(v, str) and v.strip()]
    if not texts:
        return None
    timed = has_time_token(name)
    candidates = [f for f in DATETIME_FORMATS if timed or f not in NAME_GATED_FORMATS]
    parsed_by: dict[str, set[int]] = {}
    for fmt in candidates:
        hits = {i for i, t in enumerate(texts) if parse_datetime(t, fmt) is not None}
        if hits:
            parsed_by[fmt] = hits
    if not parsed_by:
        return None
    best = max(parsed_by, key=lambda f: (len(parsed_by[f]), -candidates.index(f)))
    coverage = len(parsed_by[best]) / len(texts)
    if coverage >= min_coverage:
        return [best], coverage
    chosen, covered = [best], set(parsed_by[best])
    for fmt in sorted(parsed_by, key=lambda f: -len(parsed_by[f] - covered)):
        if len(chosen) >= 3 or len(covered) / len(texts) >= min_coverage:
            break
        gain = parsed_by[fmt] - covered
        if gain:
            chosen.append(fmt)
            covered |= gain
    coverage = len(covered) / len(texts)
    return (chosen, coverage) if coverage >= min_coverage else None


def parse_with_any(text: str, formats: list[str]) -> dt.datetime | None:
    for fmt in formats:
        value = parse_datetime(text, fmt)
        if value is not None:
            return value
    return None


def detect_integer_time(low: Any, high: Any, name: str) -> str | None:
    """The encoding of an integer column that holds times ('epoch_s', 'epoch_ms', '%Y%m%d', '%Y'), if any.

    Only columns whose name carries a time token are tested; MIN and MAX must both fall in a plausible range.
    """
    if not has_time_token(name) or not _is_number(low) or not _is_number(high):
        return None
    lo, hi = float(low), float(high)
    if lo != int(lo) or hi != int(hi):
        return None
    if _YEAR[0] <= lo <= hi <= _YEAR[1] or ("year" in name_tokens(name) and lo >= -9999 and _YEAR[0] <= hi <= _YEAR[1]):
        return "%Y"
    if _YYYYMMDD[0] <= lo <= hi <= _YYYYMMDD[1] and parse_datetime(str(int(lo)), "%Y%m%d") \
            and parse_datetime(str(int(hi)), "%Y%m%d"):
        return "%Y%m%d"
    if _EPOCH_S[0] <= lo <= hi <= _EPOCH_S[1]:
        return "epoch_s"
    if _EPOCH_MS[0] <= lo <= hi <= _EPOCH_MS[1]:
        return "epoch_ms"
    return None


def integer_time_value(value: Any, encoding: str) -> dt.datetime | None:
    """Decode one integer with the encoding found by `detect_integer_time`."""
    if not _is_number(value):
        return None
    number = int(value)
    if encoding == "epoch_s":
        return dt.datetime.fromtimestamp(number, tz=dt.timezone.utc).replace(tzinfo=None)
    if encoding == "epoch_ms":
        return dt.datetime.fromtimestamp(number / 1000, tz=dt.timezone.utc).replace(tzinfo=None)
    return parse_datetime(str(number), encoding)


def detect_text_number(values: Iterable[Any]) -> str | None:
    """INTEGER or FLOAT when every sampled text value casts to a number; None otherwise."""
    seen = False
    integral = True
    for value in values:
        if value is None:
            continue
        text = str(value).strip().replace(",", "") if isinstance(value, str) else value
        if isinstance(text, str):
            if not text:
                continue
            try:
                number = float(text)
            except ValueError:
                return None
            if not math.isfinite(number):
                return None
            integral = integral and re.fullmatch(r"[+-]?\d+", text) is not None
        seen = True
    if not seen:
        return None
    return INTEGER if integral else FLOAT


def detect_boolean(values: Iterable[Any]) -> bool:
    """True when the distinct values are a two-valued true/false vocabulary (T/F, Y/N, yes/no, 0/1)."""
    lowered = {str(v).strip().lower() for v in values if v is not None}
    if not lowered or len(lowered) > 2:
        return False
    return lowered <= (_TRUE | _FALSE) and bool(lowered & _TRUE or lowered & _FALSE) and any(
        lowered <= {a, b} for a, b in (("true", "false"), ("t", "f"), ("yes", "no"), ("y", "n"), ("1", "0"))
    )


def is_true(value: Any) -> bool:
    return str(value).strip().lower() in _TRUE


def detect_json_text(values: Iterable[Any]) -> bool:
    """True when every sampled text value is a JSON object or array."""
    seen = False
    for value in values:
        if value is None:
            continue
        if isinstance(value, (dict, list)):
            seen = True
            continue
        text = str(value).strip()
        if not text or text[0] not in "{[":
            return False
        try:
            json.loads(text)
        except ValueError:
            return False
        seen = True
    return seen


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False
