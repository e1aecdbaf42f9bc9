"""Best-of-N timing on a shared machine: the minimum is the run least disturbed by other work."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Run ``fn`` ``repeat`` times with the collector off; return (fastest seconds, last result)."""
    best = float("inf")
    result: T | None = None
    enabled = gc.isenabled()
    try:
        for _ in range(max(1, repeat)):
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            result = fn()
            elapsed = time.perf_counter() - start
            gc.enable()
            best = min(best, elapsed)
    finally:
        if enabled:
            gc.enable()
    assert result is not None
    return best, result
