"""ElidedLabel: one line of plain text that gives up its width first, cut with "…" (full text
in its tooltip), so a narrow pane keeps its buttons and never widens the window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

__all__ = ["ElidedLabel"]

# Room for a word and the ellipsis: below this the label would say nothing at all.
_MIN_CHARS = 4


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
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance("M" * _MIN_CHARS) + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def elided(self) -> str:
        """The text as painted at the label's width now."""
        room = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def paintEvent(self, event: QPaintEvent) -> None:
        # QPainter (with its enums) loads with the first paint, after the window's first frame.
        from PySide6.QtGui import QPainter

        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.setFont(self.font())
        flags = int(self.alignment() | Qt.AlignmentFlag.AlignVCenter)
        painter.drawText(self.contentsRect(), flags, self.elided())
        painter.end()
