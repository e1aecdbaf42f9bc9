"""MainWindow: the provider bar, a tab per route panel, the inspector following the current one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QSettings, QTimer, Signal
from PySide6.QtWidgets import QMainWindow

from playground.protocol.requests import ROUTE_NAMES
from playground.ui.runtime import gc_schedule, lazy, reader_pause

# Only what the window's empty first frame needs is imported here: the contents' modules (and
# PySide's ``Qt`` namespace, 93 enum classes built on its first use, 23 ms) are imported by
# ``build`` (startup time: see ``MainWindow.build``).
if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent
    from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QWidget

    from playground.protocol.capture import Capture
    from playground.runs.history import RunHistory
    from playground.sim.server import SimServer
    from playground.ui.docks.traffic.dock import TrafficDock
    from playground.ui.inspector.inspector import Inspector
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.runtime.current_run import CurrentRun
    from playground.ui.window.compare import CompareLauncher
    from playground.ui.window.dock_host import Docks
    from playground.ui.window.inspector_feed import InspectorFeed
    from playground.ui.window.kept import ConversationKeeper
    from playground.ui.window.menus import Menus
    from playground.ui.window.panel_map import PanelMap
    from playground.ui.window.provider_bar import ProviderBar
    from playground.ui.window.replay_bar import ReplayBar
    from playground.ui.window.requests import WindowRequests
    from playground.ui.window.run_files import RunFiles
    from playground.ui.window.selection import ItemView, SelectionHub
    from playground.ui.window.tab_fit import TabFit

__all__ = ["MainWindow"]

IDLE_BUILD_MS = 250  # after the first frame, the panels not yet shown are built one per tick
IDLE_STEP_MS = 30  # ... this far apart, so input and painting go on between them
UNPAINTED_MS = 1000  # a shown window that never paints (minimised...) gets its idle work anyway


class MainWindow(QMainWindow):
    """The playground window; ``closed`` fires once when it closes (the app cleans up)."""

    # The contents (``build``; ``contents.build_widgets`` makes the widgets among them).
    provider_bar: ProviderBar
    tabs: QTabWidget
    tab_fit: TabFit
    inspector: Inspector
    splitter: QSplitter
    status_message: QLabel

    closed = Signal()
    panelBuilt = Signal(object)  # a route panel was just built (on demand or in idle time)
    firstFrame = Signal()  # the window has painted its contents for the first time
    emptyFrame = Signal()  # ... before that, its empty frame (``build=False``: the entry point)

    def __init__(
        self,
        settings: QSettings | None = None,
        *,
        simulator_url: str | None = None,
        start_simulator: bool = True,
        interactive: bool = True,
        build: bool = True,
    ) -> None:
        """The whole window; with ``build=False`` only its frame, to show and paint at once,
        and ``build()`` makes the rest (the entry point does that after the first paint)."""
        super().__init__()
        self.settings = settings if settings is not None else QSettings("playground", "playground")
        self.interactive = interactive  # headless runs never open a dialog
        self.simulator: SimServer | None = None
        self._simulator_url = simulator_url
        self._start_simulator = start_simulator
        self._closing = False
        self._remembered = False
        self._deferring = False
        self._built = False
        # What the first frame does not show is set up right after it, or the moment something
        # asks for it (the history, the docks, the replay bar): startup time.
        self._painted = False
        self._empty_painted = False
        self._after_done = False
        self._history: RunHistory | None = None
        self._history_opened = False
        self._docks: Docks | None = None
        self._replay: ReplayBar | None = None
        self._compare: CompareLauncher | None = None
        self._kept: ConversationKeeper | None = None
        self.setWindowTitle("Playground")
        self.setAcceptDrops(True)
        self.resize(1560, 920)
        if build:
            self.build()

    def build(self) -> None:
        """The window's contents: the provider bar, the route tabs with the current panel, the
        inspector, the menus and the status bar. Once; a no-op after that. The entry point
        calls it right after the window's empty first paint: half of what our start added to a
        bare window's was PySide building enum classes for the contents (186, about 50 ms on a
        2-core AMD EPYC), none of which that paint needs (docs/architecture.md, "Startup")."""
        if self._built:
            return
        self._built = True
        from playground.ui.runtime.current_run import CurrentRun
        from playground.ui.window.contents import build_widgets, share_splitter
        from playground.ui.window.inspector_feed import InspectorFeed
        from playground.ui.window.menus import Menus
        from playground.ui.window.panel_map import PanelMap
        from playground.ui.window.requests import WindowRequests
        from playground.ui.window.run_files import RunFiles
        from playground.ui.window.selection import SelectionHub

        self._idle_started = False
        self._sized = False
        self.splitter_restored = False
        # A placeholder page stands in for each panel until the panel is needed or idle time
        # after the first frame builds it (startup time).
        self.panels: PanelMap = PanelMap(self._build_panel, self.panelBuilt.emit)
        self._pages: dict[str, QWidget] = build_widgets(self)
        self.current_run: CurrentRun = CurrentRun(self)
        self.selection: SelectionHub = SelectionHub(self.inspector, self._panel_views, self)
        self.inspector_feed: InspectorFeed = InspectorFeed(self, self.inspector, self.current_run)
        self.followed: RoutePanel | None = None
        self.tabs.currentChanged.connect(self._follow_current)
        self.requests: WindowRequests = WindowRequests(self)
        self.run_files: RunFiles = RunFiles(self)
        self.menus: Menus = Menus(self)
        self.file_menu, self.run_menu = self.menus.file_menu, self.menus.run_menu
        self.view_menu, self.help_menu = self.menus.view_menu, self.menus.help_menu
        self.provider_bar.changed.connect(self._provider_changed)
        self.provider_bar.settingsRequested.connect(self.open_settings)
        self.provider_bar.modelsFailed.connect(lambda why: self.statusBar().showMessage(why, 15000))
        if self._simulator_url:
            self.provider_bar.set_simulator_url(self._simulator_url)
        # The simulator (starlette + uvicorn imports, a thread) starts right after the first
        # frame rather than before it (startup time); a Send before then starts it at once.
        self._deferring = True
        self._provider_changed()
        self._deferring = False
        self._follow_current()
        # A window never shown still gets its idle-time work; a shown one after its first paint.
        QTimer.singleShot(0, self, self._after_first_frame)
        self.statusBar().showMessage(
            "Ready: on the built-in simulator. Type a prompt and press Ctrl+Enter."
            if self.provider_bar.provider().builtin
            else f"Ready: {self.provider_bar.provider().name}.",
            8000,
        )
        if self.isVisible():  # shown empty before (the entry point): laid out now
            share_splitter(self, now_shown=True)
            self._sized = True

    # ---- what the first frame does not show (startup time) --------------------------------------
    @property
    def painted(self) -> bool:
        """Whether the window has painted its first frame with its contents."""
        return self._painted

    @property
    def built(self) -> bool:
        """Whether the window's contents are built (``build``)."""
        return self._built

    @property
    def empty_painted(self) -> bool:
        """Whether the window has painted at all (before ``build``: its empty frame)."""
        return self._empty_painted

    @property
    def closing(self) -> bool:
        """Whether the window was closed (its streams are being stopped)."""
        return self._closing

    @property
    def history(self) -> RunHistory | None:
        """The run history (playground.runs.history), opened on first use; None if unavailable."""
        if not self._history_opened:
            self._history_opened = True
            from playground.ui.window.dock_host import open_history

            self._history = open_history()
            if self._history is not None and self._history.messages:
                # A history set aside or recovered says so, over the "Ready" line.
                self.statusBar().showMessage(" ".join(self._history.messages), 15000)
                if not self.interactive:  # headless: nobody reads the status bar
                    print(f"playground: {' '.join(self._history.messages)}", file=sys.stderr)
        return self._history

    @property
    def kept(self) -> ConversationKeeper:
        """The conversational panels' conversations, kept as they change (window/kept.py)."""
        if self._kept is None:
            from playground.ui.window.kept import ConversationKeeper

            self._kept = ConversationKeeper(self)
        return self._kept

    @property
    def docks(self) -> Docks:
        """The timing and history docks, built on first use or right after the first frame."""
        if self._docks is None:
            from playground.ui.window.dock_host import Docks

            self._docks = Docks(self)
            self._docks.visibilityChanged.connect(self.menus.dock_shown)
        return self._docks

    @property
    def docks_built(self) -> bool:
        return self._docks is not None

    @property
    def compare(self) -> CompareLauncher:
        """Compare's launcher (the compare window itself opens on first use)."""
        if self._compare is None:
            from playground.ui.window.compare import CompareLauncher

            self._compare = CompareLauncher(self)
        return self._compare

    @property
    def replay(self) -> ReplayBar:
        """The replay toolbar, built on first use or right after the first frame."""
        if self._replay is None:
            from playground.ui.window.replay_bar import ReplayBar

            self._replay = ReplayBar(self)
        return self._replay

    def start_proxy(self, upstream: str, port: int = 0, save: Path | None = None) -> str:
        """Run the recording proxy in front of ``upstream`` and show its Traffic panel."""
        return self.docks.start_traffic(upstream, port, save)

    @property
    def traffic(self) -> TrafficDock | None:
        """The Traffic dock (the proxy and its panel), once started."""
        return self._docks.traffic if self._docks is not None else None

    def event(self, event: QEvent) -> bool:
        if reader_pause.active() and event.type() == QEvent.Type.UpdateRequest:
            # The window's paint, every dirty widget in it, with the readers paused: it enters
            # Python for each widget subclassed there (a paintEvent, a model's data() per cell),
            # and each entry waited up to the switch interval for the GIL behind a busy reader.
            # Under a flood on a 2-core AMD EPYC a paint after a Markdown step took 10-26 ms
            # on the wall clock, its text view's own paint 2-7 ms of that.
            with reader_pause.paused():
                return super().event(event)
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._empty_painted:
            self._empty_painted = True
            if not self._built:
                self.emptyFrame.emit()
        if not self._painted and self._built:
            self._painted = True
            self.firstFrame.emit()
            QTimer.singleShot(0, self, self._after_first_frame)

    # ---- structure ------------------------------------------------------------------------------
    def current_panel(self) -> RoutePanel:
        from playground.ui.window.panel_map import Placeholder

        widget = self.tabs.currentWidget()
        if isinstance(widget, Placeholder):
            return self.panels[widget.route]
        return widget  # type: ignore[return-value]  # a tab's page is a placeholder or a panel

    def _build_panel(self, route: str) -> RoutePanel:
        """Build ``route``'s panel and put it in its tab in place of the placeholder."""
        from playground.ui.panels.route_panel import RoutePanel
        from playground.ui.runtime.timeouts import first_byte_timeout, stall_seconds
        from playground.ui.views.routes import route_icon
        from playground.ui.window.panel_links import wire_panel

        # The first frame's panel shows its empty state: its output widgets wait for idle time.
        panel = RoutePanel(route, self.requests.panel_spec, defer_output=not self._after_done)
        panel.session.stall_seconds = stall_seconds(self.settings)
        panel.session.first_byte_timeout = first_byte_timeout(self.settings)
        # The history opens when the first run starts, if nothing opened it before.
        panel.session.recorder_factory = self.requests.recorder_for(panel)
        wire_panel(self, panel)
        from playground.ui.window.remembered import restore_panel

        restore_panel(self, panel)
        provider = self.provider_bar.provider()
        panel.set_on_simulator(provider.builtin)
        panel.editor.set_model(self.provider_bar.model_for(route))
        page = self._pages[route]
        index = self.tabs.indexOf(page)
        current = self.tabs.currentIndex()
        enabled = self.tabs.isTabEnabled(index)
        # The swap is not a tab change: nobody (the inspector, the docks) hears about it.
        blocked = self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, panel, route_icon(route), panel.title)
            self.tabs.setTabEnabled(index, enabled)
            self.tabs.setCurrentIndex(current)
            self.tab_fit.apply()  # the new tab has its full title: icons only if narrow
        finally:
            self.tabs.blockSignals(blocked)
        self._pages[route] = panel
        page.deleteLater()
        return panel

    def _build_idle(self) -> None:
        """Build one panel not built yet, then come back for the next (idle time)."""
        if self._closing:
            return
        from playground.ui.runtime.idle import when_idle

        for panel in self.panels.built().values():
            if not panel.output_built:  # the first frame's panel: its output widgets first
                panel.ensure_output()
                when_idle(self, self._build_idle, IDLE_STEP_MS)
                return
        for route in ROUTE_NAMES:
            if not self.panels.is_built(route):
                self.panels[route]
                when_idle(self, self._build_idle, IDLE_STEP_MS)
                return

    def show_panel(self, route: str) -> RoutePanel:
        panel = self.panels[route]
        self.tabs.setCurrentWidget(panel)
        return panel

    # ---- provider and requests ---
    def ensure_simulator(self) -> str:
        """Start the built-in simulator in-process (127.0.0.1, a free port) unless it runs."""
        if self.simulator is None and not self.provider_bar.simulator_url:
            from playground.sim.server import SimServer

            self.simulator = SimServer("127.0.0.1", 0).start()
            self.provider_bar.set_simulator_url(self.simulator.base_url)
        return self.provider_bar.simulator_url

    def _after_first_frame(self, force: bool = False) -> None:
        if self._closing or self._after_done:
            return
        if self.isVisible() and not self._painted and not force:
            # Shown but not painted yet: the first paint calls back (or this, a while later).
            QTimer.singleShot(UNPAINTED_MS, self, lambda: self._after_first_frame(True))
            return
        self._after_done = True
        # Before any thread of ours runs Python (the simulator below, a run's reader): garbage
        # that holds a Qt object must be collected on this thread (gc_schedule.py).
        gc_schedule.collect_on_ui_thread()
        self.inspector.ensure_model()
        self.history  # noqa: B018 - opened now, not before the first frame
        self.docks  # noqa: B018 - the history dock; the timing dock follows in idle time
        self.replay  # noqa: B018 - the replay toolbar
        if self.provider_bar.provider().builtin and self._start_simulator:
            self.ensure_simulator()
        self.provider_bar.load_models()
        # A new user types first: the cursor waits in the message box, as in the consoles.
        # Left on the first widget of the tab order (the provider), the first letters typed
        # picked another provider by its initial (seen driving a real window with xdotool).
        prompt = self.current_panel().editor.prompt_box()
        if prompt is not None:
            prompt.setFocus()
        if not self._idle_started:
            self._idle_started = True
            from playground.ui.runtime.idle import when_idle

            # A stream (or its last moments) is no idle time: building a panel blocks its frames.
            when_idle(self, self._build_idle, IDLE_BUILD_MS)

    def _provider_changed(self) -> None:
        provider = self.provider_bar.provider()
        if provider.builtin and self._start_simulator and not self._deferring:
            self.ensure_simulator()
        for route, panel in self.panels.built().items():
            panel.set_on_simulator(provider.builtin)
            panel.editor.set_model(self.provider_bar.model_for(route))
        for route, page in self._pages.items():
            self.tabs.setTabEnabled(self.tabs.indexOf(page), route in provider.routes)

    def open_settings(self) -> None:
        from playground.ui.runtime.timeouts import first_byte_timeout, stall_seconds
        from playground.ui.window.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            for panel in self.panels.built().values():
                panel.session.stall_seconds = stall_seconds(self.settings)
                panel.session.first_byte_timeout = first_byte_timeout(self.settings)
        self.provider_bar.update_key_label()

    # ---- the inspector follows the current panel's session --------------------------------------
    def _panel_views(self, build: bool) -> list[ItemView]:
        """The current panel's output widgets (``build``: build them first if deferred)."""
        panel = self.followed if not build else self.current_panel()
        if panel is None:
            return []
        widgets = panel.widgets if build else panel.built_widgets()
        return list(widgets.values())  # type: ignore[arg-type]

    def _follow_current(self, *_args: object) -> None:
        panel = self.current_panel()
        self.provider_bar.set_route(panel.route)
        self.followed = panel
        self.current_run.follow(panel.session)

    # ---- captures ---
    def open_capture(self, path: str) -> None:
        """Open a capture or raw `curl -N` output into the right panel and replay it instantly."""
        self.run_files.open_capture(path)

    def show_request_of(self, panel: RoutePanel, capture: Capture) -> None:
        """Put a capture's request body into ``panel``'s editor (a JSON body it can show)."""
        body = (capture.request or {}).get("body")
        if isinstance(body, dict):
            panel.editor.set_body(body)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._built and event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.run_files.open_dropped(url.toLocalFile())
                event.acceptProposedAction()
                return

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._built and not self._sized:  # the first show knows the real width
            from playground.ui.window.contents import share_splitter

            share_splitter(self)
            self._sized = True

    # ---- closing ---
    def closeEvent(self, event: QCloseEvent) -> None:
        from playground.ui.window.remembered import remember

        # (Closed before its contents were made, it has nothing to remember.)
        if self._built and (not self._closing or not self._remembered):
            self._remembered = True
            remember(self)
        if not self._closing:
            self.stop_all()
            self.closed.emit()
        super().closeEvent(event)

    def stop_all(self) -> None:
        """The window is closing: stop every stream now (``shutdown`` awaits their ends)."""
        self._closing = True
        if not self._built:
            return
        for panel in self.panels.built().values():
            panel.session.stop()

    async def shutdown(self) -> None:
        """Wait for every stream to close, then stop the simulator (no pending tasks at exit)."""
        if not self._built:
            return
        await lazy.gather_quietly(*(p.session.aclose() for p in self.panels.built().values()))
        await self.menus.evaluate.aclose()  # a grid's streams stopped, its experiment saved
        await self.provider_bar.aclose()
        server = self.traffic.shutdown() if self.traffic is not None else None
        if server is not None:
            await lazy.in_thread(server.stop)
        if self.simulator is not None:
            simulator, self.simulator = self.simulator, None
            await lazy.in_thread(simulator.stop)
        from playground.runs.writer import flush_shared

        await lazy.in_thread(flush_shared)  # every run's files complete before the process ends
