"""Idle time for deferred work: which runs stream now, and ``when_idle`` to wait them out.

Work that the first frame or a stream does not need (hidden panels, docks, the full garbage
collection) runs once no run streams and none ended within ``QUIET_S``. The counts are the UI
thread's: every session reports its run's start and end here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from playground.ui.runtime import gc_schedule

__all__ = [
    "QUIET_S",
    "SCROLL_QUIET_S",
    "idle_now",
    "run_ended",
    "run_started",
    "scrolled",
    "scrolled_within",
    "scrolling",
    "streams_running",
    "when_idle",
]

# After a run ends the window is not idle yet: its last frames, the Markdown render and the
# reader's eyes are on the answer. Deferred work (hidden panels, docks, the full garbage
# collection) waits this long after the last end, so it never lands on a stream's last frames.
QUIET_S = 1.0

# Scrolling a long transcript is no idle time either: each of its frames lays out and paints a
# page, and a full collection (40 ms) or a count of a 200-turn body's context (20 ms) landing in
# one of them was the worst frame of a scroll end to end (the transcript benchmark). Both wait
# until the view has been still this long.
SCROLL_QUIET_S = 0.5

_live_runs = 0  # runs (of any session) between their start and their end; UI thread only
_last_end = 0.0  # time.monotonic() when the last run ended
_last_scroll = -SCROLL_QUIET_S  # time.monotonic() when a transcript last scrolled
_scroll_hold: QTimer | None = None  # while it runs, the full collection is held


def streams_running() -> int:
    """How many runs stream now, in any panel: idle-time work should wait while any does."""
    return _live_runs


def idle_now() -> bool:
    """True when no run streams, none ended within ``QUIET_S`` and no transcript scrolled
    within ``SCROLL_QUIET_S``: time for deferred work."""
    return _live_runs == 0 and time.monotonic() - _last_end >= QUIET_S and not scrolling()


def scrolling() -> bool:
    """Whether a transcript scrolled within ``SCROLL_QUIET_S``: work that reads a whole
    conversation waits until it is still."""
    return scrolled_within(SCROLL_QUIET_S)


def scrolled_within(seconds: float) -> bool:
    """Whether the user scrolled a transcript (wheel, keys, its bar; not a thread following its
    end) within the last ``seconds``."""
    return time.monotonic() - _last_scroll < seconds


def scrolled() -> None:
    """A transcript scrolled: no full garbage collection until it has been still for
    ``SCROLL_QUIET_S``."""
    global _last_scroll, _scroll_hold
    _last_scroll = time.monotonic()
    if _scroll_hold is None:
        from PySide6.QtCore import Qt  # its first use builds the namespace: not at import

        app = QCoreApplication.instance()
        if app is None:
            return
        _scroll_hold = QTimer(app)
        _scroll_hold.setSingleShot(True)
        # Never early (a coarse timer fires up to 5% early): its release and ``scrolling()``
        # must agree that the view is still.
        _scroll_hold.setTimerType(Qt.TimerType.PreciseTimer)
        _scroll_hold.setInterval(int(SCROLL_QUIET_S * 1000))
        _scroll_hold.timeout.connect(gc_schedule.release)
    if not _scroll_hold.isActive():
        gc_schedule.hold(trim=False)
    _scroll_hold.start()


def when_idle(context: QObject, work: Callable[[], object], delay_ms: int) -> None:
    """Run ``work`` on the UI thread ``delay_ms`` from now, or later: as soon after that as
    ``idle_now()`` (a stream and its last moments are no idle time: work then would stall its
    frames). Nothing runs once ``context`` is gone."""

    def run() -> None:
        if idle_now():
            work()
        else:
            QTimer.singleShot(delay_ms, context, run)

    QTimer.singleShot(delay_ms, context, run)


def run_started() -> None:
    """A run starts: until its ``run_ended``, no full garbage collection (an 80 ms pause,
    gc_schedule.py) and no idle time."""
    global _live_runs
    _live_runs += 1
    gc_schedule.hold()


def run_ended() -> None:
    """A run ended; the full collection waits out the quiet time too (a new run holds it
    again first)."""
    global _live_runs, _last_end
    _live_runs -= 1
    _last_end = time.monotonic()
    QTimer.singleShot(int(QUIET_S * 1000), gc_schedule.release)
