"""CurrentRun: follows the current panel's session and re-emits its signals (views subscribe once).

The inspector, the timing dock and the history each connect here, once, instead of to every
panel's session (mitmproxy's ``View`` and ``Focus`` are the model: one object says which flow is
in focus and relays what it does). ``follow`` moves the focus; ``watch`` adds a session whose
ends count for ``anyFinished`` (a run ending in a hidden panel still changes the history).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from playground.ui.runtime.session import StreamSession

__all__ = ["CurrentRun"]


class CurrentRun(QObject):
    """The session in focus, and its signals relayed."""

    changed = Signal(object)  # the focus moved to this session (a StreamSession, or None)
    started = Signal()
    updated = Signal()
    finished = Signal(str)
    anyFinished = Signal(str)  # a run of any watched session ended

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session: StreamSession | None = None
        self._watched: list[StreamSession] = []

    @property
    def session(self) -> StreamSession | None:
        """The session in focus (the current panel's), if any."""
        return self._session

    def follow(self, session: StreamSession | None) -> None:
        """Move the focus to ``session``; ``changed`` fires even when it stays (a tab change)."""
        old = self._session
        if old is not session:
            if old is not None:
                old.started.disconnect(self.started)
                old.updated.disconnect(self.updated)
                old.finished.disconnect(self.finished)
            self._session = session
            if session is not None:
                session.started.connect(self.started)
                session.updated.connect(self.updated)
                session.finished.connect(self.finished)
        self.changed.emit(session)

    def watch(self, session: StreamSession) -> None:
        """Relay the ends of ``session``'s runs as ``anyFinished`` (every panel's session)."""
        if session not in self._watched:
            self._watched.append(session)
            session.finished.connect(self.anyFinished)
