"""When Python's garbage collector runs: on the UI thread only, and no full pass mid-stream."""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QCoreApplication, QTimer

__all__ = ["collect_due", "collect_on_ui_thread", "hold", "pinned", "release", "trim_pending"]

# Python's cyclic collector runs on whichever thread crosses the allocation threshold: here the
# reader thread, the run writer, the simulator's and the proxy's server threads. Cyclic garbage
# that holds a Python-owned Qt object (a window, a model, a timer, a document) is then destroyed
# on that thread while the UI thread may be dispatching events to it: Qt objects must die on
# their own thread. The core of the GUI tests' rare abort fits that: glibc's "double free or
# corruption" inside Qt's widgets library, dispatching a queued call to memory already freed, on
# the first run (the reader thread's first allocations) of a test whose predecessor's window was
# garbage. The cure others use too (calibre, pyqtgraph, novelWriter): automatic collection off,
# and a timer on the UI thread doing what the collector would have done.
IDLE_TICK_MS = 250  # a look at the counts this often when nothing streams ...
STREAMING_TICK_MS = 16  # ... and once a frame while a stream allocates

# A full collection walks every tracked object: with the window's Qt wrappers and a stream's
# 100,000 timeline items that took 80 ms here, long enough to freeze the window mid-stream.
# While any stream runs the oldest generation's threshold is set out of reach, so only the
# young generations (bounded by recent allocations) are collected; the full pass runs on its
# own schedule once the last stream has ended. Cyclic garbage that reaches the oldest
# generation during a stream waits until then; nothing else changes.
_OUT_OF_REACH = 1 << 30
_holders = 0
_saved: tuple[int, int, int] | None = None

_timer: QTimer | None = None
# CPython runs a full pass only when the objects moved to the oldest generation since the last
# one exceed a quarter of those it kept then (gcmodule.c, long_lived_pending / _total): that
# keeps full passes linear in the heap. Python does not expose the two counts; they are kept
# here from the young generations' sizes around each middle-generation pass.
_long_lived_total = 0
_long_lived_pending = 0
_young_since_middle = 0  # objects allocated (net) since the last middle-generation pass
# After a stream, once the last one has ended and its quiet time passed, the C heap's free pages
# go back to the system (heap_trim.py) at the next idle tick, after any collection it does.
_trim_due = False


def hold(*, trim: bool = True) -> None:
    """A stream starts (or a transcript scrolls, ``trim=False``): no full collection until
    every holder has released, and the heap is trimmed at the first idle tick after that."""
    global _holders, _saved, _trim_due
    _trim_due = _trim_due or trim
    if _holders == 0:
        first, second, third = gc.get_threshold()
        _saved = (first, second, third)
        gc.set_threshold(first, second, _OUT_OF_REACH)
        _set_tick(STREAMING_TICK_MS)
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
        _set_tick(IDLE_TICK_MS)


def trim_pending() -> bool:
    """Whether the heap is to be trimmed at the first idle tick (a stream ran since the last
    trim)."""
    return _trim_due


def pinned() -> bool:
    """True once ``collect_on_ui_thread`` runs the collector (and no other thread does)."""
    return _timer is not None


def collect_on_ui_thread() -> None:
    """From now on only the UI thread collects garbage: automatic collection is switched off
    and a timer on this (the QApplication's) thread collects what it would have. Idempotent."""
    global _timer, _long_lived_total, _long_lived_pending, _young_since_middle
    if _timer is not None:
        return
    app = QCoreApplication.instance()
    if app is None or threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the collector is pinned from the UI thread, after the QApplication")
    gc.disable()
    _long_lived_total = len(gc.get_objects(2))
    _long_lived_pending = _young_since_middle = 0
    timer = QTimer(app)
    timer.timeout.connect(collect_due)
    _timer = timer
    timer.start(STREAMING_TICK_MS if _holders else IDLE_TICK_MS)
    app.aboutToQuit.connect(_unpin)  # once the loop is gone no timer would collect


def _unpin() -> None:
    """The application quits: the timer stops. Automatic collection stays off: switched back on,
    the first thread to allocate would collect, and the reader, the run writer and the servers'
    threads may still be finishing, so Qt wrappers would die on them again (a GUI test run hung
    so: a collection on the simulator's thread disconnecting a signal, Qt's connection lock held
    there while it waited for the GIL, and the UI thread, holding the GIL, waiting for that lock
    to connect one). The interpreter's last collection runs on the main thread at exit."""
    global _timer
    if _timer is not None:
        _timer.stop()
        _timer = None


def _set_tick(interval_ms: int) -> None:
    if _timer is not None:
        _timer.setInterval(interval_ms)


def collect_due() -> int:
    """Collect what the automatic collector would have by now; the oldest generation collected
    (0, 1, 2), or -1 when nothing was due.

    Its rule (gcmodule.c, collect_generations): once more than threshold[0] objects were
    allocated net, collect the oldest generation whose count passed its threshold. A young pass
    comes every threshold[0] allocations, so a middle one every threshold[0] * threshold[1]. A
    tick sees many steps' allocations at once: the middle pass is kept to that many allocations,
    not to that many ticks. Counted in ticks, the middle generation held ten ticks' survivors
    (at full speed its passes took 4 ms, at worst 11, on the UI thread); counted in allocations
    it holds what CPython's would.
    """
    collected = _collect_due()
    if _holders == 0 and _trim_due:
        _trim()
    return collected


def _trim() -> None:
    global _trim_due
    _trim_due = False
    from playground.ui.runtime import heap_trim

    heap_trim.trim()


def _collect_due() -> int:
    global _long_lived_total, _long_lived_pending, _young_since_middle
    counts = gc.get_count()
    thresholds = gc.get_threshold()
    if counts[0] <= thresholds[0]:
        return -1
    if counts[2] > thresholds[2] and _long_lived_pending > _long_lived_total // 4:
        gc.collect(2)
        _long_lived_total = len(gc.get_objects(2))
        _long_lived_pending = 0
        _young_since_middle = 0
        return 2
    if _young_since_middle + counts[0] > thresholds[0] * thresholds[1]:
        young = len(gc.get_objects(0)) + len(gc.get_objects(1))
        found = gc.collect(1)
        _long_lived_pending += max(0, young - found)
        _young_since_middle = 0
        return 1
    _young_since_middle += counts[0]
    gc.collect(0)
    return 0
