"""SQLite date functions no other engine has, written with the target's own: JULIANDAY(x) becomes the Julian
day number computed from the engine's epoch seconds (x's seconds since 1970 / 86400 + 2440587.5), so
differences of days (`julianday(a) - julianday(b)`, the usual use) come out as in SQLite. STRFTIME, DATE and
DATETIME are carried by sqlglot's own transpilation. Used on a tree read as SQLite (`dialect.transpile_dialect`,
`sql.sqlite_flavour`)."""

from __future__ import annotations

from sqlglot import exp

#: Julian day number of 1970-01-01 00:00 UTC.
UNIX_EPOCH_JULIAN_DAY = 2440587.5


def julianday_to_epoch_days(tree: exp.Expression, dialect: str) -> list[str]:
    """Rewrite every JULIANDAY(x) of a SQLite tree for `dialect` in place; returns what changed, in words."""
    changes = []
    for call in list(tree.find_all(exp.Anonymous)):
        if call.name.lower() != "julianday" or len(call.expressions) != 1:
            continue
        argument = call.expressions[0].copy()
        if isinstance(argument, exp.Literal) and argument.is_string and argument.this.lower() == "now":
            moment: exp.Expression = exp.CurrentTimestamp()
        else:
            moment = exp.cast(argument, "timestamp")
        seconds = (exp.Anonymous(this="UNIX_TIMESTAMP", expressions=[moment]) if dialect == "mysql"
                   else exp.TimeToUnix(this=moment))
        days = exp.Paren(this=exp.Add(this=exp.Div(this=seconds, expression=exp.Literal.number("86400.0")),
                                      expression=exp.Literal.number(str(UNIX_EPOCH_JULIAN_DAY))))
        changes.append(f"{call.sql(dialect='sqlite')} → days since the Julian epoch")
        call.replace(days)
    return changes
