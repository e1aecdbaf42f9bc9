"""The inspector fed from the run in focus: request, response, and timeline rows in batches."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from playground.ui.runtime import reader_pause

if TYPE_CHECKING:
    from playground.protocol.sse import SSEItem
    from playground.ui.inspector.inspector import Inspector
    from playground.ui.runtime.current_run import CurrentRun
    from playground.ui.runtime.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["INSPECTOR_MS", "InspectorFeed"]

INSPECTOR_MS = 100  # the timeline takes new rows at most this often while a stream runs
_BODY_SHOWN = 64 * 1024  # bytes of an error body shown in the response view


class InspectorFeed(QObject):
    """Subscribes the inspector to the CurrentRun, once; the window says which panel it follows."""

    def __init__(self, window: MainWindow, inspector: Inspector, current: CurrentRun) -> None:
        super().__init__(window)
        self.window = window
        self.current = current
        self.inspector = inspector
        self._pending: list[SSEItem] = []  # timeline items not yet handed to the inspector
        self._last = 0.0
        self._flush_queued = False  # a flush waits for the frame's paint (frames.after_paint)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        self._rows = 0  # timeline rows the inspector shows for the followed panel
        self._request_shown = False
        self._response_shown = False
        current.changed.connect(self.follow)
        current.started.connect(self.started)
        current.updated.connect(self.updated)
        current.finished.connect(self.finished)

    def follow(self, _session: object = None) -> None:
        # The session in focus: a panel's, or a proxied exchange's (the Traffic panel).
        session = self.current.session
        if session is None:
            return
        self.inspector.reset()
        self._request_shown = self._response_shown = False
        self._rows = 0
        self._pending = []
        decoder = session.decoder
        if decoder is not None:
            self.inspector.attach(decoder)
            self.show_run(session)
            if decoder.items:
                # The decoder's own sequence, not a list of it: a folded run's items are made
                # one at a time as the model reads them (protocol/timeline_items.py).
                self.inspector.append(decoder.items)
            self._rows = len(decoder.items)

    def show_run(self, session: StreamSession) -> None:
        run = session.run
        if not self._request_shown and run.method:
            self.inspector.set_request(run.method, run.url, run.headers, run.body)
            self._request_shown = True
        if not self._response_shown and run.status is not None:
            body = session.error_body() if run.status >= 400 else None
            if body is not None and len(body) > _BODY_SHOWN:
                # A huge error page (an HTML proxy page, say) must not freeze the text view.
                more = len(body) - _BODY_SHOWN
                body = body[:_BODY_SHOWN] + f"\n… ({more:,} more bytes)".encode()
            self.inspector.set_response(run.status, run.response_headers, body)
            self._response_shown = run.status < 400 or not session.is_running

    def started(self) -> None:
        session = self.current.session
        if session is not None and session.decoder is not None:
            self.inspector.reset()
            self._request_shown = self._response_shown = False
            self._rows = 0
            self._pending = []
            self.inspector.attach(session.decoder)

    def updated(self) -> None:
        session = self.current.session
        if session is None:
            return
        self.show_run(session)
        # Rows already shown when the inspector switched to this panel mid-stream are skipped.
        items = [i for i in session.new_items() if i.index >= self._rows]
        if items:
            self._rows = items[-1].index + 1
            self._pending.extend(items)
        # The timeline takes rows at most every INSPECTOR_MS (repainting the table per frame
        # cost more than decoding the events); the answer still follows every frame. Rows go in
        # from here, inside the session's frame (its reader thread paused, see
        # ui/runtime/frames.py);
        # the timer, restarted by every update, only catches the last rows once updates pause.
        if (time.perf_counter() - self._last) * 1000 >= INSPECTOR_MS:
            # Inside a frame: after the answer's paint, in a turn of its own (the table's
            # rows and repaint cost as much as the answer's update).
            self._flush_after_paint()
        else:
            self._timer.start(INSPECTOR_MS)

    def flush(self) -> None:
        # All pending rows in one insert: adding them costs about 0.4 us a row (7,000 rows of a
        # flood's 100 ms in under 3 ms); what costs is the table's repaint after it (about 5 ms
        # for the visible rows, every cell's roles asked of Python), so it happens once per
        # INSPECTOR_MS, never per frame.
        self._timer.stop()
        self._flush_queued = False
        self._last = time.perf_counter()
        items, self._pending = self._pending, []
        # An empty batch still picks up findings added to earlier rows. (From the timer, not a
        # frame: the readers pause as in a frame, the findings dict is theirs to grow.)
        with reader_pause.paused():
            self.inspector.append(items)

    def finished(self, _status: str = "") -> None:
        session = self.current.session
        if session is not None:
            self.show_run(session)
            # Picks up findings added at the end (no terminator...). The selection is left
            # alone: jumping to a finding would open a possibly huge event (a 10 MB line).
            # A run that ends in a frame gets its last rows after the frame's paint, in a turn
            # of their own (a flood's last 2,000 rows and the table's repaint: 7 ms).
            self._flush_after_paint()

    def _flush_after_paint(self) -> None:
        """``flush`` after the frame's paint (once, however many updates ask), or now outside
        a frame."""
        if not self._flush_queued:
            from playground.ui.runtime.frames import after_paint_or_now

            self._flush_queued = after_paint_or_now(self.flush)
