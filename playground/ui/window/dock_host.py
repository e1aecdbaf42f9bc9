"""The window's docks, declared once (``DOCKS``), built by ``Docks`` and wired to the window.

A dock's widget (ui/docks/) knows no window: it follows the current run and emits what the user
asks of it. What it asks is done here, by the window's own parts (the panels, the run files, the
replay bar). The View menu builds a toggle for every dock that has one (ui/window/menus.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QWidget

from playground.ui.window.run_files import RunFiles

if TYPE_CHECKING:
    from playground.protocol.capture import Capture
    from playground.runs.history import RunHistory
    from playground.ui.docks.conversations import ConversationsView
    from playground.ui.docks.history import HistoryView
    from playground.ui.docks.timing import TimingView
    from playground.ui.docks.traffic.dock import TrafficDock
    from playground.ui.docks.traffic.feed import TrafficEntry
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.runtime.replay import ReplayControl
    from playground.ui.runtime.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["DOCKS", "IDLE_MS", "DockSpec", "Docks", "ExchangeFiles", "open_history"]

IDLE_MS = 400  # a dock built in idle time is built this long after the docks (or on use)
_LEFT = Qt.DockWidgetArea.LeftDockWidgetArea
_BOTTOM = Qt.DockWidgetArea.BottomDockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    """One dock: a new dock is one entry in ``DOCKS``, its widget in ui/docks/."""

    name: str
    title: str
    area: Qt.DockWidgetArea
    # Makes the dock's widget and wires it to the window; a QDockWidget (the Traffic dock, which
    # owns the proxy) is used as it is, any other widget is put in a QDockWidget.
    build: Callable[[Docks], QWidget]
    toggle: str | None = None  # the View menu's checkable action; None: opened another way
    shortcut: str | None = None
    when: str = "use"  # "now": with the docks; "idle": in idle time after them; "use": when used


class Docks(QObject):
    """Every dock of ``DOCKS``: built when its spec says, shown and hidden by name."""

    # A dock was shown or hidden (by its toggle, its close button or the code): the menus follow.
    visibilityChanged = Signal(str, bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        from playground.ui.runtime.idle import when_idle

        self.window = window
        self._docks: dict[str, QDockWidget] = {}
        self._widgets: dict[str, QWidget] = {}
        self.last_files: ExchangeFiles | None = None
        for spec in DOCKS:
            if spec.when == "now":
                self.dock(spec.name)
            elif spec.when == "idle":
                when_idle(window, partial(self.dock, spec.name), IDLE_MS)

    # ---- any dock ----------------------------------------------------------------------------
    def dock(self, name: str) -> QDockWidget:
        """The dock ``name``, built on first use."""
        dock = self._docks.get(name)
        if dock is None:
            spec = next(s for s in DOCKS if s.name == name)
            widget = spec.build(self)
            if isinstance(widget, QDockWidget):
                dock = widget
            else:
                dock = QDockWidget(spec.title, self.window)
                dock.setObjectName(f"{name}Dock")
                dock.setWidget(widget)
            self.window.addDockWidget(spec.area, dock)
            dock.hide()
            dock.visibilityChanged.connect(lambda on, n=name: self._visibility(n, on))
            self._docks[name], self._widgets[name] = dock, widget
        return dock

    def built(self, name: str) -> bool:
        return name in self._docks

    def show(self, name: str, on: bool) -> None:
        dock = self.dock(name)
        if dock.isVisible() != on:
            if on:
                self._make_room(dock)
                self._beside(name, dock)
            dock.setVisible(on)
            if on:
                dock.raise_()

    def _visibility(self, name: str, visible: bool) -> None:
        if visible and name == "timing":
            self.timing_view.recompute()
        if visible and name == "history":
            self.history_view.refresh()
        if visible and name == "conversations":
            self.conversations_view.refresh()
        self.visibilityChanged.emit(name, visible)

    def _beside(self, name: str, dock: QDockWidget) -> None:
        """History and Conversations shown together share one place, as two tabs (tabbed only
        when both show: a tab group of hidden docks left an empty tab bar in the window)."""
        other = {"history": "conversations", "conversations": "history"}.get(name)
        shown = self._docks.get(other) if other is not None else None
        if shown is not None and shown.isVisible() and not shown.isFloating():
            self.window.tabifyDockWidget(shown, dock)

    def _make_room(self, dock: QDockWidget) -> None:
        """A side dock that would push the window wider than it is goes below instead.

        A dock beside the panels adds its minimum width to the window's: opening History
        widened a 1024 px window past the screen, and it stayed so.
        """
        window = self.window
        if window.dockWidgetArea(dock) not in (_LEFT, Qt.DockWidgetArea.RightDockWidgetArea):
            return
        central = window.centralWidget()
        beside = central.minimumSizeHint().width() if central is not None else 0
        if beside + dock.minimumSizeHint().width() + 8 > window.width():
            window.addDockWidget(_BOTTOM, dock)

    # ---- each dock's widget, typed ------------------------------------------------------------
    @property
    def history_view(self) -> HistoryView:
        self.dock("history")
        return self._widgets["history"]  # type: ignore[return-value]  # built by _history

    @property
    def conversations_view(self) -> ConversationsView:
        self.dock("conversations")
        return self._widgets["conversations"]  # type: ignore[return-value]  # _conversations

    @property
    def timing_view(self) -> TimingView:
        self.dock("timing")
        return self._widgets["timing"]  # type: ignore[return-value]  # built by _timing

    @property
    def traffic(self) -> TrafficDock | None:
        """The Traffic dock, once the proxy was started (None before)."""
        return self._widgets.get("traffic")  # type: ignore[return-value]  # built by _traffic

    # ---- history -----------------------------------------------------------------------------
    def _history(self) -> QWidget:
        from playground.runs.history import RunHistory
        from playground.ui.docks.history import HistoryView

        window = self.window
        history = window.history if window.history is not None else RunHistory()
        view = HistoryView(
            history, interactive=window.interactive, secrets=window.run_files.secrets
        )
        view.openRequested.connect(self.open_run)
        current = window.current_run
        # The recorder updates the index as a run finishes, in any panel; list it on the next turn.
        current.anyFinished.connect(lambda _s: QTimer.singleShot(0, self._refresh_history))
        current.changed.connect(lambda _s: view.set_route(window.current_panel().route))
        view.set_route(window.current_panel().route)
        return view

    def _refresh_history(self) -> None:
        if self.dock("history").isVisible():
            self.history_view.refresh()

    def open_run(self, capture: Capture, route: str, speed: float = 0.0) -> ReplayControl:
        """Replay ``capture`` into the panel of ``route`` (the history's Reopen)."""
        window = self.window
        panel = window.show_panel(route) if route in window.panels else window.current_panel()
        window.show_request_of(panel, capture)
        control = panel.session.start_replay(capture, speed)
        from playground.ui.conversation.restore import restore_thread

        restore_thread(panel, capture)  # the thread as that run sent it, and its answer
        if speed > 0:
            window.replay.show_bar(True)
        return control

    # ---- conversations -----------------------------------------------------------------------
    def _conversations(self) -> QWidget:
        from playground.protocol.conversation.bodies import CONVERSATION_ROUTES
        from playground.ui.docks.conversations import ConversationsView

        window = self.window
        view = ConversationsView(window.kept.store, interactive=window.interactive)
        view.openRequested.connect(self.open_conversation)
        view.runRequested.connect(self.show_run_in_history)
        window.kept.saved.connect(lambda _id: self._refresh_conversations())

        def follow_panel(_session: object) -> None:
            # Beside History, in one tab group: the conversational panels show their
            # conversations, the others their runs.
            conversations, history = self._docks.get("conversations"), self._docks.get("history")
            if conversations is None or history is None:
                return
            if window.current_panel().route in CONVERSATION_ROUTES:
                if history.isVisible() and not conversations.isVisible():
                    self.show("conversations", True)
                conversations.raise_()
            elif history.isVisible():
                history.raise_()

        window.current_run.changed.connect(follow_panel)
        return view

    def _refresh_conversations(self) -> None:
        if self.dock("conversations").isVisible():
            self.conversations_view.refresh()

    def open_conversation(self, conversation_id: str) -> RoutePanel | None:
        """Open a kept conversation in its route's panel. The window has one panel per route,
        so it cannot open beside: a panel holding work no kept conversation has asks first, and
        its default keeps that work as a conversation of its own (headless, it is kept)."""
        from playground.runs.conversations import ConversationError

        window = self.window
        kept = window.kept
        try:
            saved = kept.store.load(conversation_id)
        except ConversationError as exc:
            window.statusBar().showMessage(str(exc), 10000)
            return None
        if saved.route not in window.panels:
            window.statusBar().showMessage(f"There is no {saved.route} panel.", 10000)
            return None
        panel = window.panels[saved.route]
        if kept.unsaved_work(panel):
            keep = True
            if window.interactive:
                from PySide6.QtWidgets import QMessageBox

                buttons = QMessageBox.StandardButton
                answer = QMessageBox.question(
                    window,
                    "Open the conversation?",
                    f"The {panel.title} panel holds a conversation that is not kept yet. "
                    "Keep it in the Conversations list before opening the other?",
                    buttons.Save | buttons.Discard | buttons.Cancel,
                    buttons.Save,
                )
                if answer == buttons.Cancel:
                    return None
                keep = answer == buttons.Save
            if keep:
                kept.keep_now(panel)
        panel = kept.open(saved)
        window.statusBar().showMessage(
            f"Opened “{saved.title}” ({saved.turns} turns): Send continues it.", 8000
        )
        return panel

    def show_run_in_history(self, run_id: str) -> None:
        """A conversation's run, selected in the History dock (reopen, export, bug report)."""
        self.show("history", True)
        view = self.history_view
        view.all_routes.setChecked(True)
        view.refresh()
        if not view.select(run_id):
            self.window.statusBar().showMessage(
                "That run is no longer in the history (deleted, or pruned as older runs are).",
                8000,
            )

    # ---- timing ------------------------------------------------------------------------------
    def _timing(self) -> QWidget:
        from playground.ui.docks.timing import TimingView

        view = TimingView()
        self.window.selection.join(view)
        view.subscribe(self.window.current_run)
        return view

    # ---- traffic -----------------------------------------------------------------------------
    def _traffic(self) -> QWidget:
        from playground.ui.docks.traffic.dock import TrafficDock

        window = self.window
        dock = TrafficDock(window.current_run, interactive=window.interactive, parent=window)
        dock.openRequested.connect(self.open_exchange)
        dock.saveRequested.connect(lambda e: self.exchange_files(e).save_capture())
        dock.exportRequested.connect(lambda e, f: self.exchange_files(e).export(f))
        dock.itemActivated.connect(window.selection.widget_activated)
        window.inspector.itemSelected.connect(dock.row_selected)
        return dock

    def start_traffic(self, upstream: str, port: int, save: Path | None) -> str:
        """Run the recording proxy in front of ``upstream`` in the Traffic dock; its address."""
        self.dock("traffic")
        traffic = self.traffic
        assert traffic is not None
        return traffic.start(upstream, port, save)

    def exchange_files(self, entry: TrafficEntry) -> ExchangeFiles:
        """The File menu's save and export, on the proxied exchange ``entry``."""
        self.last_files = ExchangeFiles(self.window, entry)
        return self.last_files

    def open_exchange(self, entry: TrafficEntry) -> None:
        """The exchange's request (thread, system, tools, parameters, model) in its panel."""
        from playground.ui.docks.traffic.panel import request_body

        window = self.window
        route = entry.ex.route
        body = request_body(entry)
        if route is None or route not in window.panels or body is None:
            window.statusBar().showMessage("This exchange has no JSON request to open.", 8000)
            return
        panel = window.show_panel(route)
        panel.editor.set_body(body)
        model = body.get("model")
        if isinstance(model, str) and model:
            panel.editor.set_model(model)
        window.statusBar().showMessage(
            f"The {entry.ex.method} {entry.ex.path} request is in the {panel.title} panel: "
            "edit it and press Send.",
            8000,
        )


class ExchangeFiles(RunFiles):
    """The File menu's save and export, on an exchange's session instead of the panel's."""

    def __init__(self, window: MainWindow, entry: TrafficEntry) -> None:
        super().__init__(window)
        self.entry = entry

    def session(self) -> StreamSession:
        assert self.entry.session is not None
        return self.entry.session


def open_history() -> RunHistory | None:
    """The run history; None when its folder cannot be used (the window opens anyway)."""
    from playground.runs.history import RunHistory
    from playground.runs.writer import shared_writer

    try:  # its fsync and renames on the writer's thread: the UI thread never waits on the disk
        return RunHistory(writer=shared_writer())
    except Exception:  # an unwritable data folder must not keep the window from opening
        return None


# The docks, in the View menu's order. A new dock: its widget in ui/docks/, one entry here.
DOCKS: tuple[DockSpec, ...] = (
    DockSpec(
        "timing", "Timing — where the time went", _BOTTOM, Docks._timing,
        "&Timing", "Ctrl+T", when="idle",
    ),
    DockSpec("history", "History", _LEFT, Docks._history, "&History", "Ctrl+H", when="now"),
    DockSpec(
        "conversations", "Conversations", _LEFT, Docks._conversations,
        "&Conversations", "Ctrl+Shift+H", when="idle",
    ),
    DockSpec("traffic", "Traffic", _BOTTOM, Docks._traffic),  # File > Record traffic…
)
