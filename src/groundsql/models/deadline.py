"""The total deadline of one model call: set once per `Model.complete`, read by every blocking step below it.

A contextvar carries the deadline so that the HTTP transport (every socket read and write) and the retry loop
see the same clock without passing it through the provider SDKs.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from groundsql.errors import ConfigError

#: Default total time for one model call (retries included) with an API model, in seconds.
DEFAULT_MODEL_TIMEOUT_S = 120.0
#: Default for the embedded model, which runs on the CPU: generation time of one call, in seconds.
DEFAULT_LOCAL_MODEL_TIMEOUT_S = 600.0
#: The largest deadline accepted (one day).
MAX_MODEL_TIMEOUT_S = 86_400.0
TIMEOUT_ENV = "GROUNDSQL_MODEL_TIMEOUT"

_DEADLINE: ContextVar[float | None] = ContextVar("groundsql_model_deadline", default=None)
_CANCELLED: ContextVar[Callable[[], bool] | None] = ContextVar("groundsql_run_cancelled", default=None)


def check_model_timeout(value: object, *, source: str = "model timeout") -> float:
    """`value` as a finite number of seconds in (0, MAX_MODEL_TIMEOUT_S], else a one-line `ConfigError`."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(f"{source} must be a number of seconds, got {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0 or seconds > MAX_MODEL_TIMEOUT_S:
        raise ConfigError(f"{source} must be a finite number of seconds above 0 and at most "
                          f"{MAX_MODEL_TIMEOUT_S:g}, got {value!r}")
    return seconds


def resolve_model_timeout(value: float | None, default: float) -> float:
    """The deadline to use: `value` when given, else GROUNDSQL_MODEL_TIMEOUT, else `default`."""
    if value is not None:
        return check_model_timeout(value)
    env = os.environ.get(TIMEOUT_ENV)
    if env:
        return check_model_timeout(env, source=TIMEOUT_ENV)
    return default


@contextmanager
def call_deadline(seconds: float) -> Iterator[float]:
    """Run the block under a deadline `seconds` from now (or the enclosing one, if that is sooner)."""
    deadline = time.monotonic() + seconds
    outer = _DEADLINE.get()
    if outer is not None:
        deadline = min(deadline, outer)
    token = _DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        _DEADLINE.reset(token)


def remaining_s() -> float | None:
    """Seconds left before the current call's deadline (may be negative), or None outside any call."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


@contextmanager
def cancel_check(is_cancelled: Callable[[], bool] | None) -> Iterator[None]:
    """Model calls in the block stop early (between generated tokens, where the runtime allows) once
    `is_cancelled()` is true: a run its caller cancelled or timed out does not finish a long generation first."""
    token = _CANCELLED.set(is_cancelled)
    try:
        yield
    finally:
        _CANCELLED.reset(token)


def cancelled() -> bool:
    """Whether the run the current model call belongs to has been cancelled."""
    check = _CANCELLED.get()
    return bool(check is not None and check())
