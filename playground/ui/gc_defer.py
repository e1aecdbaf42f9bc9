"""Defers Python's full garbage collections while a stream runs (80 ms pauses)."""

from __future__ import annotations

import gc

__all__ = ["hold", "release"]

# A full collection walks every tracked object: with the window's Qt wrappers and a stream's
# 100,000 timeline items that took 80 ms here, long enough to freeze the window mid-stream.
# While any stream runs the oldest generation's threshold is set out of reach, so only the
# young generations (bounded by recent allocations, about 1 ms) are collected; the full pass
# runs on its own schedule once the last stream has ended. Cyclic garbage that reaches the
# oldest generation during a stream waits until then; nothing else changes.
_OUT_OF_REACH = 1 << 30
_holders = 0
_saved: tuple[int, int, int] | None = None


def hold() -> None:
    """A stream starts: no full collection until every holder has released."""
    global _holders, _saved
    if _holders == 0:
        first, second, third = gc.get_threshold()
        _saved = (first, second, third)
        gc.set_threshold(first, second, _OUT_OF_REACH)
    _holders += 1


def release() -> None:
    """A stream ended: the last release restores the thresholds it found."""
    global _holders, _saved
    if _holders == 0:
        return
    _holders -= 1
    if _holders == 0 and _saved is not None:
        first, second, _ = gc.get_threshold()
        gc.set_threshold(first, second, _saved[2])
        _saved = None
