"""SDK clients a test made, closed when it ends.

An unclosed client leaves its pooled socket to the garbage collector, and the suite treats the
ResourceWarning that follows as a failure (pyproject's filterwarnings).
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")

_OPEN: list[Any] = []


def closing_client(client: T) -> T:
    """Register an SDK client to be closed when the test ends; returns it."""
    _OPEN.append(client)
    return client


def close_clients() -> None:
    while _OPEN:
        _OPEN.pop().close()
