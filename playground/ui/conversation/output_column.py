"""OutputColumn: a run's output views stacked in its transcript turn, each as tall as it shows.

In a transcript the answer is part of one scrolling column (the consoles' layout): its views
have no scroll bars of their own for the answer, so each text is given the height of its laid
out document, and the column scrolls as one. Secondary views keep a cap and scroll inside it:
thinking and a structured answer are read less than the answer, and a tool call's arguments
have their own cards.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

__all__ = ["OutputColumn", "document_height"]

# The caps of the views that scroll inside their own box (pixels): thinking is followed while it
# streams and folded after; a structured answer's JSON is checked, not read; the tool calls keep
# a few cards in view and the rest a scroll away.
CAPS = {"thinking": 260, "structured": 320, "tools": 520}
_FITTED = "transcriptFitted"  # a text box's property: True when this column sets its height


def document_height(text: QTextEdit | QPlainTextEdit) -> int:
    """The height that shows all of ``text``'s document at its width, without a vertical bar."""
    doc = text.document()
    frame = 2 * text.frameWidth()
    if isinstance(text, QPlainTextEdit):
        # A plain text edit's document counts lines, not pixels.
        lines = max(doc.blockCount(), 1)
        height = lines * text.fontMetrics().lineSpacing() + int(doc.documentMargin() * 2) + frame
    else:
        height = int(doc.size().height()) + frame + 2
    if doc.idealWidth() > text.viewport().width() > 0:
        height += text.horizontalScrollBar().sizeHint().height()
    return height


class OutputColumn(QWidget):
    """The output views of one route, top to bottom, fitted to their content (``fit``)."""

    def __init__(self, views: dict[str, QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views = views
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for view in views.values():
            view.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            layout.addWidget(view)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        # Pixels the answer's height grows by at a time while it streams (0: to the pixel).
        self.growth_step = 0
        # Text laid out later than the update that brought it (Markdown rendered a frame later,
        # a resize that wraps it anew) fits the column again at the next turn of the loop.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.fit)
        for view in views.values():
            view.installEventFilter(self)  # a part shown or hidden in it (thinking folded)

    def schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def fit(self) -> None:
        """Give each shown view the height of what it shows (only where it changed)."""
        for role, view in self.views.items():
            if view.isHidden():
                continue
            self._fit_texts(role, view)
            height = view.sizeHint().height()
            # Its fixed height, not its height: the layout gives a view its new height later,
            # and setting the same fixed height again lays the transcript out again.
            if view.minimumHeight() != height or view.maximumHeight() != height:
                view.setFixedHeight(height)
        self.updateGeometry()

    def _fit_texts(self, role: str, view: QWidget) -> None:
        cap = CAPS.get(role)
        for area in view.findChildren(QAbstractScrollArea):
            if isinstance(area, (QTextEdit, QPlainTextEdit)):
                managed = area.property(_FITTED)
                if managed is None:
                    # A box that came with a height of its own (a refusal, an argument card)
                    # keeps it; the others are ours to fit from now on (marked on the box: a
                    # choice pane's text is made anew with each run).
                    managed = area.maximumHeight() >= 16777215
                    area.setProperty(_FITTED, managed)
                    if managed:
                        self._watch(area)
                        if cap is None:
                            # As tall as its text, it never needs a bar of its own. Left "as
                            # needed", the bar showed each time the text outgrew the height
                            # fitted last and hid at the next fit: each a change of width that
                            # laid the whole answer out again (3-10 ms of a frame for a 2,000
                            # token answer, growing with it). Set here, not once per view: a
                            # choice pane's text is made anew with each run.
                            area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
                if not managed or area.isHidden():
                    continue
                wanted = document_height(area)
            elif isinstance(area, QScrollArea) and area.widget() is not None:
                inner = area.widget()
                assert inner is not None
                wanted = inner.sizeHint().height() + 2 * area.frameWidth()
            else:
                continue
            if self.growth_step:
                # While a run streams its texts grow in steps: each new height lays the whole
                # transcript out again (8-10 ms with 50 answers above it, the session
                # benchmark), once every few lines rather than with each one.
                step = self.growth_step
                wanted = -(-wanted // step) * step
            if cap is not None:
                wanted = min(wanted, cap)
            if area.minimumHeight() != wanted or area.maximumHeight() != wanted:
                area.setFixedHeight(wanted)

    def _watch(self, text: QTextEdit | QPlainTextEdit) -> None:
        layout = text.document().documentLayout()
        layout.documentSizeChanged.connect(self.schedule)
        text.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Another width wraps the text to another height; a part shown or hidden changes the
        # view's own.
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.schedule()
        return False
