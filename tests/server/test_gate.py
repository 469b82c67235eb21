"""The model gate's Retry-After: the measured service time times the refused ask's place in line, over the slots."""

from __future__ import annotations

import threading
import time

import pytest

from groundsql.server.gate import INITIAL_SERVICE_S, SERVICE_WINDOW, ModelGate, QueueFull, RunCancelled

pytestmark = pytest.mark.unit


def _refusal(gate: ModelGate) -> QueueFull:
    with pytest.raises(QueueFull) as caught:
        gate.admit()
    return caught.value


def test_retry_after_is_service_time_times_place_over_slots() -> None:
    gate = ModelGate(concurrency=4, queue_size=16)
    for _ in range(20):
        gate.observe(0.5)
    tickets = [gate.admit() for _ in range(20)]
    # 16 wait ahead of the refused ask, which would be 17th in line: 17 × 0.5 s / 4 slots = 2.125 → 3 s
    assert _refusal(gate).retry_after_s == 3
    for ticket in tickets:
        ticket.release()


def test_retry_after_follows_the_moving_average() -> None:
    gate = ModelGate(concurrency=1, queue_size=0)
    ticket = gate.admit()
    assert _refusal(gate).retry_after_s == INITIAL_SERVICE_S  # nothing measured yet
    for _ in range(SERVICE_WINDOW):
        gate.observe(10.0)
    assert _refusal(gate).retry_after_s == 10
    for _ in range(SERVICE_WINDOW):  # the old, slow asks leave the window
        gate.observe(0.2)
    assert gate.service_s == pytest.approx(0.2)
    assert _refusal(gate).retry_after_s == 1  # never below one second
    ticket.release()


def test_slot_measures_service_not_waiting() -> None:
    """Time spent waiting for a slot is the queue's, not the ask's: counting it made the estimate err long."""
    gate = ModelGate(concurrency=1, queue_size=1)
    first, second = gate.admit(), gate.admit()
    entered = threading.Event()

    def hold() -> None:
        with gate.slot():
            entered.set()
            time.sleep(0.3)
        first.release()

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait(5)
    with gate.slot():  # waits about 0.3 s, then serves at once
        pass
    second.release()
    holder.join()
    assert gate.service_s < 0.2  # the average of ~0.3 s and ~0 s, not of 0.3 s and 0.6 s


def test_failed_or_cancelled_asks_are_not_measured() -> None:
    gate = ModelGate(concurrency=1, queue_size=0)
    with pytest.raises(ValueError), gate.slot():
        raise ValueError("the model failed")
    with pytest.raises(RunCancelled), gate.slot(lambda: True):
        pass
    assert gate.service_s == INITIAL_SERVICE_S
