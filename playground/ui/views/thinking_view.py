"""ThinkingView: the model's visible reasoning, collapsible and dimmed, with signatures noted."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat
from PySide6.QtWidgets import QFrame, QLabel, QToolButton, QVBoxLayout, QWidget

if TYPE_CHECKING:  # types only: the state loads with the first run (startup)
    from playground.protocol.state import StreamState

from .live_text import LiveText
from .lost_text import GapFeed

__all__ = ["ThinkingView"]

_KIND_WORDS = {
    "signature": "signature",
    "encrypted": "encrypted reasoning",
    "redacted": "redacted thinking",
}


class ThinkingView(QWidget):
    """Reasoning text as it streams. Signatures / encrypted / redacted reasoning are opaque blobs
    (docs/protocol.md §4, Signature event): noted with their size, never shown as text."""

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.toggle = QToolButton(self)
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.toggled.connect(self.set_expanded)
        layout.addWidget(self.toggle)
        self.note = QLabel(self)
        self.note.setStyleSheet("color: palette(mid); font-style: italic;")
        # Wrapped: on one line the signature note asked 455 px and held the window over 1,000 wide.
        self.note.setWordWrap(True)
        self.note.hide()
        layout.addWidget(self.note)
        self.text = LiveText(
            self, placeholder="The model's thinking appears here when it shows it.", markdown=True
        )
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(128, 128, 128))  # dimmed: thinking is not the answer
        fmt.setFontItalic(True)
        self.text.char_format = fmt
        font = QFont(self.text.font())
        font.setItalic(True)
        self.text.setFont(font)
        self.text.activated.connect(self.itemActivated)
        layout.addWidget(self.text, 1)
        self._signatures = 0
        self._gaps = GapFeed()
        self.reset()

    def set_expanded(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.text.setVisible(expanded)
        # Collapsed, it takes its title line (and the signature note) and no more: in the
        # output splitter it kept its 130 px, a blank band above the answer.
        self.setMaximumHeight(16777215 if expanded else self._layout.minimumSize().height())
        if self.toggle.isChecked() != expanded:
            self.toggle.setChecked(expanded)

    @property
    def expanded(self) -> bool:
        return self.toggle.isChecked()

    def reset(self) -> None:
        self.text.reset()
        self._signatures = 0
        self._gaps.reset()
        self.note.clear()
        self.note.hide()
        self._update_title()

    def refresh(self, state: StreamState) -> None:
        choice = state.choices.get(0)
        if choice is not None:
            # A thinking delta that could not be read is marked where it was lost, as the
            # answer marks its own (a tie between the two goes to the answer).
            self._gaps.feed(
                self.text, state.findings, choice.reasoning, (choice.text,), wins_ties=False
            )
        if choice is not None and self.text.sync(choice.reasoning):
            self._update_title()
        if len(state.signatures) != self._signatures:
            self._signatures = len(state.signatures)
            self.note.setText(self.signature_note(state.signatures))
            self.note.show()
            if not self.expanded:  # the note is a line more
                self.set_expanded(False)

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        self.text.render_markdown()  # its last block laid out as final

    def highlight_item(self, item: int) -> None:
        if self.text.highlight(item) and not self.expanded:
            self.set_expanded(True)

    @property
    def pending(self) -> bool:
        return self.text.pending

    def has_content(self) -> bool:
        return bool(self.text.shown or self._signatures)

    @staticmethod
    def signature_note(signatures: list[tuple[str, str]]) -> str:
        counts: Counter[str] = Counter()
        sizes: Counter[str] = Counter()
        for kind, value in signatures:
            counts[kind] += 1
            sizes[kind] += len(value)
        parts = [
            f"{n} {_KIND_WORDS.get(kind, kind)}{'s' if n > 1 and kind == 'signature' else ''}"
            f" ({sizes[kind]:,} chars)"
            for kind, n in counts.items()
        ]
        return "Signed reasoning: " + ", ".join(parts) + " — opaque, kept for the next turn"

    def _update_title(self) -> None:
        n = self.text.shown
        self.toggle.setText(f"Thinking · {n:,} chars" if n else "Thinking")
