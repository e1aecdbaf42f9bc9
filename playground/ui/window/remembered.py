"""What the window remembers between starts (QSettings): geometry, splitters, panel, columns."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSize

from playground.protocol import safe_json
from playground.protocol.requests import ROUTE_NAMES

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter

    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["remember", "restore_geometry", "restore_panel", "restore_window"]

_GEOMETRY = "window/geometry"
_SIZE = "window/size"
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
    # The size is kept apart too: restoreGeometry shrinks a window to its screen as the
    # platform reports it, and the size is what matters here (bounded by the screen below).
    size = window.settings.value(_SIZE)
    if isinstance(size, QSize) and size.isValid() and not window.isMaximized():
        room = screen_room(window)
        if room is not None:  # a screen smaller than last time's: the window fits it again
            size = size.boundedTo(room)
        size = size.expandedTo(window.minimumSizeHint())
        if size != window.size():
            window.resize(size)
    return True


def screen_room(window: MainWindow) -> QSize | None:
    """The available size of the window's screen (None: no screen known)."""
    screen = window.screen()
    return screen.availableGeometry().size() if screen is not None else None


def restore_window(window: MainWindow) -> None:
    """Put back the last start's splitter, panel and inspector columns (not the geometry)."""
    split = _bytes(window, _SPLITTER)
    if split is not None and window.splitter.restoreState(split):
        window.splitter_restored = True
    widths = _column_widths(window.settings.value(_COLUMNS))
    if widths is not None:
        window.inspector.column_widths = widths
    route = window.settings.value(_PANEL)
    if isinstance(route, str) and route in ROUTE_NAMES:
        window.tabs.setCurrentIndex(ROUTE_NAMES.index(route))


def _column_widths(saved: object) -> dict[int, int] | None:
    """The inspector's column widths a settings value holds: small column numbers to widths in
    pixels, else None (a settings file is edited by hand, or damaged: anything may be there)."""
    loaded = safe_json.loads_or(saved, None) if isinstance(saved, str) else None
    if not isinstance(loaded, dict):
        return None
    widths: dict[int, int] = {}
    for key, value in loaded.items():
        if not (isinstance(value, int) and not isinstance(value, bool)):
            return None
        try:
            column = int(key)
        except ValueError:
            return None
        if not (0 <= column < 64 and 0 <= value <= 10_000):
            return None
        widths[column] = value
    return widths


def restore_panel(window: MainWindow, panel: RoutePanel) -> None:
    """A panel just built takes back its remembered splitter positions."""
    # A transcript's splitter is another one (transcript | form): its own key, so the positions
    # of a form-and-output panel saved by an earlier version are not read into it.
    saved = _bytes(window, f"panel/{panel.route}/{_main_splitter(panel)}")
    if saved is not None:
        panel.splitter.restoreState(saved)
    # The output widgets are built later (idle time, or the first run): they take it then.
    output = _bytes(window, f"panel/{panel.route}/output")
    panel.output_state = bytes(output.data()) if output is not None else None
    if output is not None and panel.output is not None:
        panel.output.restoreState(output)


def remember(window: MainWindow) -> None:
    """Write the layout to the window's settings (the window is closing)."""
    settings = window.settings
    settings.setValue(_GEOMETRY, window.saveGeometry())
    settings.setValue(_SIZE, window.normalGeometry().size())
    settings.setValue(_SPLITTER, window.splitter.saveState())
    settings.setValue(_PANEL, window.current_panel().route)
    if window.inspector.model_built:
        # The widths wanted (dragged or default), not those a narrow inspector shrank them to.
        settings.setValue(_COLUMNS, json.dumps(window.inspector.columns.wanted))
    for route, panel in window.panels.built().items():
        for name, splitter in _splitters(panel):
            settings.setValue(f"panel/{route}/{name}", splitter.saveState())
    settings.sync()


def _splitters(panel: RoutePanel) -> list[tuple[str, QSplitter]]:
    found: list[tuple[str, QSplitter]] = [(_main_splitter(panel), panel.splitter)]
    if panel.output is not None:
        found.append(("output", panel.output))
    return found


def _main_splitter(panel: RoutePanel) -> str:
    return "transcript" if panel.transcript is not None else "splitter"
