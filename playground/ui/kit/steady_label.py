"""SteadyLabel: one line of text that changes often (a count, a figure) without ever asking the
layouts above it to lay the window out again.

A QLabel calls updateGeometry() on every setText, and Qt passes that up through every layout to
the window (QLayout::activate ends in the parent's updateGeometry, "ideally only if sizeHint()
or sizePolicy() has changed"). On its way it reaches a QTabWidget, whose layout request ends in
update() of the whole tab widget (QTabWidget::setUpLayout): the inspector's row count, set on
each batch of rows, repainted the whole inspector, its table included (4 ms a time on a 2-core
AMD EPYC). The route and inspector tabs are SteadyTabs now (ui/kit/steady_tabs.py), which end that
repaint for every widget inside them; the label still spares the relayout on the way. Its size
depends on its font only; a new text is a repaint of itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from playground.ui.kit.elided_label import elided, min_elided_width, paint_elided

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

__all__ = ["SteadyLabel"]

_HINT_CHARS = 24  # the width it asks for; it takes what the layout gives, its text elided to it


class SteadyLabel(QWidget):
    """A label whose size hint never follows its text; ``muted`` draws it in the theme's
    placeholder colour (gray in light and dark alike)."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *, muted: bool = False):
        super().__init__(parent)
        self._text = text
        self._muted = muted
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.update()

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        return QSize(
            metrics.averageCharWidth() * _HINT_CHARS + margins.left() + margins.right(),
            metrics.height() + margins.top() + margins.bottom(),
        )

    def minimumSizeHint(self) -> QSize:
        return QSize(min_elided_width(self), self.sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()  # the one change that alters its size
        super().changeEvent(event)

    def elided(self) -> str:
        """The text as painted at the label's width now."""
        return elided(self, self._text)

    def paintEvent(self, event: QPaintEvent) -> None:
        role = QPalette.ColorRole.PlaceholderText if self._muted else self.foregroundRole()
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        paint_elided(self, self._text, self.palette().color(role), flags)
