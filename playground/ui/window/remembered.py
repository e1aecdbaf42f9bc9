"""What the window remembers between starts (QSettings): geometry, splitters, panel, columns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray

from playground.protocol.requests import ROUTE_NAMES

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter

    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["remember", "restore_geometry", "restore_panel", "restore_window"]

_GEOMETRY = "window/geometry"
_SPLITTER = "window/splitter"
_PANEL = "window/panel"
_COLUMNS = "inspector/columns"


def _bytes(window: MainWindow, key: str) -> QByteArray | None:
    value = window.settings.value(key)
    return value if isinstance(value, QByteArray) and not value.isEmpty() else None


def restore_geometry(window: MainWindow) -> bool:
    """The last start's window geometry, kept on the screen; False when there is none."""
    saved = _bytes(window, _GEOMETRY)
    if saved is None or not window.restoreGeometry(saved):
        return False
    screen = window.screen()
    if screen is not None:  # a screen smaller than last time's: the window fits it again
        room = screen.availableGeometry().size()
        size = window.size().boundedTo(room).expandedTo(window.minimumSizeHint())
        if size != window.size():
            window.resize(size)
    return True


def restore_window(window: MainWindow) -> None:
    """Put back the last start's splitter, panel and inspector columns (not the geometry)."""
    split = _bytes(window, _SPLITTER)
    if split is not None and window.splitter.restoreState(split):
        window.splitter_restored = True
    columns = _bytes(window, _COLUMNS)
    if columns is not None:
        window.inspector.column_state = columns.data()
    route = window.settings.value(_PANEL)
    if isinstance(route, str) and route in ROUTE_NAMES:
        window.tabs.setCurrentIndex(ROUTE_NAMES.index(route))


def restore_panel(window: MainWindow, panel: RoutePanel) -> None:
    """A panel just built takes back its remembered splitter positions."""
    saved = _bytes(window, f"panel/{panel.route}/splitter")
    if saved is not None:
        panel.splitter.restoreState(saved)
    # The output widgets are built later (idle time, or the first run): they take it then.
    output = _bytes(window, f"panel/{panel.route}/output")
    panel.output_state = output.data() if output is not None else None
    if output is not None and panel.output is not None:
        panel.output.restoreState(output)


def remember(window: MainWindow) -> None:
    """Write the layout to the window's settings (the window is closing)."""
    settings = window.settings
    settings.setValue(_GEOMETRY, window.saveGeometry())
    settings.setValue(_SPLITTER, window.splitter.saveState())
    settings.setValue(_PANEL, window.current_panel().route)
    if window.inspector.model_built:
        settings.setValue(_COLUMNS, window.inspector.view.horizontalHeader().saveState())
    for route, panel in window.panels.built().items():
        for name, splitter in _splitters(panel):
            settings.setValue(f"panel/{route}/{name}", splitter.saveState())
    settings.sync()


def _splitters(panel: RoutePanel) -> list[tuple[str, QSplitter]]:
    found: list[tuple[str, QSplitter]] = [("splitter", panel.splitter)]
    if panel.output is not None:
        found.append(("output", panel.output))
    return found
