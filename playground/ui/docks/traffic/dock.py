"""TrafficDock: the proxy started in the window's process, and its Traffic panel in a dock.

The proxy (uvicorn) runs on its own thread (proxy/server.py); its hub tells the feed, which
hands every call to the Qt thread (feed.py). Open in panel, save, export and compare reuse the
window's own machinery (the panels' editors, ui/window/run_files.py, ui/compare_diff.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from playground.ui.docks.traffic.feed import TrafficEntry, TrafficFeed
from playground.ui.docks.traffic.panel import TrafficPanel, request_body
from playground.ui.window.run_files import RunFiles

if TYPE_CHECKING:
    from playground.proxy.server import ProxyServer
    from playground.ui.runtime.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["ExchangeFiles", "TrafficDock"]


class ExchangeFiles(RunFiles):
    """The File menu's save and export, on an exchange's session instead of the panel's."""

    def __init__(self, window: MainWindow, entry: TrafficEntry) -> None:
        super().__init__(window)
        self.entry = entry

    def session(self) -> StreamSession:
        assert self.entry.session is not None
        return self.entry.session


class TrafficDock(QDockWidget):
    """The Traffic dock: ``start`` runs the proxy; ``stop`` ends it (the window closing)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__("Traffic", window)
        self.setObjectName("trafficDock")
        self.window_ = window
        self.feed = TrafficFeed(self)
        self.panel = TrafficPanel(self.feed)
        self.setWidget(self.panel)
        self.server: ProxyServer | None = None
        self.upstream = ""
        self.last_files: ExchangeFiles | None = None
        self.compare_dialog: object | None = None
        self.panel.selected.connect(self._selected)
        self.panel.openRequested.connect(self.open_in_panel)
        self.panel.saveRequested.connect(lambda e: self.files(e).save_capture())
        self.panel.exportRequested.connect(lambda e, f: self.files(e).export(f))
        self.panel.compareRequested.connect(self.compare)
        # Linked views, as a panel's: the inspector's row and the widgets' parts, both ways,
        # while the inspector follows the exchange shown here.
        self.panel.itemActivated.connect(self._widget_activated)
        window.inspector.itemSelected.connect(self._row_selected)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self)

    @property
    def base_url(self) -> str:
        return self.server.base_url if self.server is not None else ""

    def start(self, upstream: str, port: int = 0, save: Path | None = None) -> str:
        """Listen on 127.0.0.1:``port`` (0: any free one) in front of ``upstream``; the address."""
        from playground.proxy.cli import build_hub
        from playground.proxy.server import ProxyServer

        self.stop()
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
        hub, _verdicts = build_hub(save, None)
        hub.subscribe(self.feed.listener)
        self.server = ProxyServer(upstream, hub, "127.0.0.1", port).start()
        self.upstream = self.server.upstream
        self.panel.set_address(self.server.base_url, self.upstream)
        self.show()
        self.raise_()
        return self.server.base_url

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()

    def shutdown(self) -> ProxyServer | None:
        """The window closes: no more calls to drain; the server to stop (off the Qt thread)."""
        self.feed.stop()
        server, self.server = self.server, None
        return server

    # ---- what the panel asks for -------------------------------------------------------------
    def _selected(self, entry: TrafficEntry | None) -> None:
        if entry is not None and entry.session is not None:
            self.window_.current_run.follow(entry.session)

    def _following(self) -> bool:
        shown = self.panel.shown
        session = shown.session if shown is not None else None
        return session is not None and self.window_.current_run.session is session

    def _widget_activated(self, item: int) -> None:
        if not self._following() and self.panel.shown is not None:
            self._selected(self.panel.shown)
        self.window_.selection.widget_activated(item)

    def _row_selected(self, item: int) -> None:
        if self._following():
            self.panel.highlight_item(item)

    def files(self, entry: TrafficEntry) -> ExchangeFiles:
        self.last_files = ExchangeFiles(self.window_, entry)
        return self.last_files

    def open_in_panel(self, entry: TrafficEntry) -> None:
        """The exchange's request (thread, system, tools, parameters, model) in its panel."""
        window = self.window_
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

    def compare(self, a: TrafficEntry, b: TrafficEntry) -> object:
        from playground.ui.compare.traffic import ExchangeCompare

        dialog = ExchangeCompare(a, b, self.window_)
        if self.window_.interactive:
            dialog.show()
        self.compare_dialog = dialog
        return dialog
