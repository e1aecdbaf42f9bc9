"""LiveText: a read-only text view that follows a TextBuffer by appending only its new suffix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QWidget

if TYPE_CHECKING:  # types only: the state loads with the first run (startup)
    from playground.protocol.state import TextBuffer

__all__ = ["LiveText", "utf16_len"]

HIGHLIGHT = QColor(255, 200, 0, 110)
PARAGRAPH_LIMIT = 2000  # characters of one paragraph laid out while streaming (see _insert)
# Above this many characters the answer stays plain text at the end: parsing and laying out a
# Markdown document that size blocks the UI thread for 100 ms and more (issue 7: stalls), and
# the plain text is already on screen.
MARKDOWN_LIMIT = 200_000


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (QTextDocument positions), not code points."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


class LiveText(QTextEdit):
    """Shows a TextBuffer as it grows; plain text while streaming, Markdown once rendered.

    Each ``sync`` appends ``buffer.since(shown)`` at the end of the document with a QTextCursor
    (issue 7: re-setting the whole text per token grows quadratically). Clicks map back to the
    timeline item that carried the text (``TextBuffer.item_at``); ``highlight`` marks its spans.
    """

    activated = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, placeholder: str = "") -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self.setUndoRedoEnabled(False)  # the undo stack would keep every append
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        if placeholder:
            self.setPlaceholderText(placeholder)
        self._buffer: TextBuffer | None = None
        self._shown = 0  # code points of the buffer already in the document
        self._block_len = 0  # characters in the last paragraph shown
        self._rendered = False
        self._source = ""  # the text that was rendered as Markdown
        self._press: tuple[int, int] | None = None
        self.char_format: QTextCharFormat | None = None

    # -- following the buffer ------------------------------------------------------------------

    def reset(self) -> None:
        self._buffer = None
        self._shown = 0
        self._block_len = 0
        self._rendered = False
        self._source = ""
        self.setExtraSelections([])
        self.clear()

    @property
    def shown(self) -> int:
        return self._shown

    @property
    def rendered(self) -> bool:
        return self._rendered

    def sync(self, buffer: TextBuffer) -> bool:
        """Append what ``buffer`` holds beyond what is shown; True if anything was added."""
        if self._buffer is not None and (buffer is not self._buffer or len(buffer) < self._shown):
            self.reset()  # a new run (or a replaced buffer): start over
        if self._rendered:
            return False  # rendered once at finish; more text would only come from a new run
        self._buffer = buffer
        new = buffer.since(self._shown)
        if not new:
            return False
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self._insert(cursor, new)
        self._shown += len(new)
        if at_bottom:
            bar.setValue(bar.maximum())
        return True

    def _insert(self, cursor: QTextCursor, text: str) -> None:
        # Qt lays a paragraph out whole on every change, so one endless paragraph makes each
        # append cost more than the last (issue 7, render_growth). While streaming, a paragraph
        # longer than PARAGRAPH_LIMIT is broken at a space: the space becomes the block break
        # (one position for one character, so offsets and linked views still line up).
        fmt = self.char_format
        rest = text
        block = self._block_len
        while block + len(rest) > PARAGRAPH_LIMIT:
            newline = rest.rfind("\n")
            if newline >= 0 and block + newline <= PARAGRAPH_LIMIT:
                # A real line end is near: the paragraph stays short without help.
                self._put(cursor, rest[: newline + 1], fmt)
                rest = rest[newline + 1 :]
                block = 0
                continue
            space = rest.find(" ", max(0, PARAGRAPH_LIMIT - block))
            if space < 0:
                break
            self._put(cursor, rest[:space], fmt)
            cursor.insertBlock()
            rest = rest[space + 1 :]
            block = 0
        self._put(cursor, rest, fmt)
        newline = rest.rfind("\n")
        self._block_len = len(rest) - newline - 1 if newline >= 0 else block + len(rest)

    @staticmethod
    def _put(cursor: QTextCursor, text: str, fmt: QTextCharFormat | None) -> None:
        if not text:
            return
        if fmt is not None:
            cursor.insertText(text, fmt)
        else:
            cursor.insertText(text)

    def render_markdown(self) -> None:
        """Swap the plain text for rendered Markdown (once, at the end of the stream)."""
        if self._rendered or self._buffer is None or not self._shown:
            return
        if self._shown > MARKDOWN_LIMIT:
            return
        self._source = self._buffer.value[: self._shown]
        self.setExtraSelections([])
        self.document().setMarkdown(self._source)
        self._rendered = True

    # -- linked views --------------------------------------------------------------------------

    def item_at_position(self, position: int) -> int | None:
        """The timeline item behind document position ``position``."""
        if self._buffer is None:
            return None
        offset = self._offset_of(position)
        return self._buffer.item_at(offset) if offset is not None else None

    def _offset_of(self, position: int) -> int | None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(0)
        cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
        before = cursor.selectedText()  # code points; a block break is one U+2029
        if not self._rendered:
            return min(len(before), max(0, self._shown - 1))
        # Rendered Markdown no longer lines up with the source: find the clicked words in it.
        rendered = self.document().toPlainText()
        here = len(before)
        snippet = rendered[max(0, here - 12) : here + 12].strip()
        source = self._source
        if not source:
            return None
        approx = here * len(source) // max(1, len(rendered))
        if snippet:
            found = _nearest(source, snippet, approx)
            if found >= 0:
                lead = rendered[max(0, here - 12) : here]
                return min(len(source) - 1, found + len(lead.lstrip()))
        return min(len(source) - 1, approx)

    def highlight(self, item: int) -> bool:
        """Mark the text that timeline item ``item`` carried; False if it carried none here."""
        if self._buffer is None:
            self.setExtraSelections([])
            return False
        spans = self._buffer.spans_of(item)
        selections: list[QTextEdit.ExtraSelection] = []
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        text = self._buffer.value
        rendered = self.document().toPlainText() if self._rendered else ""
        first: QTextCursor | None = None
        for start, end in spans:
            if start >= self._shown:
                continue
            end = min(end, self._shown)
            if self._rendered:
                needle = text[start:end].strip()
                if not needle:
                    continue
                approx = start * len(rendered) // max(1, len(self._source))
                found = _nearest(rendered, needle, approx)
                if found < 0:
                    continue
                a, b = utf16_len(rendered[:found]), utf16_len(rendered[: found + len(needle)])
            else:
                a, b = utf16_len(text[:start]), utf16_len(text[:end])
            cursor = QTextCursor(self.document())
            cursor.setPosition(a)
            cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
            sel = QTextEdit.ExtraSelection()
            sel.cursor = cursor
            sel.format = fmt
            selections.append(sel)
            if first is None:
                first = QTextCursor(cursor)
        self.setExtraSelections(selections)
        if first is not None:
            self.setTextCursor(first)
            self.ensureCursorVisible()
        return bool(selections)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        self._press = (point.x(), point.y())
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        point = event.position().toPoint()
        press, self._press = self._press, None
        if event.button() != Qt.MouseButton.LeftButton or press is None:
            return
        if abs(point.x() - press[0]) + abs(point.y() - press[1]) > 4:
            return  # a drag selects text; only a click links
        position = self.cursorForPosition(point).position()
        item = self.item_at_position(position)
        if item is not None:
            self.activated.emit(item)


def _nearest(hay: str, needle: str, approx: int) -> int:
    """The occurrence of ``needle`` in ``hay`` closest to ``approx``; -1 if none."""
    after = hay.find(needle, max(0, approx - len(needle)))
    before = hay.rfind(needle, 0, max(0, approx) + len(needle))
    if after < 0:
        return before
    if before < 0:
        return after
    return after if abs(after - approx) <= abs(approx - before) else before
