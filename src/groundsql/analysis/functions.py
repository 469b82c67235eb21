"""The functions a view expression may call, per target dialect: a small allow-list, refused otherwise.

Typed sqlglot functions that transpile to every engine are allowed everywhere; a few engine-specific functions
are allowed only where the engine has them. (The statement guard in `db/` keeps its own deny-list; this list
only bounds what a view may say, so that a view compiles to the same meaning on every engine.)
"""

from __future__ import annotations

from functools import cache

from sqlglot import exp

#: sqlglot function classes allowed in every dialect (scalar functions; aggregates come from metrics).
_COMMON = (
    "Abs", "Round", "Ceil", "Floor", "Sqrt", "Pow", "Ln", "Exp", "Sign", "Lower", "Upper", "Trim", "Length",
    "Substring", "Concat", "Coalesce", "Nullif", "Cast", "TryCast", "Case", "If", "Year", "Month", "Day",
    "Replace", "Greatest", "Least", "Mod", "SafeDivide", "DateDiff",
)
#: Classes to refuse for one dialect although they are common elsewhere (sqlglot cannot render them there).
_EXCLUDED: dict[str, tuple[str, ...]] = {
    "sqlite": ("Greatest", "Least", "TryCast", "SafeDivide"),
    "mysql": ("TryCast", "SafeDivide"),
    "postgres": ("SafeDivide",),
    "spark": (),
    "duckdb": (),
}
#: Engine-specific classes and function names (lower case) allowed only on that engine.
_EXTRA: dict[str, tuple[str, ...]] = {
    "sqlite": ("strftime", "date", "julianday", "TimeToStr", "TsOrDsToDate", "Date"),
    "duckdb": ("DateTrunc", "TimestampTrunc", "TimeToStr", "Date", "DateDiff", "date_part", "strftime"),
    "postgres": ("DateTrunc", "TimestampTrunc", "TimeToStr", "Date", "ToChar", "date_part", "Extract"),
    "mysql": ("TimeToStr", "Date", "DateDiff", "date_format", "Extract"),
    "spark": ("DateTrunc", "TimestampTrunc", "TimeToStr", "Date", "DateDiff", "date_format", "Extract"),
}
#: Aggregate classes a metric may produce (and a HAVING clause may mention).
AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)


def _classes(names: tuple[str, ...]) -> set[type]:
    return {cls for cls in (getattr(exp, name, None) for name in names) if isinstance(cls, type)}


def allowed(node: exp.Func, dialect: str) -> bool:
    """Whether a view expression may call this function when compiled for `dialect`."""
    extra = _EXTRA.get(dialect, ())
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in {name.lower() for name in extra}
    excluded = _classes(_EXCLUDED.get(dialect, ()))
    permitted = (_classes(_COMMON) - excluded) | _classes(extra)
    return type(node) in permitted


def function_name(node: exp.Func) -> str:
    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()


@cache
def allowed_names(dialect: str) -> tuple[str, ...]:
    """The allowed function names for `dialect`, as a model or a person would write them."""
    return tuple(name for name in _SPELLINGS if _parses_allowed(name, dialect))


_SPELLINGS = ("abs", "round", "ceil", "floor", "sqrt", "power", "ln", "exp", "sign", "mod", "lower", "upper",
              "trim", "length", "substring", "replace", "concat", "coalesce", "nullif", "greatest", "least",
              "cast", "case", "year", "month", "day", "date", "datediff", "date_trunc", "strftime", "julianday",
              "to_char", "date_format", "date_part", "extract")


def _parses_allowed(name: str, dialect: str) -> bool:
    import sqlglot

    probes = {"cast": "CAST(x AS INT)", "case": "CASE WHEN x THEN 1 END", "extract": "EXTRACT(YEAR FROM x)",
              "date_trunc": "DATE_TRUNC('month', x)", "strftime": "STRFTIME('%Y', x)",
              "to_char": "TO_CHAR(x, 'YYYY')", "date_format": "DATE_FORMAT(x, '%Y')",
              "date_part": "DATE_PART('year', x)", "datediff": "DATEDIFF(x, y)", "substring": "SUBSTRING(x, 1, 2)",
              "replace": "REPLACE(x, 'a', 'b')", "round": "ROUND(x, 2)", "power": "POWER(x, 2)", "mod": "MOD(x, 2)",
              "nullif": "NULLIF(x, 0)", "coalesce": "COALESCE(x, 0)", "greatest": "GREATEST(x, y)",
              "least": "LEAST(x, y)", "concat": "CONCAT(x, y)"}
    try:
        node = sqlglot.parse_one(probes.get(name, f"{name}(x)"))
    except Exception:
        return False
    return isinstance(node, exp.Func) and allowed(node, dialect)
