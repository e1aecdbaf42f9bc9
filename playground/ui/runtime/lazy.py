"""What the first frame does without, loaded on first use: asyncio, and each output view's module.

The window is built, shown and painted on Qt's own loop; asyncio (with ssl, socket and
subprocess, about a tenth of the time to a first frame) and qasync load right after that first
frame (``app.main``). The Qt modules the first frame imports reach asyncio only through the
helpers here, which import it when a run, a model list or the shutdown first needs it; the
transport modules they import (``pipeline``, ``music``) import it inside the functions that use
it for the same reason. The output views load with the first panel that shows them: the chat
panel in the first frame shows its empty state and needs none of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from playground.ui.panels.structured_view import StructuredView
    from playground.ui.views.answer_view import AnswerView
    from playground.ui.views.audio_view import AudioView
    from playground.ui.views.images_view import ImagesView
    from playground.ui.views.music_view import MusicView
    from playground.ui.views.thinking_view import ThinkingView
    from playground.ui.views.tool_calls_view import ToolCallsView
    from playground.ui.views.transcript_view import TranscriptView

__all__ = [
    "answer_view",
    "audio_view",
    "gather_quietly",
    "images_view",
    "in_thread",
    "music_view",
    "run_soon",
    "running_loop",
    "settle",
    "thinking_view",
    "tool_calls_view",
    "transcript_view",
]


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


# ---- output views -----------------------------------------------------------------------------
def answer_view() -> AnswerView:
    from playground.ui.views.answer_view import AnswerView

    return AnswerView()


def audio_view() -> AudioView:
    from playground.ui.views.audio_view import AudioView

    return AudioView()


def images_view() -> ImagesView:
    from playground.ui.views.images_view import ImagesView

    return ImagesView()


def music_view() -> MusicView:
    from playground.ui.views.music_view import MusicView

    return MusicView()


def structured_view() -> StructuredView:
    from playground.ui.panels.structured_view import StructuredView

    return StructuredView()


def thinking_view() -> ThinkingView:
    from playground.ui.views.thinking_view import ThinkingView

    return ThinkingView()


def tool_calls_view() -> ToolCallsView:
    from playground.ui.views.tool_calls_view import ToolCallsView

    return ToolCallsView()


def transcript_view() -> TranscriptView:
    from playground.ui.views.transcript_view import TranscriptView

    return TranscriptView()
