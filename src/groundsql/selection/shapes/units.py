"""``units``: a number the question states in one unit ('longer than 5 minutes', 'over 2 MB') compared with a
column whose name says another unit (milliseconds, seconds, bytes, cents), without the conversion (or with a
wrong one). Rewrite: the number converted to the column's unit."""

from __future__ import annotations

import re

from sqlglot import exp

from groundsql.selection.query_view import Finding, QueryView
from groundsql.selection.shapes.common import name_tokens

NAME = "units"
#: A unit as the question says it → (quantity, factor to the quantity's base unit).
_SPOKEN = {
    "millisecond": ("time", 0.001), "ms": ("time", 0.001), "second": ("time", 1.0), "sec": ("time", 1.0),
    "minute": ("time", 60.0), "min": ("time", 60.0), "hour": ("time", 3600.0), "hr": ("time", 3600.0),
    "day": ("time", 86400.0),
    "byte": ("size", 1.0), "kb": ("size", 1024.0), "kilobyte": ("size", 1024.0), "mb": ("size", 1024.0 ** 2),
    "megabyte": ("size", 1024.0 ** 2), "gb": ("size", 1024.0 ** 3), "gigabyte": ("size", 1024.0 ** 3),
    "cent": ("money", 0.01), "dollar": ("money", 1.0),
}
#: A unit as a column name says it (its words, singular) → (quantity, factor).
_NAMED = {
    "millisecond": ("time", 0.001), "ms": ("time", 0.001), "millis": ("time", 0.001), "second": ("time", 1.0),
    "sec": ("time", 1.0), "minute": ("time", 60.0), "hour": ("time", 3600.0),
    "byte": ("size", 1.0), "kb": ("size", 1024.0), "mb": ("size", 1024.0 ** 2),
    "cent": ("money", 0.01),
}
_STATED = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*(milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|"
                     r"bytes?|kb|kilobytes?|mb|megabytes?|gb|gigabytes?|cents?|dollars?)\b", re.IGNORECASE)


def check(q: QueryView) -> list[Finding]:
    stated = [(float(m.group(1)), _unit(m.group(2))) for m in _STATED.finditer(q.ctx.question)]
    stated = [(n, u) for n, u in stated if u is not None]
    if not stated:
        return []
    rewrite = q.select.copy()
    notes = []
    for node in rewrite.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ):
        column, number = node.this, node.expression
        if not isinstance(column, exp.Column) or not isinstance(number, exp.Literal) or number.is_string:
            continue
        unit = _column_unit(column.name)
        if unit is None:
            continue
        quantity, factor = unit
        for amount, (spoken_quantity, spoken_factor) in stated:
            if spoken_quantity != quantity or spoken_factor == factor:
                continue
            wanted = amount * spoken_factor / factor
            value = float(number.this)
            if value == wanted:
                break
            if value != amount and not _off_by_power_of_ten(value, amount) \
                    and not _off_by_power_of_ten(value, wanted):
                continue
            shown = int(wanted) if wanted == int(wanted) else round(wanted, 6)
            notes.append(f"{column.name} {number.this} → {shown}")
            number.replace(exp.Literal.number(shown))
            break
    if not notes:
        return []
    sql = rewrite.sql(dialect=q.ctx.db.dialect)
    return [Finding(
        NAME, f"a number the question states in another unit is compared without conversion ({'; '.join(notes)})",
        f"The column's name gives its unit; convert the question's number to it ({'; '.join(notes)}).",
        rewrite=sql)]


def _unit(word: str) -> tuple[str, float] | None:
    word = word.lower()
    return _SPOKEN.get(word) or _SPOKEN.get(word.rstrip("s"))


def _column_unit(name: str) -> tuple[str, float] | None:
    for word in reversed(name_tokens(name)):
        if word in _NAMED:
            return _NAMED[word]
    return None


def _off_by_power_of_ten(value: float, wanted: float) -> bool:
    if value <= 0 or wanted <= 0:
        return False
    ratio = max(value, wanted) / min(value, wanted)
    return any(abs(ratio - 10 ** k) < 1e-9 * ratio for k in range(1, 7))
