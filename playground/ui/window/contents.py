"""The main window's widgets: the provider bar, the route tabs, the inspector and the splitter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QToolBar, QWidget

from playground.protocol.requests import ROUTE_NAMES, route_spec
from playground.ui.inspector.inspector import Inspector
from playground.ui.kit.steady_tabs import SteadyTabs
from playground.ui.views.routes import route_icon
from playground.ui.window.panel_map import Placeholder
from playground.ui.window.provider_bar import ProviderBar
from playground.ui.window.remembered import restore_window
from playground.ui.window.tab_fit import TabFit

if TYPE_CHECKING:
    from playground.ui.window.shell import MainWindow

__all__ = ["build_widgets", "share_splitter"]


def build_widgets(window: MainWindow) -> dict[str, QWidget]:
    """Put the window's widgets in place (``MainWindow.build``); a placeholder page per route,
    by route, which the window replaces by the route's panel when it is built."""
    window.provider_bar = ProviderBar(window.settings)
    toolbar = QToolBar("Provider")
    toolbar.setObjectName("providerToolbar")
    toolbar.setMovable(False)
    toolbar.addWidget(window.provider_bar)
    window.addToolBar(toolbar)

    window.tabs = tabs = SteadyTabs()
    tabs.setDocumentMode(True)
    pages: dict[str, QWidget] = {}
    for route in ROUTE_NAMES:  # every route has its tab from the start
        pages[route] = page = Placeholder(route)
        tabs.addTab(page, route_icon(route), _title(route))
    window.tab_fit = TabFit(tabs, [_title(route) for route in ROUTE_NAMES])

    # Its timeline model (and the stream decoder) is built right after the first frame.
    window.inspector = Inspector(defer_model=True)
    window.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(tabs)
    splitter.addWidget(window.inspector)
    splitter.setStretchFactor(0, 3)
    splitter.setStretchFactor(1, 2)
    splitter.setSizes([900, 660])
    window.setCentralWidget(splitter)
    restore_window(window)  # before the current tab is followed: the last panel comes back

    window.status_message = QLabel()
    window.statusBar().addWidget(window.status_message, 1)
    return pages


def share_splitter(window: MainWindow, *, now_shown: bool = False) -> None:
    """Give the inspector its share of the window's width, unless the splitter was restored.
    On the window's first show (it knows its real width then), or right after the contents were
    built into a window shown empty (``now_shown``)."""
    if window.splitter_restored:
        return
    splitter = window.splitter
    if now_shown:
        # A child added to a shown window is shown by a queued call, and a layout skips hidden
        # widgets: shown now and laid out, the splitter has its real width for the share.
        splitter.show()
        layout = window.layout()
        if layout is not None:
            layout.activate()
    total = max(splitter.width(), 800)
    # The inspector takes ~42 %. On a laptop-sized window the panel's two columns need the room
    # more (~36 %; at 1024 px the answer beside the form was 290 px, too narrow for a 4-column
    # table).
    share = 0.42 if total >= 1400 else 0.36 if total >= 1100 else 0.32
    inspector = int(total * share)
    splitter.setSizes([total - inspector, inspector])


def _title(route: str) -> str:
    """A route's tab title, without building its panel."""
    return route_spec(route).title
