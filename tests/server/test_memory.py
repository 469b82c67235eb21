"""A long-running server's memory: the allocator settings (harmless calls everywhere, effective on glibc), and
asks through the app that leave the Python and SQLite heaps flat."""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import tracemalloc
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from groundsql.runs import POOL_SIZE
from groundsql.server import memory
from groundsql.server.app import create_app
from tests.server.conftest import make_workspace


@pytest.mark.unit
def test_arenas_and_trim_apply_on_glibc_and_are_no_ops_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.limit_arenas() is False  # the user's setting wins
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    applied = memory.limit_arenas(memory.SERVER_ARENAS)
    assert applied is (memory._libc() is not None)
    assert isinstance(memory.trim_heap(), bool)
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert memory.fix_mmap_threshold() is False
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    assert memory.fix_mmap_threshold() is (memory._libc() is not None)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert memory.limit_arenas() is False and memory.trim_heap() is False and memory.fix_mmap_threshold() is False


def _sqlite_heap() -> int | None:
    """Bytes SQLite has allocated in this process (None where its library cannot be reached)."""
    try:
        sqlite = ctypes.CDLL("libsqlite3.so.0")
    except OSError:
        return None
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    return int(sqlite.sqlite3_memory_used())


@pytest.mark.integration
def test_asks_through_the_app_leave_the_heaps_flat_and_the_store_on_a_few_connections(
        demo_db: Path, tmp_path: Path) -> None:
    """Issue 37's soak found memory growing ~1 KB a request; per-request state kept anywhere (traces, turns,
    per-thread SQLite connections with their page caches) would show here as growth between two batches."""
    from fastapi.testclient import TestClient

    workspace = make_workspace(demo_db, tmp_path)
    workspace.model.calls = deque(maxlen=1)  # the scripted model's own log of calls is not the server's
    questions = ["How many customers per region?", "How many orders are there?", "How many orders per month?"]

    with TestClient(create_app(workspace)) as client:
        conversation = client.post("/v1/conversations", json={}).json()["id"]

        def ask(i: int) -> None:
            if i % 4 == 0:
                response = client.post(f"/v1/conversations/{conversation}/ask", json={"question": "and by country?"})
            else:
                response = client.post("/v1/ask", json={"question": questions[i % len(questions)]})
            assert response.status_code == 200, response.text

        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(ask, range(24)))  # warm-up: the catalog, caches, the pools' threads
            gc.collect()
            sqlite_before = _sqlite_heap()
            tracemalloc.start()
            list(pool.map(ask, range(24, 72)))
            gc.collect()
            grown, _ = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            sqlite_after = _sqlite_heap()
        ask_threads = [t for t in threading.enumerate() if t.name.startswith("groundsql-ask")]
    workspace.close()
    print(f"python +{grown / 1e3:.0f} KB, sqlite {sqlite_before} -> {sqlite_after}, {len(ask_threads)} ask threads")
    assert grown < 400_000, f"the Python heap grew {grown / 1e3:.0f} KB over 48 asks"
    assert len(ask_threads) > POOL_SIZE and workspace.runs.open_connections <= POOL_SIZE  # not one per thread
    if sqlite_before is not None and sqlite_after is not None:
        assert sqlite_after - sqlite_before < 2_000_000, f"SQLite's heap grew {(sqlite_after - sqlite_before) / 1e3:.0f} KB"
