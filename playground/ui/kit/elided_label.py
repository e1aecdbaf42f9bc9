"""ElidedLabel: one line of plain text that gives up its width first, cut with "…" (full text
in its tooltip), so a narrow pane keeps its buttons and never widens the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QColor, QPaintEvent

__all__ = ["ElidedLabel", "elided", "min_elided_width", "paint_elided"]

# Room for a word and the ellipsis: below this the label would say nothing at all.
_MIN_CHARS = 4


def min_elided_width(widget: QWidget) -> int:
    """The narrowest a one-line label gets: a few characters and its margins."""
    margins = widget.contentsMargins()
    advance = widget.fontMetrics().horizontalAdvance("M" * _MIN_CHARS)
    return advance + margins.left() + margins.right()


def elided(widget: QWidget, text: str) -> str:
    """``text`` as it fits ``widget``'s contents on one line, cut with "…"."""
    room = widget.contentsRect().width()
    return widget.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)


def paint_elided(widget: QWidget, text: str, color: QColor, flags: int) -> None:
    """Paint ``text`` elided to ``widget``'s contents, in ``color`` (from its paintEvent)."""
    # QPainter (with its enums) loads with the first paint, after the window's first frame.
    from PySide6.QtGui import QPainter

    painter = QPainter(widget)
    painter.setPen(color)
    painter.setFont(widget.font())
    painter.drawText(widget.contentsRect(), flags, elided(widget, text))
    painter.end()


class ElidedLabel(QLabel):
    """A QLabel whose minimum is a few characters; it paints its text elided to its width."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(min_elided_width(self), super().minimumSizeHint().height())

    def elided(self) -> str:
        """The text as painted at the label's width now."""
        return elided(self, self.text())

    def paintEvent(self, event: QPaintEvent) -> None:
        flags = int(self.alignment() | Qt.AlignmentFlag.AlignVCenter)
        paint_elided(self, self.text(), self.palette().color(self.foregroundRole()), flags)
