"""Hands the C heap's free pages back to the system after a run (glibc's ``malloc_trim``)."""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from collections.abc import Callable

__all__ = ["last_trim_ms", "trim"]

# A run allocates and frees tens of megabytes in glibc's heap (Qt's text layouts, the reads,
# the decoded state), and glibc keeps what was freed mapped for reuse: it returns memory to the
# system only from the top of the main heap, so one live block above a freed stretch keeps the
# whole stretch resident. Over 50 runs into one thread (`playground bench --only session`) the
# window's RSS grew 126 -> 165-169 MB with no leak behind it (Python's heap grew 4 MB); with a
# trim after each run, 126 -> 155-157 MB. ``malloc_trim(0)`` (glibc 2.8+) gives back every
# whole free page of every arena (madvise), at a cost of a walk of the free lists: it runs in
# idle time only (gc_schedule.py), never while a stream's frames are due.


def _load() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        function = libc.malloc_trim  # glibc only: musl, macOS and Windows have none
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


_malloc_trim = _load()
_last_ms = -1.0


def trim() -> bool:
    """Give the heap's free pages back now; False where the C library has no such call."""
    global _last_ms
    if _malloc_trim is None:
        return False
    started = time.perf_counter()
    _malloc_trim(0)
    _last_ms = (time.perf_counter() - started) * 1000
    return True


def last_trim_ms() -> float:
    """How long the last trim took, in ms (-1 before the first)."""
    return _last_ms
