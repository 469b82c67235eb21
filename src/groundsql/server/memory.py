"""Keep a long-running server's memory flat on glibc: fewer malloc arenas, and freed heap given back.

glibc gives each thread that allocates its own arena (up to eight per core); a server whose asks hop between
a few dozen pool threads spreads small allocations over all of them, and memory freed inside an arena is rarely
returned to the system, so its RSS creeps up for hours with nothing leaking. Capping the arenas (what
``MALLOC_ARENA_MAX`` does, set before the pools start) and trimming the heap now and then keeps it flat.
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
_M_ARENA_MAX = -8  # mallopt parameter, from glibc's malloc.h


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


def trim_heap() -> bool:
    """Give the heap's free pages back to the system; whether any were."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
