"""MainWindow: the provider bar, a tab per route panel, the inspector following the current one."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QPaintEvent,
)
from PySide6.QtWidgets import QLabel, QMainWindow, QSplitter, QStyle, QTabWidget, QToolBar, QWidget

from playground.protocol.requests import ROUTE_NAMES, route_spec
from playground.ui.panels.route_panel import RoutePanel
from playground.ui.provider_bar import ProviderBar
from playground.ui.timeouts import first_byte_timeout, stall_seconds

if TYPE_CHECKING:
    from playground.sim.server import SimServer
    from playground.transport.providers import Provider
    from playground.transport.spec import RequestSpec
    from playground.ui.inspector.inspector import Inspector
    from playground.ui.selection import ItemView

__all__ = ["MainWindow"]

IDLE_BUILD_MS = 250  # after the first frame, the panels not yet shown are built one per tick
IDLE_STEP_MS = 30  # ... this far apart, so input and painting go on between them
UNPAINTED_MS = 1000  # a shown window that never paints (minimised...) gets its idle work anyway
INSPECTOR_MS = 100  # the timeline takes new rows at most this often while a stream runs
_BODY_SHOWN = 64 * 1024  # bytes of an error body shown in the response view

_TAB_ICONS = {
    "chat": QStyle.StandardPixmap.SP_MessageBoxQuestion,
    "responses": QStyle.StandardPixmap.SP_FileDialogContentsView,
    "messages": QStyle.StandardPixmap.SP_FileDialogInfoView,
    "images": QStyle.StandardPixmap.SP_DesktopIcon,
    "speech": QStyle.StandardPixmap.SP_MediaVolume,
    "transcription": QStyle.StandardPixmap.SP_FileIcon,
    "music": QStyle.StandardPixmap.SP_MediaSeekForward,
}


class _Placeholder(QWidget):
    """The tab page of a route whose panel is not built yet (issue 7: startup)."""

    def __init__(self, route: str) -> None:
        super().__init__()
        self.route = route


class PanelMap(Mapping[str, RoutePanel]):
    """``MainWindow.panels``: every route's panel by name, built the first time it is asked for.

    Issue 7: building all seven panels before the first paint tripled the startup time, so only
    the current one is built then; ``in``, ``len`` and iterating the keys never build anything,
    ``panels[route]``, ``.values()`` and ``.items()`` build what they hand out. Code that only
    needs to touch what exists (closing, settings) uses ``built()``.
    """

    def __init__(self, build: Callable[[str], RoutePanel]) -> None:
        self._build = build
        self._built: dict[str, RoutePanel] = {}

    def __getitem__(self, route: str) -> RoutePanel:
        panel = self._built.get(route)
        if panel is None:
            if route not in ROUTE_NAMES:
                raise KeyError(route)
            panel = self._build(route)
            self._built[route] = panel
        return panel

    def __iter__(self) -> Iterator[str]:
        return iter(ROUTE_NAMES)

    def __len__(self) -> int:
        return len(ROUTE_NAMES)

    def __contains__(self, route: object) -> bool:
        return route in ROUTE_NAMES

    def is_built(self, route: str) -> bool:
        return route in self._built

    def built(self) -> dict[str, RoutePanel]:
        """The panels built so far, in route order (no building)."""
        return {r: self._built[r] for r in ROUTE_NAMES if r in self._built}


class MainWindow(QMainWindow):
    """The playground window (issue 4); ``closed`` fires once when it closes (the app cleans up)."""

    closed = Signal()
    panelBuilt = Signal(object)  # a route panel was just built (on demand or in idle time)
    firstFrame = Signal()  # the window has painted for the first time (the app starts asyncio)

    def __init__(
        self,
        settings: QSettings | None = None,
        *,
        simulator_url: str | None = None,
        start_simulator: bool = True,
        interactive: bool = True,
    ) -> None:
        super().__init__()
        self.settings = settings if settings is not None else QSettings("playground", "playground")
        self.interactive = interactive  # headless runs never open a dialog
        self.simulator: SimServer | None = None
        self._start_simulator = start_simulator
        self._closing = False
        self._deferring = False
        # Issue 7 (startup): what the first frame does not show is set up right after it, or
        # the moment something asks for it (the history, the extras' menus and docks).
        self._painted = False
        self._after_done = False
        self._history: Any = None
        self._history_opened = False
        self._extras: Any = None
        self._extras_tried = False
        self.setWindowTitle("Playground")
        self.setAcceptDrops(True)
        self.resize(1560, 920)

        self.provider_bar = ProviderBar(self.settings)
        toolbar = QToolBar("Provider")
        toolbar.setObjectName("providerToolbar")
        toolbar.setMovable(False)
        toolbar.addWidget(self.provider_bar)
        self.addToolBar(toolbar)

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # Every route has its tab from the start; a placeholder page stands in for a panel until
        # the panel is needed or idle time after the first frame builds it (issue 7: startup).
        self.panels = PanelMap(self._build_panel)
        self._pages: dict[str, QWidget] = {}
        for route in ROUTE_NAMES:
            page = _Placeholder(route)
            self._pages[route] = page
            self.tabs.addTab(page, self.style().standardIcon(_TAB_ICONS[route]), _title(route))
        self._idle_started = False

        from playground.ui.inspector.inspector import Inspector

        # Its timeline model (and the stream decoder) is built right after the first frame.
        self.inspector: Inspector = Inspector(defer_model=True)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(self.inspector)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([900, 660])
        self._sized = False
        self.setCentralWidget(self.splitter)
        from playground.ui.current_run import CurrentRun
        from playground.ui.selection import SelectionHub

        self.current_run = CurrentRun(self)
        self.selection = SelectionHub(self.inspector, self._panel_views, self)
        self.current_run.changed.connect(self._inspector_follow)
        self.current_run.started.connect(self._session_started)
        self.current_run.updated.connect(self._session_updated)
        self.current_run.finished.connect(self._session_finished)
        self._followed: RoutePanel | None = None
        self._inspector_pending: list[Any] = []  # timeline items not yet handed to the inspector
        self._inspector_last = 0.0
        self._inspector_timer = QTimer(self)
        self._inspector_timer.setSingleShot(True)
        self._inspector_timer.timeout.connect(self._flush_inspector)
        self._rows = 0  # timeline rows the inspector shows for the followed panel
        self._request_shown = False
        self._response_shown = False
        self.tabs.currentChanged.connect(self._follow_current)

        self.status_message = QLabel()
        self.statusBar().addWidget(self.status_message, 1)
        self._build_menus()
        self.provider_bar.changed.connect(self._provider_changed)
        self.provider_bar.settingsRequested.connect(self.open_settings)

        if simulator_url:
            self.provider_bar.set_simulator_url(simulator_url)
        # The simulator (starlette + uvicorn imports, a thread) starts right after the first
        # frame rather than before it (issue 7: startup); a Send before then starts it at once.
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

    # ---- what the first frame does not show (issue 7: startup) -----------------------------------
    @property
    def painted(self) -> bool:
        """Whether the window has painted its first frame."""
        return self._painted

    @property
    def closing(self) -> bool:
        """Whether the window was closed (its streams are being stopped)."""
        return self._closing

    @property
    def history(self) -> Any:
        """The run history (playground.runs.history), opened on first use; None if unavailable."""
        if not self._history_opened:
            self._history_opened = True
            self._history = _open_history()
            if self._history is not None and self._history.messages:
                # A history set aside or recovered says so, over the "Ready" line.
                self.statusBar().showMessage(" ".join(self._history.messages), 15000)
        return self._history

    @history.setter
    def history(self, value: Any) -> None:
        self._history_opened = True
        self._history = value

    @property
    def extras(self) -> Any:
        """Issue 6's menus, docks and replay controls (playground.ui.extras), installed on first
        use or right after the first frame; None if they could not load."""
        if self._extras is None and not self._extras_tried:
            self._extras_tried = True
            try:
                from playground.ui.extras import install_extras
            except ImportError:
                pass
            else:
                try:
                    install_extras(self)
                except Exception as exc:  # extras are extras: the window works without them
                    self.statusBar().showMessage(
                        f"Extras could not load ({type(exc).__name__}).", 8000
                    )
        return self._extras

    @extras.setter
    def extras(self, value: Any) -> None:
        self._extras = value

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.firstFrame.emit()
            QTimer.singleShot(0, self, self._after_first_frame)

    # ---- structure ------------------------------------------------------------------------------
    def current_panel(self) -> RoutePanel:
        widget = self.tabs.currentWidget()
        if isinstance(widget, _Placeholder):
            return self.panels[widget.route]
        assert isinstance(widget, RoutePanel)
        return widget

    def _build_panel(self, route: str) -> RoutePanel:
        """Build ``route``'s panel and put it in its tab in place of the placeholder."""
        # The first frame's panel shows its empty state: its output widgets wait for idle time.
        panel = RoutePanel(route, self._make_spec, defer_output=not self._after_done)
        panel.session.stall_seconds = stall_seconds(self.settings)
        panel.session.first_byte_timeout = first_byte_timeout(self.settings)
        # The history opens when the first run starts, if nothing opened it before.
        panel.session.recorder_factory = self._recorder_for(panel)
        self._wire_panel(panel)
        provider = self.provider_bar.provider()
        panel.set_on_simulator(provider.builtin)
        panel.editor.set_model(self.provider_bar.model_for(route))
        page = self._pages[route]
        index = self.tabs.indexOf(page)
        current = self.tabs.currentIndex()
        enabled = self.tabs.isTabEnabled(index)
        # The swap is not a tab change: nobody (the inspector, the extras) hears about it.
        blocked = self.tabs.blockSignals(True)
        try:
            self.tabs.removeTab(index)
            self.tabs.insertTab(
                index, panel, self.style().standardIcon(_TAB_ICONS[route]), panel.title
            )
            self.tabs.setTabEnabled(index, enabled)
            self.tabs.setCurrentIndex(current)
        finally:
            self.tabs.blockSignals(blocked)
        self._pages[route] = panel
        page.deleteLater()
        self.panels._built[route] = panel  # before panelBuilt: handlers may index the panels
        self.panelBuilt.emit(panel)
        return panel

    def _build_idle(self) -> None:
        """Build one panel not built yet, then come back for the next (idle time, issue 7)."""
        if self._closing:
            return
        from playground.ui.idle import when_idle

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

    def _build_menus(self) -> None:
        style = self.style()
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton), "&Open capture…", self
        )
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._open_dialog)
        file_menu.addAction(open_action)
        settings_action = QAction("&Settings…", self)
        settings_action.setShortcut(QKeySequence("Ctrl+,"))
        settings_action.triggered.connect(self.open_settings)
        file_menu.addAction(settings_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.file_menu = file_menu

        run_menu = self.menuBar().addMenu("&Run")
        send = QAction(style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), "&Send", self)
        send.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        send.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        send.triggered.connect(lambda: self.current_panel().send())
        stop = QAction(style.standardIcon(QStyle.StandardPixmap.SP_MediaStop), "S&top", self)
        stop.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        stop.triggered.connect(lambda: self.current_panel().stop())
        run_menu.addAction(send)
        run_menu.addAction(stop)
        self.send_action, self.stop_action = send, stop
        run_menu.addSeparator()
        for i, route in enumerate(ROUTE_NAMES, start=1):
            action = QAction(_title(route), self)
            action.setShortcut(QKeySequence(f"Ctrl+{i}"))
            action.triggered.connect(lambda _checked=False, r=route: self.show_panel(r))
            run_menu.addAction(action)
        self.run_menu = run_menu

        view_menu = self.menuBar().addMenu("&View")
        toggle = QAction("&Inspector", self)
        toggle.setCheckable(True)
        toggle.setChecked(True)
        toggle.setShortcut(QKeySequence("Ctrl+I"))
        toggle.toggled.connect(lambda on: self.inspector.setVisible(on))
        view_menu.addAction(toggle)
        self.view_menu = view_menu

        help_menu = self.menuBar().addMenu("&Help")
        about = QAction("&About", self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)
        self.help_menu = help_menu

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self,
            "About Playground",
            "A playground for OpenAI-compatible inference gateways: each route's stream in live "
            "widgets beside the raw server-sent events that carried it.",
        )

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
        self.inspector.ensure_model()
        self.history  # noqa: B018 - opened now, not before the first frame
        self.extras  # noqa: B018 - the shortcuts of the File, Run and View menus
        if self.provider_bar.provider().builtin and self._start_simulator:
            self.ensure_simulator()
        self.provider_bar.load_models()
        if not self._idle_started:
            self._idle_started = True
            from playground.ui.idle import when_idle

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

    def _make_spec(
        self, route: str, body: dict[str, Any], files: list[Any] | None, sim_headers: dict[str, str]
    ) -> RequestSpec | None:
        """The request of ``route``'s panel at the provider the bar shows."""
        return self.make_spec(
            self.provider_bar.provider(),
            route,
            body,
            base_url=None,
            model=self.provider_bar.model_for(route),
            files=files,
            sim_headers=sim_headers,
        )

    def make_spec(
        self,
        provider: Provider,
        route: str,
        body: dict[str, Any],
        *,
        base_url: str | None,
        model: str | None,
        files: list[Any] | None = None,
        sim_headers: dict[str, str] | None = None,
    ) -> RequestSpec | None:
        """A request at ``provider`` with the window's simulator URL, the keyring's key and the
        plain-http key question (every sender of the window builds its request here)."""
        from playground.transport.secrets import get_key
        from playground.transport.spec import make_spec

        if base_url:
            base: str | None = base_url
        elif provider.builtin:
            base = self.ensure_simulator()
        elif provider.id == self.provider_bar.provider().id:
            base = self.provider_bar.base_url()
        else:
            base = provider.base_url
        key = None if provider.builtin else get_key(provider)
        return make_spec(
            provider,
            route,
            body,
            key,
            base_url=base,
            files=files,
            sim_headers=sim_headers,
            model=model,
            ask_key_over_http=self._ask_key_over_http if self.interactive else None,
        )

    def _ask_key_over_http(self, spec: RequestSpec) -> bool:
        """Whether the user agrees to send the key unencrypted (a headless run never asks: the
        transport then refuses it and the panel says why)."""
        from PySide6.QtWidgets import QMessageBox

        answer = QMessageBox.warning(
            self,
            "Send the key unencrypted?",
            "This base URL uses plain http to another machine: the API key would travel "
            "unencrypted. Send anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def open_settings(self) -> None:
        from playground.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            for panel in self.panels.built().values():
                panel.session.stall_seconds = stall_seconds(self.settings)
                panel.session.first_byte_timeout = first_byte_timeout(self.settings)
        self.provider_bar.update_key_label()

    def _recorder_for(self, panel: RoutePanel) -> Any:
        """Each live run is journaled into the history as it streams (issue 5/6)."""

        def factory(spec: RequestSpec) -> Any:
            history = self.history
            if history is None:
                return None
            session = panel.session
            model = spec.json_body.get("model", "") if isinstance(spec.json_body, dict) else ""
            return history.start_run(
                panel.route,
                provider_id=spec.provider_id,
                model=str(model or ""),
                secrets=tuple(spec.secrets()),
                status_source=lambda: session.state.status if session.state is not None else None,
            )

        return factory

    # ---- the inspector follows the current panel's session --------------------------------------
    def _wire_panel(self, panel: RoutePanel) -> None:
        self.current_run.watch(panel.session)
        panel.itemActivated.connect(lambda item, p=panel: self._widget_activated(p, item))

    def _panel_views(self, build: bool) -> list[ItemView]:
        """The current panel's output widgets (``build``: build them first if deferred)."""
        panel = self._followed if not build else self.current_panel()
        if panel is None:
            return []
        widgets = panel.widgets if build else panel.built_widgets()
        return list(widgets.values())  # type: ignore[arg-type]

    def _follow_current(self, *_args: object) -> None:
        panel = self.current_panel()
        self.provider_bar.set_route(panel.route)
        self._followed = panel
        self.current_run.follow(panel.session)

    def _inspector_follow(self, _session: object = None) -> None:
        panel = self._followed
        if panel is None:
            return
        self.inspector.reset()
        self._request_shown = self._response_shown = False
        self._rows = 0
        self._inspector_pending = []
        decoder = panel.session.decoder
        if decoder is not None:
            self.inspector.attach(decoder)
            self._show_run(panel)
            if decoder.items:
                self.inspector.append(list(decoder.items))
            self._rows = len(decoder.items)

    def _show_run(self, panel: RoutePanel) -> None:
        run = panel.session.run
        if not self._request_shown and run.method:
            self.inspector.set_request(run.method, run.url, run.headers, run.body)
            self._request_shown = True
        if not self._response_shown and run.status is not None:
            body = panel.session.error_body() if run.status >= 400 else None
            if body is not None and len(body) > _BODY_SHOWN:
                # A huge error page (an HTML proxy page, say) must not freeze the text view.
                more = len(body) - _BODY_SHOWN
                body = body[:_BODY_SHOWN] + f"\n… ({more:,} more bytes)".encode()
            self.inspector.set_response(run.status, run.response_headers, body)
            self._response_shown = run.status < 400 or not panel.session.is_running

    def _session_started(self) -> None:
        panel = self._followed
        if panel is not None and panel.session.decoder is not None:
            self.inspector.reset()
            self._request_shown = self._response_shown = False
            self._rows = 0
            self._inspector_pending = []
            self.inspector.attach(panel.session.decoder)

    def _session_updated(self) -> None:
        panel = self._followed
        if panel is None:
            return
        self._show_run(panel)
        # Rows already shown when the inspector switched to this panel mid-stream are skipped.
        items = [i for i in panel.session.new_items() if i.index >= self._rows]
        if items:
            self._rows = items[-1].index + 1
            self._inspector_pending.extend(items)
        # The timeline takes rows at most every INSPECTOR_MS (repainting the table per frame
        # cost more than decoding the events); the answer still follows every frame. Rows go in
        # from here, inside the session's frame (its reader thread paused, see ui/frames.py);
        # the timer, restarted by every update, only catches the last rows once updates pause.
        if (time.perf_counter() - self._inspector_last) * 1000 >= INSPECTOR_MS:
            self._flush_inspector()
        else:
            self._inspector_timer.start(INSPECTOR_MS)

    def _flush_inspector(self) -> None:
        self._inspector_timer.stop()
        self._inspector_last = time.perf_counter()
        items, self._inspector_pending = self._inspector_pending, []
        # An empty batch still picks up findings added to earlier rows.
        self.inspector.append(items)

    def _session_finished(self, _status: str = "") -> None:
        panel = self._followed
        if panel is not None:
            self._show_run(panel)
            # Picks up findings added at the end (no terminator...). The selection is left
            # alone: jumping to a finding would open a possibly huge event (a 10 MB line).
            self._flush_inspector()

    def _widget_activated(self, panel: RoutePanel, item: int) -> None:
        if panel is not self._followed:
            self.tabs.setCurrentWidget(panel)
        self.selection.widget_activated(item)

    # ---- captures ---
    def _open_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a capture",
            "",
            "Captures (*.jsonl *.capture *.sse *.txt *.log);;All files (*)",
        )
        if path:
            self.open_capture(path)

    def open_capture(self, path: str) -> None:
        """Open a capture or raw `curl -N` output into the right panel and replay it instantly."""
        from playground.protocol.capture import read_capture

        try:
            capture = read_capture(path)
        except Exception as exc:
            message = f"Cannot open {Path(path).name}: {exc}"
            self.statusBar().showMessage(message, 10000)
            if self.interactive:
                from PySide6.QtWidgets import QMessageBox

                QMessageBox.warning(self, "Cannot open the capture", message)
            return
        route = capture.route if capture.route in self.panels else None
        if route is None:
            route = _guess_route(capture) or self.current_panel().route
        panel = self.show_panel(route)
        request = getattr(capture, "request", None) or {}
        body = request.get("body") if isinstance(request, dict) else None
        if isinstance(body, dict):
            with contextlib.suppress(Exception):
                panel.editor.set_body(body)
        panel.session.start_replay(capture, 0.0)
        self.statusBar().showMessage(f"Opened {Path(path).name}", 6000)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                path = url.toLocalFile()
                if self.current_panel().route == "transcription" and Path(path).suffix.lower() in (
                    ".wav",
                    ".mp3",
                    ".flac",
                    ".ogg",
                    ".m4a",
                    ".webm",
                ):
                    self.current_panel().editor.set_file(path)
                else:
                    self.open_capture(path)
                event.acceptProposedAction()
                return

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._sized:  # the first show knows the real width: give the inspector ~42 %
            self._sized = True
            total = max(self.splitter.width(), 800)
            self.splitter.setSizes([int(total * 0.58), total - int(total * 0.58)])

    # ---- closing ---
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing:
            self._closing = True
            for panel in self.panels.built().values():
                panel.session.stop()  # cancels the tasks now; shutdown() awaits their ends
            self.closed.emit()
        super().closeEvent(event)

    async def shutdown(self) -> None:
        """Wait for every stream to close, then stop the simulator (no pending tasks at exit)."""
        await asyncio.gather(
            *(p.session.aclose() for p in self.panels.built().values()), return_exceptions=True
        )
        await self.provider_bar.aclose()
        if self.simulator is not None:
            simulator, self.simulator = self.simulator, None
            await asyncio.get_running_loop().run_in_executor(None, simulator.stop)


def _title(route: str) -> str:
    """A route's tab title, without building its panel."""
    return route_spec(route).title


def _open_history() -> Any:
    """The run history (playground.runs.history) when it is available; None otherwise."""
    try:
        from playground.runs.history import RunHistory

        return RunHistory()
    except Exception:  # an unwritable data folder must not keep the window from opening
        return None


def _guess_route(capture: Any) -> str | None:
    """The route of a raw capture, from its events (the decoder's own recognition)."""
    from playground.protocol.stream import StreamDecoder

    decoder = StreamDecoder("auto")
    for t, data in getattr(capture, "chunks", [])[:50]:
        decoder.feed(data, t)
        if decoder.route != "auto":
            return decoder.route
    return None
