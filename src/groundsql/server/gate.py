"""The model's front door: a fixed number of asks run at once, a bounded number wait, the rest are refused."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from groundsql.errors import GroundsqlError, RunInterrupted


class QueueFull(GroundsqlError):
    """Every model slot is busy and the waiting queue is full; retry after `retry_after_s`."""

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class RunCancelled(RunInterrupted):
    """The run was cancelled: its client went away, its time ran out, or the server is shutting down."""


class Ticket:
    """A place in the queue; released exactly once when its run ends (or never starts)."""

    def __init__(self, gate: ModelGate):
        self._gate = gate
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._gate._leave()


class ModelGate:
    """`admit` answers at once (a ticket, or `QueueFull`); `slot` then waits for one of `concurrency` slots."""

    def __init__(self, concurrency: int, queue_size: int):
        if concurrency < 1 or queue_size < 0:
            raise ValueError("concurrency must be at least 1 and queue_size at least 0")
        self.concurrency = concurrency
        self.capacity = concurrency + queue_size
        self._slots = threading.Semaphore(concurrency)
        self._lock = threading.Lock()
        self._admitted = 0
        self._mean_s = 5.0

    @property
    def admitted(self) -> int:
        with self._lock:
            return self._admitted

    def admit(self) -> Ticket:
        with self._lock:
            if self._admitted >= self.capacity:
                raise QueueFull(f"the model is busy ({self._admitted} asks running or waiting); retry shortly",
                                self._retry_after())
            self._admitted += 1
        return Ticket(self)

    def slot(self, cancelled: Callable[[], bool] = lambda: False) -> _Slot:
        return _Slot(self, cancelled)

    def observe(self, seconds: float) -> None:
        """Feed a finished ask's duration into the Retry-After estimate."""
        with self._lock:
            self._mean_s = 0.8 * self._mean_s + 0.2 * seconds

    def _leave(self) -> None:
        with self._lock:
            self._admitted -= 1

    def _retry_after(self) -> int:
        return max(1, math.ceil(self._mean_s * self._admitted / self.concurrency))


class _Slot:
    def __init__(self, gate: ModelGate, cancelled: Callable[[], bool]):
        self._gate = gate
        self._cancelled = cancelled

    def __enter__(self) -> None:
        while not self._gate._slots.acquire(timeout=0.2):
            if self._cancelled():
                raise RunCancelled("the run was cancelled while waiting for the model")
        if self._cancelled():
            self._gate._slots.release()
            raise RunCancelled("the run was cancelled while waiting for the model")

    def __exit__(self, *exc: object) -> None:
        self._gate._slots.release()
