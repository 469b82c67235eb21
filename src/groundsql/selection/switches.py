"""Which exact checks a run leaves on (`checks_off`), shared by the sanity and the question-shape checks."""

from __future__ import annotations

from groundsql.context import Context
from groundsql.errors import ConfigError
from groundsql.selection.options import CheckOptions


def switched_on(ctx: Context, names: tuple[str, ...], *, known: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`names` less the checks the run switched off; a switched-off name outside `known` (when given) is refused."""
    off = ctx.settings(CheckOptions).checks_off
    if not off:
        return names
    unknown = sorted(set(off) - set(known)) if known else []
    if unknown:
        raise ConfigError(f"checks_off: unknown check {', '.join(unknown)}; known: {', '.join(known)}")
    return tuple(n for n in names if n not in off)
