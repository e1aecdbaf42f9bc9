"""Best-of-N timing on a shared machine: the minimum is the run least disturbed by other work."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(
    fn: Callable[[], T], repeat: int, clock: Callable[[], float] = time.process_time
) -> tuple[float, T]:
    """Run ``fn`` ``repeat`` times with the collector off; return (fastest seconds, last result).

    The default clock is this process's CPU time: other engineers' jobs on the same two cores
    stretch wall time by 2x at random, but barely touch the CPU time of single-threaded work.
    """
    best = float("inf")
    result: T | None = None
    enabled = gc.isenabled()
    try:
        for _ in range(max(1, repeat)):
            gc.collect()
            gc.disable()
            start = clock()
            result = fn()
            elapsed = clock() - start
            if enabled:  # off stays off: a window's UI thread may be the one that collects
                gc.enable()
            best = min(best, elapsed)
    finally:
        if enabled:
            gc.enable()
    assert result is not None
    return best, result


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest-rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[rank]
