"""The allocator settings of a long-running server: harmless calls everywhere, effective on glibc."""

from __future__ import annotations

import sys

import pytest

from groundsql.server import memory

pytestmark = pytest.mark.unit


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
