"""Help ▸ Sample captures: the bundled sample of each route, opened (and replayed) on a click.

A new user has nothing to open but a live request; these show every route's widgets and the
inspector before anything is sent. The files are the top-level ``resources/captures/`` (see
``playground.assets``); opening one is the window's own File ▸ Open path, handed in as
``open_file``, so a sample opens exactly as a capture chosen from disk does.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from playground.assets import SAMPLE_CAPTURES, sample_capture

__all__ = ["MENU_TITLE", "add_sample_menu", "available_samples"]

MENU_TITLE = "Sample &captures"


def available_samples() -> list[tuple[str, str, str]]:
    """``(route, title, path)`` of each bundled sample that is there, in the panels' order."""
    out = []
    for route, title in SAMPLE_CAPTURES.items():
        path = sample_capture(route)
        if path.is_file():
            out.append((route, title, str(path)))
    return out


def add_sample_menu(menu: QMenu, open_file: Callable[[str], object]) -> QMenu:
    """Add the Sample captures submenu to ``menu``; its actions are made when it first opens, so
    the window's first frame never waits for a look at the disk."""
    samples = QMenu(MENU_TITLE, menu)
    samples.setObjectName("sampleCapturesMenu")
    samples.setToolTipsVisible(True)

    def fill() -> None:
        if samples.actions():
            return
        found = available_samples()
        for route, title, path in found:
            action = QAction(title, samples)
            action.setData(route)
            action.setToolTip(path)
            action.triggered.connect(lambda _checked=False, p=path: open_file(p))
            samples.addAction(action)
        if not found:
            none = QAction("(no sample captures installed)", samples)
            none.setEnabled(False)
            samples.addAction(none)

    samples.aboutToShow.connect(fill)
    menu.addMenu(samples)
    return samples
