"""The frame loop: a reader thread's calls handed to a sink on the UI thread, once per frame.

A socket read costs about twice the CPU under qasync's loop as under plain asyncio, so the bytes
are read by a reader thread (``transport.reader.ThreadedReader``, one entry per socket read)
and the UI thread takes them in batches here. The sink still gets every RunSink call, in order,
on the UI thread.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from playground.transport.pipeline import FlushingSink
from playground.transport.reader import ThreadedReader
from playground.ui.runtime import reader_pause
from playground.ui.runtime.frame_rate import FRAME_MS

__all__ = [
    "DRAIN_BUDGET_S",
    "FRAME_DRAIN_S",
    "FRAME_MAX_S",
    "FRAME_PACE",
    "Frames",
    "after_paint",
    "after_paint_or_now",
    "frame_observers",
    "paint_now",
    "read_in_frames",
    "settle_layouts",
]

FRAME_PACE = 2.0  # under a flood, the wait before the next frame over this frame's work
FRAME_MAX_S = 0.05  # ... up to this (20 frames a second at the least)
# The longest the UI thread spends feeding a backlog before it lets Qt paint and run timers
# (the ui_stall_p99_ms goal: at most 50 ms with a 5 ms probe timer).
DRAIN_BUDGET_S = 0.004
# The most decoding one frame takes on: the widgets' work that follows grows with what was
# decoded, so a frame bounded here is bounded in time, however much the reader has queued.
# What is left waits for the next frame.
FRAME_DRAIN_S = 0.008
# Each gets the wall seconds of every frame, from its start to its paint, and of each turn of
# work put off to after it (after_paint), as blocks of their own (the session benchmark).
frame_observers: list[Callable[[float], None]] = []
# How long a thread that wants the GIL waits before the running one must hand it over. Python's
# 5 ms default is a whole timer tick: with the reader decoding, every timer, paint and input
# event of the UI thread would wait up to that for the GIL (and Thread.start waits as long).
SWITCH_INTERVAL_S = 0.001
# The work put off to after this frame's paint, while a frame decodes or updates (after_paint).
_collecting: list[Callable[[], None]] | None = None
_T = TypeVar("_T")


class Frames(Protocol):
    """The session's side of a frame: whether an update waits, and emitting it now."""

    def update_pending(self) -> bool: ...
    def update_now(self) -> bool: ...


async def read_in_frames(reader: ThreadedReader, sink: FlushingSink, frames: Frames) -> None:
    """Start ``reader`` and hand its calls to ``sink`` once per frame until it has ended."""
    import asyncio  # here, not at the top: the first frame imports this module (ui/runtime/lazy.py)

    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
    reader.start(asyncio.get_running_loop())
    lock = reader.ahead.lock if reader.ahead is not None else None
    if lock is not None:
        reader_pause.register(lock)  # the UI's slices outside frames pause it too
    frame = FRAME_MS / 1000
    wait = frame
    clock = time.perf_counter
    try:
        while True:
            ended = await reader.wait(wait)
            began = clock()
            # The frame's work runs with the reader paused: otherwise every call between Python
            # and Qt (a model's data() per cell painted, a file flush) hands the GIL to the busy
            # reader and waits up to the switch interval to get it back.
            reader.hold()
            # Work the frame's handlers put off (after_paint): from its decoding (a run's end
            # finishes it there) and from its update.
            later: list[Callable[[], None]] = []
            try:
                drain_until = began + FRAME_DRAIN_S
                while _collecting_into(later, reader.drain, sink, DRAIN_BUDGET_S) and (
                    clock() < drain_until
                ):
                    # More than a slice's worth waited: let Qt paint and run timers first.
                    await asyncio.sleep(0)
                _collecting_into(later, sink.flush)
                if frames.update_pending():
                    await asyncio.sleep(0)  # Qt's timers between the decoding and the widgets
                updated = _collecting_into(later, frames.update_now)
                painted: float | None = None
                if updated or later:
                    # Paint now, while the reader is paused: painting a widget subclassed in
                    # Python (and a model's data() per cell) enters Python many times, and each
                    # entry would wait for the GIL behind a busy reader. Two rounds of Qt's loop
                    # first: a text view adjusts its scroll bars from a queued call and a zero
                    # timer, and fewer repaints come after the reader resumed. Each round also
                    # lets Qt run its timers (ui_stall_p99_ms counts every block over 5 ms).
                    await asyncio.sleep(0)
                    await asyncio.sleep(0)
                    paint_now()
                    painted = clock()
                    await _run_after_paint(later)
            finally:
                # Cancelled before its put-off work ran (Stop, a new Send): it runs now, none of
                # it is lost (a run's end, its last rows).
                while later:
                    later.pop(0)()
                reader.resume()
            _observe((painted or clock()) - began)  # up to its paint: later turns are their own
            if ended and reader.empty():
                break
            # A flood costs 10-20 ms of UI thread per frame, half of it painting: the next frame
            # waits FRAME_PACE times as long as this one took, so frames take at most about a
            # third of the UI thread (input, timers and the reader get the rest). A stream at
            # reading speed keeps one frame per FRAME_MS.
            wait = min(max(frame, (clock() - began) * FRAME_PACE), FRAME_MAX_S)
    except BaseException:
        # Stopped, replaced by a new Send, or the sink failed: close the connection now and hand
        # over what the transport says on its way out (on_end), but no more bytes.
        reader.cancel()
        with contextlib.suppress(BaseException):
            await reader.wait(1.0)
        reader.drain(sink, None, chunks=False)
        sink.flush()
        raise
    finally:
        if lock is not None:
            reader_pause.unregister(lock)
    if reader.error is not None:
        raise reader.error


