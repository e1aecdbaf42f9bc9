"""SteadyTabs: a QTabWidget that places its tab bar and pages again only when what places them
changed, instead of at every layout request from inside its pages.

QTabWidget answers every QEvent.LayoutRequest with setUpLayout(), which ends in update() of the
whole tab widget. Any layout activated inside a page sends one up to it (QLayout::activate ends
in its widget's updateGeometry(), "ideally only if sizeHint() or sizePolicy() has changed"): a
label's new text, a view shown or hidden. At a run's end the route panel's status, buttons and
views change, and the request that reached the route tabs repainted the whole panel, every
widget of it at full size, in the turn that flushed the inspector's last rows: 6-17 ms, the
longest part of a long session's frames (`bench --only session`, a 2-core AMD EPYC).

What setUpLayout places the bar and the pages by: the tab bar's size hints and visibility, the
tabs' position and its own size. A request that finds them as they were when it last laid itself
out only passes the pages' hints on up (updateGeometry(), as setUpLayout would): the pages lay
themselves out with their own layouts, and nothing here needs a repaint. A resize, a tab added
or removed, or a style change lay it out as before (those do not come as layout requests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QTabWidget, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent, QShowEvent

__all__ = ["SteadyTabs"]

Placement = tuple[QSize, QSize, bool, QTabWidget.TabPosition, bool, QSize, int]


class SteadyTabs(QTabWidget):
    """A QTabWidget that takes a page's layout request without a repaint of itself whole."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._placed_for: Placement | None = None

    def _placement(self) -> Placement:
        bar = self.tabBar()
        return (
            bar.sizeHint(),
            bar.minimumSizeHint(),
            bar.isVisibleTo(self),
            self.tabPosition(),
            self.documentMode(),
            self.size(),
            self.count(),
        )

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            placement = self._placement()
            if placement == self._placed_for:
                self.updateGeometry()  # a page's hints may have changed: the layouts above hear
                return True
            self._placed_for = placement
        return super().event(event)

    # QTabWidget lays itself out in these too (setUpLayout), not through a layout request.
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._placed_for = self._placement()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._placed_for = self._placement()
