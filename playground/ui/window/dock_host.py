"""The window's docks: the timing chart of the current run and the history of runs per route."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget

from playground.ui.window.menus import set_checked_quietly

if TYPE_CHECKING:
    from playground.protocol.capture import Capture
    from playground.ui.docks.history import HistoryView
    from playground.ui.docks.timing import TimingView
    from playground.ui.runtime.replay import ReplayControl
    from playground.ui.window.shell import MainWindow

__all__ = ["IDLE_MS", "Docks"]

IDLE_MS = 400  # the timing dock, hidden at startup, is built this long after it (or on use)


class Docks:
    """The history dock (built with this) and the timing dock (built in idle time or on use)."""

    def __init__(self, window: MainWindow) -> None:
        from playground.runs.history import RunHistory
        from playground.ui.docks.history import HistoryView
        from playground.ui.runtime.idle import when_idle

        self.window = window
        self.history_view: HistoryView
        self._timing_view: TimingView | None = None
        self._timing_dock: QDockWidget | None = None
        history = window.history if window.history is not None else RunHistory()
        view = HistoryView(
            history, interactive=window.interactive, secrets=window.run_files.secrets
        )
        view.openRequested.connect(self.open_run)
        dock = QDockWidget("History", window)
        dock.setObjectName("historyDock")
        dock.setWidget(view)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        dock.hide()
        dock.visibilityChanged.connect(self._history_visibility)
        self.history_view, self.history_dock = view, dock
        current = window.current_run
        # The recorder updates the index as a run finishes, in any panel; list it on the next turn.
        current.anyFinished.connect(lambda _s: QTimer.singleShot(0, self._refresh_history))
        current.changed.connect(lambda _s: view.set_route(window.current_panel().route))
        view.set_route(window.current_panel().route)
        when_idle(window, self._ensure_timing, IDLE_MS)

    # ---- timing ------------------------------------------------------------------------------
    @property
    def timing_view(self) -> TimingView:
        return self._ensure_timing()[0]

    @property
    def timing_dock(self) -> QDockWidget:
        return self._ensure_timing()[1]

    def _ensure_timing(self) -> tuple[TimingView, QDockWidget]:
        if self._timing_view is None or self._timing_dock is None:
            from playground.ui.docks.timing import TimingView

            window = self.window
            view = TimingView()
            dock = QDockWidget("Timing — where the time went", window)
            dock.setObjectName("timingDock")
            dock.setWidget(view)
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            dock.hide()
            dock.visibilityChanged.connect(self._timing_visibility)
            window.selection.join(view)
            view.subscribe(window.current_run)
            self._timing_view, self._timing_dock = view, dock
        return self._timing_view, self._timing_dock

    def show_timing(self, on: bool) -> None:
        dock = self.timing_dock
        if dock.isVisible() != on:
            dock.setVisible(on)
            if on:
                dock.raise_()

    def _timing_visibility(self, visible: bool) -> None:
        set_checked_quietly(self.window.menus.timing_action, visible)
        if visible and self._timing_view is not None:
            self._timing_view.recompute()

    # ---- history -----------------------------------------------------------------------------
    def show_history(self, on: bool) -> None:
        if self.history_dock.isVisible() != on:
            if on:
                self._make_room(self.history_dock)
            self.history_dock.setVisible(on)
            if on:
                self.history_dock.raise_()

    def _make_room(self, dock: QDockWidget) -> None:
        """A side dock that would push the window wider than it is goes below instead.

        A dock beside the panels adds its minimum width to the window's: opening History
        widened a 1024 px window past the screen, and it stayed so.
        """
        window = self.window
        if window.dockWidgetArea(dock) not in (
            Qt.DockWidgetArea.LeftDockWidgetArea,
            Qt.DockWidgetArea.RightDockWidgetArea,
        ):
            return
        central = window.centralWidget()
        beside = central.minimumSizeHint().width() if central is not None else 0
        if beside + dock.minimumSizeHint().width() + 8 > window.width():
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)

    def _history_visibility(self, visible: bool) -> None:
        set_checked_quietly(self.window.menus.history_action, visible)
        if visible:
            self.history_view.refresh()

    def _refresh_history(self) -> None:
        if self.history_dock.isVisible():
            self.history_view.refresh()

    def open_run(self, capture: Capture, route: str, speed: float = 0.0) -> ReplayControl:
        """Replay ``capture`` into the panel of ``route`` (the history's Reopen)."""
        window = self.window
        panel = window.show_panel(route) if route in window.panels else window.current_panel()
        window.show_request_of(panel, capture)
        control = panel.session.start_replay(capture, speed)
        from playground.ui.docks.history import restore_thread

        restore_thread(panel, capture)  # the thread as that run sent it, and its answer
        if speed > 0:
            window.replay.show_bar(True)
        return control
