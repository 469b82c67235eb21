"""The documented bounds of the per-statement limits, checked wherever a limit enters (CLI, API, `execute`)."""

from __future__ import annotations

import math

from groundsql.errors import ConfigError

#: The longest statement time limit accepted, in seconds (one day).
MAX_TIMEOUT_S = 86_400.0
#: The largest row cap accepted.
MAX_ROWS_LIMIT = 10_000_000


def check_timeout(value: object, *, name: str = "timeout") -> float:
    """`value` as a finite number of seconds in (0, MAX_TIMEOUT_S], else a one-line `ConfigError`."""
    if isinstance(value, bool):
        raise ConfigError(f"{name} must be a number of seconds, got {value!r}")
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{name} must be a number of seconds, got {value!r}") from None
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT_S:
        raise ConfigError(f"{name} must be a finite number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, "
                          f"got {value!r}")
    return seconds


def check_max_rows(value: object, *, name: str = "row limit") -> int:
    """`value` as a whole number of rows in [1, MAX_ROWS_LIMIT], else a one-line `ConfigError`."""
    if isinstance(value, bool):
        raise ConfigError(f"{name} must be a whole number of rows, got {value!r}")
    if isinstance(value, float):
        if not value.is_integer():
            raise ConfigError(f"{name} must be a whole number of rows, got {value!r}")
    elif not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number of rows, got {value!r}")
    if not 1 <= value <= MAX_ROWS_LIMIT:
        raise ConfigError(f"{name} must be between 1 and {MAX_ROWS_LIMIT}, got {value!r}")
    return int(value)
