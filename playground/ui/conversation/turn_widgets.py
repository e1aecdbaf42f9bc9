"""The pieces of a thread's turn block: its text rendered as the answer is, its inline editor.

``TurnText`` shows a finished turn's text with the answer view's own Markdown renderer
(``LiveText(markdown=True)``, rendered once, not live), sized to its content so the thread pane
scrolls as one. ``TurnEditor`` is the in-place editor of a turn's text (Edit) or of a new turn
(Insert), with Save and Cancel.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from playground.ui.kit.theme import tint
from playground.ui.views.live_text import LiveText

__all__ = ["TurnEditor", "TurnText", "text_height"]

EDITOR_HEIGHT = 96  # a few lines; longer text scrolls inside the editor


class TurnText(LiveText):
    """A turn's text as rendered Markdown, as tall as its wrapped content (no inner scroll bar)."""

    def __init__(self, text: str, *, muted: bool = False) -> None:
        super().__init__(markdown=True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A table or code line wider than the pane scrolls sideways, as in the answer view.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)  # as tall as its text wrapped to the pane's width
        self.setSizePolicy(policy)
        self.setMinimumHeight(0)
        self.viewport().setAutoFillBackground(False)  # the block's background, not a white box
        if muted:
            tint(self)
        self.source = text
        # Its height at each width asked: the thread's layout asks every turn at every pass (a
        # few times a frame while an answer streams below it), and laying out a 4,000-character
        # answer again twice per ask cost ~0.7 ms: 60% of a frame's time with 11 answers.
        self._heights: dict[int, int] = {}
        self.document().contentsChanged.connect(self._heights.clear)
        self.show_text(text)
        self.flush()  # one render, now: a finished turn has no stream to follow

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = self._measure(width)
        return height

    def _measure(self, width: int) -> int:
        doc = self.document()
        inner = max(width - 2 * self.frameWidth(), 1)
        before = doc.textWidth()
        height = text_height(doc, inner, self.frameWidth(), self._bar_height())
        if before != inner:
            doc.setTextWidth(before)
        return height

    def _bar_height(self) -> int:
        return int(self.horizontalScrollBar().sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        # Another font or style (the theme) wraps the text anew.
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._heights.clear()
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        width = self.width() if self.width() > 1 else super().sizeHint().width()
        return QSize(super().sizeHint().width(), self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), 0)


def text_height(doc: QTextDocument, inner: int, frame: int, bar: int) -> int:
    """``doc``'s height laid out ``inner`` wide, in a view with a ``frame`` and a sideways bar
    ``bar`` high (shown under a table or code line wider than that)."""
    doc.setTextWidth(inner)
    height = int(doc.size().height()) + 2 * frame + 2
    if doc.idealWidth() > inner:
        height += bar
    return height


class _EditBox(QPlainTextEdit):
    """The editor's text box: Ctrl+Enter saves and Esc cancels while it has the focus. It takes
    those keys before the window's shortcuts (Send is Ctrl+Enter too), so the two never clash."""

    save = Signal()
    cancel = Signal()

    @staticmethod
    def _ours(event: QKeyEvent) -> bool:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        return (enter and ctrl) or event.key() == Qt.Key.Key_Escape

    def event(self, event: QEvent) -> bool:
        overrides = event.type() == QEvent.Type.ShortcutOverride
        if overrides and isinstance(event, QKeyEvent) and self._ours(event):
            event.accept()  # a key press for this box, not a shortcut for the window
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._ours(event):
            (self.cancel if event.key() == Qt.Key.Key_Escape else self.save).emit()
            return
        super().keyPressEvent(event)


class TurnEditor(QWidget):
    """A turn's text in an editor, with Save (Ctrl+Enter) and Cancel (Esc)."""

    saved = Signal(str)
    cancelled = Signal()

    def __init__(self, text: str, title: str = "") -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        if title:
            label = QLabel(title)
            tint(label)
            layout.addWidget(label)
        self.edit = _EditBox(text)
        self.edit.setFixedHeight(EDITOR_HEIGHT)
        self.edit.setTabChangesFocus(True)
        layout.addWidget(self.edit)
        row = QHBoxLayout()
        row.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Leave the turn as it was (Esc)")
        self.cancel_button.clicked.connect(self.cancelled)
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Put this text in the turn (Ctrl+Enter)")
        self.save_button.clicked.connect(lambda: self.saved.emit(self.edit.toPlainText()))
        row.addWidget(self.cancel_button)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.edit.save.connect(self.save_button.click)
        self.edit.cancel.connect(self.cancelled)
        self.edit.setFocus()
