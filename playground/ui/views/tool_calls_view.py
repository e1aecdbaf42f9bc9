"""ToolCallsView: a card per tool call, its arguments pretty-printed as they grow."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QMouseEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # types only: the state loads with the first run (startup)
    from playground.protocol.state import StreamState, ToolCallState

from .json_stream import JsonPrettyStream
from .live_text import HIGHLIGHT, utf16_len

__all__ = ["ToolCallCard", "ToolCallsView"]

_BADGE = "border-radius: 3px; padding: 1px 5px; font-size: 11px;"


ARGS_MAX_LINES = 12  # a card's arguments box grows with them up to this many lines
# Formatted characters a card shows at most. Past 16 levels of nesting the pretty-printer keeps
# to one line, and a text view lays a line out whole: 8 MB of nested brackets cost the window
# 217 MB in one card (playground bench --only hostile). The arguments stay whole in the state.
ARGS_SHOWN_MAX = 65_536
_MORE = "\n… (the arguments go on; the card shows their first {:,} characters)"


class _ArgsText(QPlainTextEdit):
    clicked = Signal(int)  # document position

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            self.clicked.emit(self.cursorForPosition(event.position().toPoint()).position())


class ToolCallCard(QFrame):
    """One call: name, id, server-tool badge, valid-JSON badge, and the arguments as they grow."""

    activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#toolCard { border: 1px solid palette(mid); border-radius: 6px; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        head = QHBoxLayout()
        self.title = QLabel(self)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head.addWidget(self.title, 1)
        self.server_badge = QLabel("server tool", self)
        self.server_badge.setToolTip("Run by the provider, not by your code")
        self.server_badge.setStyleSheet(_BADGE + "background: #6c5ce7; color: white;")
        self.server_badge.hide()
        head.addWidget(self.server_badge)
        self.json_badge = QLabel("✓ valid JSON", self)
        self.json_badge.setStyleSheet(_BADGE + "background: #2e7d32; color: white;")
        self.json_badge.hide()
        head.addWidget(self.json_badge)
        layout.addLayout(head)
        self.args = _ArgsText(self)
        self.args.setReadOnly(True)
        self.args.setUndoRedoEnabled(False)
        self.args.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.args.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.args.setPlaceholderText("(no arguments yet)")
        self._lines = -1
        self._fit_height()
        self.args.clicked.connect(self._clicked)
        layout.addWidget(self.args)
        self._pretty = JsonPrettyStream()
        self._consumed = 0  # raw characters formatted so far
        self._seen = 0  # raw characters the buffer held at the last sync
        self._pieces = 0  # TextBuffer origins formatted so far
        self._tail = ""  # last raw characters formatted, to notice a replaced buffer
        self._out_len = 0  # formatted characters (code points)
        self._out_origins: list[tuple[int, int]] = []  # (formatted offset, timeline item)
        self._out_text: list[str] = []
        self._head = ("", "", False)
        self._valid = False

    def _fit_height(self) -> None:
        """The arguments box as tall as its lines, up to ARGS_MAX_LINES (then it scrolls).

        At a fixed 220 px a one-line call took a third of the panel and three calls needed
        scrolling; sized to their content, several stack readably. Lines never wrap (NoWrap),
        so the block count is the line count; checked only when it changes.
        """
        lines = max(1, self.args.document().blockCount())
        if lines == self._lines:
            return
        self._lines = lines
        shown = min(lines, ARGS_MAX_LINES)
        args = self.args
        margin = int(args.document().documentMargin() * 2) + args.frameWidth() * 2
        bar = args.horizontalScrollBar().sizeHint().height()  # a long line scrolls sideways
        args.setFixedHeight(shown * args.fontMetrics().lineSpacing() + margin + bar)

    @property
    def valid_json(self) -> bool:
        return self._valid

    @property
    def text(self) -> str:
        return self.args.toPlainText()

    def sync(self, call: ToolCallState) -> None:
        head = (call.name or "", call.id or "", call.server)
        if head != self._head:
            self._head = head
            name = call.name or "(unnamed)"
            ident = f"  <span style='color: gray'>{_escape(call.id)}</span>" if call.id else ""
            self.title.setText(f"<b>{_escape(name)}</b>{ident}")
            self.server_badge.setVisible(call.server)
        buf = call.arguments
        if self._out_len >= ARGS_SHOWN_MAX:
            if len(buf) >= self._seen:
                self._seen = len(buf)
                return  # past what the card shows: the text is not even joined for it
            self._restart()  # replaced by a shorter ``.done``: format it again
        self._seen = len(buf)
        value = buf.value
        if len(buf) < self._consumed or (
            self._tail and value[self._consumed - len(self._tail) : self._consumed] != self._tail
        ):
            self._restart()  # the arguments were replaced (a ``.done`` event): format them again
        if len(buf) == self._consumed:
            return
        # Feed piece by piece so each formatted range remembers its timeline item (linked views).
        origins = buf.origins
        out: list[str] = []
        for i in range(self._pieces, len(origins)):
            start, item = origins[i]
            end = origins[i + 1][0] if i + 1 < len(origins) else len(buf)
            start = max(start, self._consumed)
            if end <= start:
                continue
            formatted = self._pretty.feed(value[start:end])
            if formatted:
                room = ARGS_SHOWN_MAX - self._out_len
                if len(formatted) > room:
                    formatted = formatted[:room] + _MORE.format(ARGS_SHOWN_MAX)
                self._out_origins.append((self._out_len, item))
                self._out_len += len(formatted)
                out.append(formatted)
            self._consumed = end
            if self._out_len >= ARGS_SHOWN_MAX:
                break
        self._pieces = max(self._pieces, len(origins) - 1)
        self._tail = value[max(0, self._consumed - 16) : self._consumed]
        if out:
            chunk = "".join(out)
            self._out_text.append(chunk)
            cursor = QTextCursor(self.args.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(chunk)
            self._fit_height()
        # Parse once per refresh, not per token (the raw string stays the truth, docs/design.md),
        # and not at all while the pretty-printer knows a string or bracket is still open.
        valid = False if self._pretty.open else call.valid_json
        if valid != self._valid:
            self._valid = valid
            self.json_badge.setVisible(valid)

    def _restart(self) -> None:
        self._pretty = JsonPrettyStream()
        self._consumed = self._pieces = self._out_len = self._seen = 0
        self._tail = ""
        self._out_origins = []
        self._out_text = []
        self.args.clear()

    def _clicked(self, position: int) -> None:
        cursor = QTextCursor(self.args.document())
        cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
        offset = len(cursor.selectedText())
        i = bisect.bisect_right(self._out_origins, (offset, float("inf"))) - 1
        if 0 <= i < len(self._out_origins):
            self.activated.emit(self._out_origins[i][1])

    def highlight(self, item: int) -> bool:
        text = "".join(self._out_text)
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        selections: list[QTextEdit.ExtraSelection] = []
        origins = self._out_origins
        for i, (start, origin) in enumerate(origins):
            if origin != item:
                continue
            end = origins[i + 1][0] if i + 1 < len(origins) else self._out_len
            cursor = QTextCursor(self.args.document())
            cursor.setPosition(utf16_len(text[:start]))
            cursor.setPosition(utf16_len(text[:end]), QTextCursor.MoveMode.KeepAnchor)
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor
            sel.format = fmt
            selections.append(sel)
        self.args.setExtraSelections(selections)
        self.setStyleSheet(
            "#toolCard { border: 2px solid #d4a017; border-radius: 6px; }"
            if selections
            else "#toolCard { border: 1px solid palette(mid); border-radius: 6px; }"
        )
        return bool(selections)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ToolCallsView(QWidget):
    """All tool calls of the run, in arrival order; server tools marked as such."""

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.area = QScrollArea(self)
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(self.area)
        self._body = QWidget()
        self._layout = QVBoxLayout(self._body)
        self._layout.setContentsMargins(2, 2, 2, 2)
        self._layout.setSpacing(6)
        self.empty = QLabel("Tool calls the model makes show here, one card each.", self._body)
        self.empty.setStyleSheet("color: gray;")
        self._layout.addWidget(self.empty)
        self._layout.addStretch(1)
        self.area.setWidget(self._body)
        self.cards: list[ToolCallCard] = []
        self._calls: list[ToolCallState] | None = None

    def reset(self) -> None:
        for card in self.cards:
            self._layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        self._calls = None
        self.empty.show()

    def refresh(self, state: StreamState) -> None:
        calls = state.tool_calls
        if calls is not self._calls:
            if self._calls is not None:
                self.reset()  # a new run's state
            self._calls = calls
        while len(self.cards) < len(calls):
            card = ToolCallCard(self._body)
            card.activated.connect(self.itemActivated)
            self._layout.insertWidget(self._layout.count() - 1, card)
            self.cards.append(card)
            self.empty.hide()
        for card, call in zip(self.cards, calls):
            card.sync(call)

    def finish(self, state: StreamState) -> None:
        self.refresh(state)

    def highlight_item(self, item: int) -> None:
        for card in self.cards:
            if card.highlight(item):
                self.area.ensureWidgetVisible(card)

    def has_content(self) -> bool:
        return bool(self.cards)