def _observe(spent: float) -> None:
    for observe in frame_observers:
        observe(spent)


def after_paint(work: Callable[[], None]) -> bool:
    """Run ``work`` later in this frame, after its paint, in an event-loop turn of its own (the
    reader still paused), then paint again. Only from inside a frame's decoding or update (a
    session's ``updated``, or its ``finished`` when the run ends there); False elsewhere, and
    the caller does the work now.

    A frame that updated the answer and also fed the timeline its rows and repainted the table
    blocked the UI thread for both at once: 25-30 ms under a flood on a 2-core AMD EPYC."""
    if _collecting is None:
        return False
    _collecting.append(work)
    return True


def after_paint_or_now(work: Callable[[], None]) -> bool:
    """``work`` after this frame's paint (after_paint) if a frame is collecting, else now; True
    when it was put off."""
    if after_paint(work):
        return True
    work()
    return False


def _collecting_into(later: list[Callable[[], None]], call: Callable[..., _T], *args: object) -> _T:
    """``call(*args)``, the work its handlers put off (after_paint) appended to ``later``. Only
    around calls that never yield to the event loop: another frame's handlers run there."""
    global _collecting
    outer, _collecting = _collecting, later
    try:
        return call(*args)
    finally:
        _collecting = outer


async def _run_after_paint(later: list[Callable[[], None]]) -> None:
    """Each piece of put-off work in a turn of its own, each followed by its paint, taken off
    ``later`` as it runs (what a cancel leaves there, the frame runs at once)."""
    import asyncio

    clock = time.perf_counter
    while later:
        await asyncio.sleep(0)  # Qt's timers and input run between it and the paint before
        turn = clock()
        later.pop(0)()
        # Its paint is done here, while the reader is paused (painted after it resumed, the
        # timeline's repaint took 11-17 ms instead of 5), after the layouts it asked for. Not
        # after a round of the event loop: a timer due then ran inside the turn, between its
        # work and its paint (the answer's render step and its repaint, 3-8 ms of a timeline
        # flush's 12-16 on a 2-core AMD EPYC); it runs in a turn of its own, after this one.
        settle_layouts()
        paint_now()
        _observe(clock() - turn)


def settle_layouts() -> None:
    """Deliver the layout requests and queued calls the widgets have posted, as a round of the
    event loop would, but run no timer."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.MetaCall)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def paint_now() -> None:
    """Deliver the paint requests the widgets have posted (QEvent.UpdateRequest) right away."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateRequest)
