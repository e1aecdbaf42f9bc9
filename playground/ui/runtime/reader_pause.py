"""The live readers' decode locks, so a slice of UI work outside a frame can pause them all.

A frame's work runs with its reader paused (ui/runtime/frames.py): otherwise each return from Qt
into Python waits for the GIL behind the busy reader thread. A slice that runs from a timer of its
own and spends its time in Python (the timeline's catch-up rows) needs the same: measured on a
2-core AMD EPYC under a flood, live Markdown's render steps, then mostly md4c and Python, took
9.8 ms on the wall clock for 3.7 ms of CPU with the reader running. (Those steps no longer
pause it: plain blocks skip md4c, and what is left is mostly Qt's layout, which runs beside the
reader: see LiveText._work.) Pausing costs at most the decode of the read under way (the lock
is held per read).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

__all__ = ["active", "paused", "register", "unregister"]

_locks: list[threading.RLock] = []  # one per running reader that decodes ahead


def register(lock: threading.RLock) -> None:
    """A reader thread that decodes under ``lock`` started."""
    _locks.append(lock)


def unregister(lock: threading.RLock) -> None:
    """... and ended."""
    with contextlib.suppress(ValueError):
        _locks.remove(lock)


def active() -> bool:
    """Whether a reader that could be paused is running."""
    return bool(_locks)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block with every live reader paused after its current read (re-entrant: the
    locks are RLocks, and a frame's own pause holds its reader's too)."""
    held = list(_locks)
    for lock in held:
        lock.acquire()
    try:
        yield
    finally:
        for lock in reversed(held):
            lock.release()
