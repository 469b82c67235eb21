"""Limits: the per-statement time limit and row cap (checked wherever a limit enters: CLI, API, `execute`) and
the resource bounds the engine holds on every guarded connection (documented in docs/security.md)."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from groundsql.errors import ConfigError


class EngineLimits(BaseModel):
    """Memory and size bounds the engine enforces, so one statement cannot exhaust the machine."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int = Field(2048, gt=0, description="DuckDB memory_limit for the whole database, in MiB.")
    threads: int = Field(4, gt=0, description="DuckDB worker threads.")
    max_value_mb: int = Field(64, gt=0, description="Largest string or blob one SQLite value may hold, in MiB.")
    work_mem_mb: int = Field(64, gt=0, description="PostgreSQL work_mem per sort or hash, in MiB.")
    temp_file_mb: int = Field(1024, gt=0, description="PostgreSQL temp_file_limit per statement, in MiB "
                                                       "(applied where the account may set it).")
    tmp_table_mb: int = Field(64, gt=0, description="MariaDB/MySQL in-memory temporary table size, in MiB.")


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
