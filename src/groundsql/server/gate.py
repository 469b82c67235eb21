"""The model's front door: a fixed number of asks run at once, a bounded number wait, the rest are refused."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
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


#: Finished asks the service-time average is taken over, and the estimate used before the first one finishes.
SERVICE_WINDOW = 50
INITIAL_SERVICE_S = 5.0


class ModelGate:
    """`admit` answers at once (a ticket, or `QueueFull`); `slot` then waits for one of `concurrency` slots.

    A refusal's `retry_after_s` is the queue's measured service time (the moving average of the last
    `SERVICE_WINDOW` asks, timed from the moment each got its slot, so time spent waiting is not counted twice)
    times the refused ask's place in line, divided by the slots serving the line.
    """

    def __init__(self, concurrency: int, queue_size: int):
        if concurrency < 1 or queue_size < 0:
            raise ValueError("concurrency must be at least 1 and queue_size at least 0")
        self.concurrency = concurrency
        self.capacity = concurrency + queue_size
        self._slots = threading.Semaphore(concurrency)
        self._lock = threading.Lock()
        self._admitted = 0
        self._service: deque[float] = deque(maxlen=SERVICE_WINDOW)

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
        """Feed a finished ask's service time (from getting its slot to its answer) into the Retry-After estimate;
        `slot` does this itself."""
        with self._lock:
            self._service.append(max(0.0, seconds))

    @property
    def service_s(self) -> float:
        """The moving average of recent asks' service time (`INITIAL_SERVICE_S` before any finished)."""
        with self._lock:
            return self._service_s()

    def _service_s(self) -> float:
        return sum(self._service) / len(self._service) if self._service else INITIAL_SERVICE_S

    def _leave(self) -> None:
        with self._lock:
            self._admitted -= 1

    def _retry_after(self) -> int:
        """Seconds until the refused ask would reach a slot: its place in line (those waiting, plus itself) times
        the service time, over the slots. Called with the lock held."""
        position = max(0, self._admitted - self.concurrency) + 1
        return max(1, math.ceil(self._service_s() * position / self.concurrency))


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
        self._started = time.perf_counter()

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self._gate._slots.release()
        if kind is None:  # a failed or cancelled ask says nothing about how long answering takes
            self._gate.observe(time.perf_counter() - self._started)
