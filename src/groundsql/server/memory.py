"""Keep a long-running server's memory flat on glibc: fewer malloc arenas, and freed heap given back.

glibc gives each thread that allocates its own arena (up to eight per core); a server whose asks hop between
a few dozen pool threads spreads small allocations over all of them, and memory freed inside an arena is rarely
returned to the system, so its RSS creeps up for hours with nothing leaking. Capping the arenas (what
``MALLOC_ARENA_MAX`` does, set before the pools start), pinning the mmap threshold (``MALLOC_MMAP_THRESHOLD_``) and
trimming the heap now and then keep it flat.
Elsewhere (macOS, musl, Windows) these are no-ops.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

log = logging.getLogger("groundsql")

#: Arenas a server process uses (glibc's own default is eight per core).
SERVER_ARENAS = 2
#: Seconds between two heap trims of a running server.
TRIM_EVERY_S = 60.0
#: Blocks at least this big get a mapping of their own, given back to the system when freed. glibc otherwise
#: raises its threshold each time such a block is freed (up to 32 MiB), and big short-lived buffers (a trace's
#: JSON, a result's rows) then land in the arenas, where they fragment the heap.
MMAP_THRESHOLD = 256 * 1024
_M_ARENA_MAX = -8  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas(arenas: int = SERVER_ARENAS) -> bool:
    """Cap glibc's malloc arenas (call before thread pools start); whether it applied. A ``MALLOC_ARENA_MAX``
    set by the user wins."""
    libc = _libc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, arenas))


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Pin glibc's mmap threshold (no dynamic rise); whether it applied. A ``MALLOC_MMAP_THRESHOLD_`` set by the
    user wins."""
    libc = _libc()
    if libc is None or os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold))


def trim_heap() -> bool:
    """Give the heap's free pages back to the system; whether any were."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
