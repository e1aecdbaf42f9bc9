"""What the first frame does without, loaded on first use: asyncio, through these helpers.

The window is built, shown and painted on Qt's own loop; asyncio (with ssl, socket and
subprocess, about a tenth of the time to a first frame) and qasync load right after that first
frame (``app.main``). The Qt modules the first frame imports reach asyncio only through the
helpers here, which import it when a run, a model list or the shutdown first needs it; the
transport modules they import (``pipeline``, ``music``) import it inside the functions that use
it for the same reason. The output views load the same way, from their factories in the views'
registry (``ui/views/routes.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["gather_quietly", "in_thread", "run_soon", "running_loop", "settle"]


# ---- asyncio ----------------------------------------------------------------------------------
def run_soon(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """``coro`` as a task of the running loop (the caller keeps the task)."""
    import asyncio

    return asyncio.ensure_future(coro)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop, or None before one runs (no loop is made here)."""
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def settle(
    task: asyncio.Task[None], timeout: float | None = None, *, quiet: bool = False
) -> None:
    """Wait for ``task`` to end (up to ``timeout``), without cancelling it by being cancelled:
    a cancelled task is no error here, and with ``quiet`` neither is any other."""
    import asyncio

    errors: tuple[type[BaseException], ...] = (
        (asyncio.CancelledError, Exception) if quiet else (asyncio.CancelledError,)
    )
    with contextlib.suppress(*errors):
        await asyncio.wait_for(asyncio.shield(task), timeout)


async def gather_quietly(*aws: Awaitable[object]) -> None:
    """Wait for all of ``aws``; what any of them raised is dropped (closing down)."""
    import asyncio

    await asyncio.gather(*aws, return_exceptions=True)


async def in_thread(work: Callable[[], object]) -> None:
    """Run blocking ``work`` on the loop's default thread pool and wait for it."""
    import asyncio

    await asyncio.get_running_loop().run_in_executor(None, work)
