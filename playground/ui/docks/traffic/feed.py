"""TrafficFeed: the proxy's exchanges, handed from its thread to Qt's, each fed into a session.

The hub calls its listeners on the proxy's loop thread (proxy/exchange.py); no widget may be
touched there. ``QueueingSinks`` (a ``RunSinks``) only puts each call on a thread-safe queue;
a Qt timer drains it once per frame, within a time budget, and replays each call into the
exchange's own ``StreamSession`` (``start_external``): the same decoder, frame batching and
signals as a panel's run, so the inspector, timing and history follow it unchanged.
"""

from __future__ import annotations

import queue
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from playground.protocol.requests import ROUTE_NAMES
from playground.proxy.exchange import Exchange
from playground.proxy.sinks import RunSinks

if TYPE_CHECKING:
    from playground.transport.errors import TransportError
    from playground.transport.pipeline import RunSink
    from playground.ui.runtime.session import StreamSession

__all__ = ["DRAIN_BUDGET_S", "FRAME_MS", "KEPT", "QueueingSinks", "TrafficEntry", "TrafficFeed"]

FRAME_MS = 16  # one drain per frame
DRAIN_BUDGET_S = 0.008  # at most half a frame of replaying per drain; the rest waits a frame
KEPT = 500  # exchanges the panel keeps (each holds its bytes); the oldest go first


@dataclass(eq=False)
class TrafficEntry:
    """One exchange as the window knows it: the proxy's record and the session fed from it."""

    ex: Exchange
    session: StreamSession | None = None  # None: a path with no grammar (/v1/models...)
    sink: RunSink | None = None
    started: float = field(default_factory=time.time)

    @property
    def status(self) -> str:
        """The playground's word for it (streaming while open), or the proxy's outcome."""
        state = self.session.state if self.session is not None else None
        if state is not None:
            return state.status
        return "streaming" if self.ex.outcome == "open" else self.ex.outcome

    @property
    def findings(self) -> int:
        state = self.session.state if self.session is not None else None
        return len(state.findings) if state is not None else 0


class _QueuedSink:
    """A RunSink that only queues its calls (it runs on the proxy thread)."""

    def __init__(self, q: queue.SimpleQueue[tuple[Any, ...]], ex: Exchange) -> None:
        self.q = q
        self.ex = ex

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.q.put((self.ex, "on_request", method, url, headers, body))

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.q.put((self.ex, "on_response", status, headers, t))

    def on_chunk(self, t: float, data: bytes) -> None:
        self.q.put((self.ex, "on_chunk", t, data))

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.q.put((self.ex, "on_transport_error", error, t))

    def on_end(self, t: float) -> None:
        self.q.put((self.ex, "on_end", t))

    def flush(self) -> None:
        """Nothing is held: the queue is the buffer."""


class QueueingSinks(RunSinks):
    """The hub listener: every exchange's calls go on ``q``, nothing else happens here."""

    def __init__(self, q: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        super().__init__(lambda ex: _QueuedSink(q, ex))
        self.q = q

    def on_start(self, ex: Exchange) -> None:
        self.q.put((ex, "start"))


class TrafficFeed(QObject):
    """Drains the queue on the Qt thread; ``added`` a new exchange, ``changed`` ones that moved."""

    added = Signal(object)  # a TrafficEntry
    changed = Signal(object)  # a list of TrafficEntry touched by this drain
    removed = Signal(object)  # a TrafficEntry dropped (more than KEPT)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.listener = QueueingSinks(self.queue)
        self.entries: dict[int, TrafficEntry] = {}  # by exchange id, oldest first
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self.drain)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        for entry in self.entries.values():
            if entry.session is not None and entry.session.is_running:
                entry.session.stop()

    def drain(self) -> None:
        """Replay queued calls until the queue is empty or the frame's budget is spent."""
        deadline = time.perf_counter() + DRAIN_BUDGET_S
        touched: dict[int, TrafficEntry] = {}
        while time.perf_counter() < deadline:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                break
            ex, step = item[0], item[1]
            if step == "start":
                entry = self._add(ex)
            else:
                entry = self.entries.get(ex.id) or self._add(ex)
                self._replay(entry, step, item[2:])
            touched[ex.id] = entry
        if touched:
            self.changed.emit(list(touched.values()))

    def _add(self, ex: Exchange) -> TrafficEntry:
        entry = TrafficEntry(ex)
        self.entries[ex.id] = entry
        self.added.emit(entry)
        while len(self.entries) > KEPT:
            gone = self.entries.pop(next(iter(self.entries)))
            if gone.session is not None:
                gone.session.stop()
                # Owned by Python from here: freed with its last reference (the inspector may
                # still follow it), never deleted under a view that holds it.
                gone.session.setParent(None)
            self.removed.emit(gone)
        return entry

    def _replay(self, entry: TrafficEntry, step: str, args: tuple[Any, ...]) -> None:
        if step == "on_request":
            route = entry.ex.route
            if route not in ROUTE_NAMES:
                return  # listed, not decoded: the playground knows no grammar for it
            from playground.ui.runtime.session import StreamSession

            session = StreamSession(route, self)
            session.stall_seconds = 0  # the client decides how long it waits, not the panel
            entry.session = session
            entry.sink = session.start_external(route, args[3])
        sink = entry.sink
        if sink is not None:
            try:
                getattr(sink, step)(*args)
            except Exception:  # a decoder bug costs this exchange its views, never the window
                entry.sink = None
