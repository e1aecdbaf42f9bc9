"""TrafficDock: the proxy started in the window's process, and its Traffic panel in a dock.

The proxy (uvicorn) runs on its own thread (proxy/server.py); its hub tells the feed, which
hands every call to the Qt thread (feed.py). The dock follows the current run and emits what
the user asks of an exchange (open in its panel, save, export, a timeline item): the window, which
holds the panels and the run files, does it (ui/window/dock_host.py). Compare is its own dialog
(ui/compare/traffic.py).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDockWidget, QWidget

from playground.ui.docks.traffic.feed import TrafficEntry, TrafficFeed
from playground.ui.docks.traffic.panel import TrafficPanel

if TYPE_CHECKING:
    from playground.proxy.server import ProxyServer
    from playground.ui.runtime.current_run import CurrentRun

__all__ = ["TrafficDock"]


class TrafficDock(QDockWidget):
    """The Traffic dock: ``start`` runs the proxy; ``stop`` ends it (the window closing)."""

    openRequested = Signal(object)  # TrafficEntry: its request into its route's panel
    saveRequested = Signal(object)  # TrafficEntry: save its capture
    exportRequested = Signal(object, str)  # TrafficEntry, format: export its request as code
    itemActivated = Signal(int)  # a part of the exchange's views: its timeline item

    def __init__(
        self, current_run: CurrentRun, *, interactive: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__("Traffic", parent)
        self.setObjectName("trafficDock")
        self.current_run = current_run
        self.interactive = interactive
        self.feed = TrafficFeed(self)
        self.panel = TrafficPanel(self.feed)
        self.setWidget(self.panel)
        self.server: ProxyServer | None = None
        self.upstream = ""
        self.compare_dialog: object | None = None
        self.panel.selected.connect(self._selected)
        self.panel.openRequested.connect(self.openRequested)
        self.panel.saveRequested.connect(self.saveRequested)
        self.panel.exportRequested.connect(self.exportRequested)
        self.panel.compareRequested.connect(self.compare)
        # Linked views, as a panel's: the inspector's row (``row_selected``) and the widgets'
        # parts, both ways, while the inspector follows the exchange shown here.
        self.panel.itemActivated.connect(self._widget_activated)

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
        hub, verdicts = build_hub(save, None)
        hub.subscribe(self.feed.listener)
        if verdicts.accounts is not None:  # each row's cache and cost, as the proxy's line has
            self.panel.model.accounted = verdicts.accounts.accounted
            # As `playground proxy` does at start: the upstream's cache rules and prices (off the
            # Qt thread: a slow gateway must not freeze the window; rows before it use defaults).
            threading.Thread(
                target=verdicts.accounts.load_models, args=(upstream,), daemon=True
            ).start()
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
            self.current_run.follow(entry.session)

    def _following(self) -> bool:
        shown = self.panel.shown
        session = shown.session if shown is not None else None
        return session is not None and self.current_run.session is session

    def _widget_activated(self, item: int) -> None:
        if not self._following() and self.panel.shown is not None:
            self._selected(self.panel.shown)
        self.itemActivated.emit(item)

    def row_selected(self, item: int) -> None:
        """The inspector's row ``item`` was selected: its part here, while following."""
        if self._following():
            self.panel.highlight_item(item)

    def compare(self, a: TrafficEntry, b: TrafficEntry) -> object:
        from playground.ui.compare.traffic import ExchangeCompare

        dialog = ExchangeCompare(a, b, self.window())
        if self.interactive:
            dialog.show()
        self.compare_dialog = dialog
        return dialog
