"""The inspector fed from the run in focus: request, response, and timeline rows in batches."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

if TYPE_CHECKING:
    from playground.protocol.sse import SSEItem
    from playground.ui.current_run import CurrentRun
    from playground.ui.inspector.inspector import Inspector
    from playground.ui.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["INSPECTOR_MS", "InspectorFeed"]

INSPECTOR_MS = 100  # the timeline takes new rows at most this often while a stream runs
# Rows go in ROWS_SLICE at a time for at most FLUSH_BUDGET_S per flush (a flood brings 7,000
# rows in 100 ms, about 15 ms of inserting at once); the rest follows CATCH_UP_MS later, so the
# timeline keeps up with 100,000 events a second and no flush holds the UI thread for long.
ROWS_SLICE = 1000
FLUSH_BUDGET_S = 0.004
CATCH_UP_MS = 16
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
                self.inspector.append(list(decoder.items))
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
        # from here, inside the session's frame (its reader thread paused, see ui/frames.py);
        # the timer, restarted by every update, only catches the last rows once updates pause.
        wait = CATCH_UP_MS if len(self._pending) > ROWS_SLICE else INSPECTOR_MS
        if (time.perf_counter() - self._last) * 1000 >= wait:
            self.flush()
        else:
            self._timer.start(wait)

    def flush(self) -> None:
        self._timer.stop()
        self._last = began = time.perf_counter()
        pending = self._pending
        if len(pending) <= ROWS_SLICE:
            self._pending = []
            self.inspector.append(pending)  # an empty batch still picks up new findings
            return
        taken = 0
        while taken < len(pending):
            self.inspector.append(pending[taken : taken + ROWS_SLICE])
            taken += ROWS_SLICE
            if time.perf_counter() - began > FLUSH_BUDGET_S:
                break
        self._pending = pending[taken:]
        if self._pending:
            self._timer.start(CATCH_UP_MS)

    def finished(self, _status: str = "") -> None:
        session = self.current.session
        if session is not None:
            self.show_run(session)
            # Picks up findings added at the end (no terminator...). The selection is left
            # alone: jumping to a finding would open a possibly huge event (a 10 MB line).
            self.flush()
