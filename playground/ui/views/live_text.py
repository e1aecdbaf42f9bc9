"""LiveText: a read-only text view that follows a TextBuffer, as plain text or live Markdown."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QGuiApplication,
    QMouseEvent,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QTextEdit, QWidget

from .source_locate import locate, nearest

if TYPE_CHECKING:  # types only: the state loads with the first run (startup)
    from playground.protocol.state import TextBuffer

    from .gap_marks import Gap
    from .markdown_doc import LiveMarkdown, Shown

__all__ = ["LiveText", "utf16_len"]

HIGHLIGHT = QColor(255, 200, 0, 110)
PARAGRAPH_LIMIT = 2000  # characters of one paragraph laid out while streaming (see _insert)
# Rendering work per sync for blocks that closed in a burst; the rest follows on a timer, so a
# 200,000-character answer opened at once renders in slices and never freezes the window.
BUDGET = 0.005
CATCH_UP_REPAINT = 0.1  # s between repaints while rendering is behind (_pace_repaints)
# Plain text: a sync shows up to BUDGET's worth of new text (at the cost per character the last
# inserts took) and the rest follows on the timer, as Markdown's closed blocks do. Under a flood
# one frame's text had reached tens of thousands of characters, laid out in one go: the plain
# view's p99 frame stall read 20-30 ms where the Markdown view's read 10-12 (2-core AMD EPYC).
# Below SLICE_MIN characters a sync shows all it has (a fast model's frame is a few dozen).
SLICE_MIN = 2000
BACKLOG_PACE = 2.0  # while behind, the next slice waits this many times the last one's cost


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (QTextDocument positions), not code points."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


class LiveText(QTextEdit):
    """Shows a TextBuffer as it grows: plain text, or (``markdown=True``) Markdown rendered live.

    Plain: each ``sync`` appends ``buffer.since(shown)`` at the end of the document with a
    QTextCursor (re-setting the whole text per token grows quadratically), a budget's worth of
    it when a flood brought more, the rest from the timer. Markdown: the new
    text goes to a ``LiveMarkdown``, which renders each closed block once and lays out again
    only the open one. Either way clicks map back to the timeline item that carried the text
    (``TextBuffer.item_at``) and ``highlight`` marks an item's spans.

    The one API other views use: ``sync(buffer)`` while a stream runs, ``render_markdown()``
    when it ends, or ``show_text(text)`` for a finished text (History, Compare).
    """

    activated = Signal(int)

    def __init__(
        self, parent: QWidget | None = None, *, placeholder: str = "", markdown: bool = False
    ) -> None:
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
        if markdown:
            # Break lines between words only: Qt's default also breaks inside a word when a table
            # column is narrow ("Approa|ch"); a table too wide for the view scrolls sideways,
            # as a long code line does.
            self.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        self.markdown = markdown
        self._buffer: TextBuffer | None = None
        self._shown = 0  # code points of the buffer already in the document
        self._block_len = 0  # characters in the last paragraph shown (plain)
        self._per_char = 0.0  # seconds a plain insert took per character (0: not known yet)
        self._press: tuple[int, int] | None = None
        self._static = False  # show_text: no timeline behind the text
        self.char_format: QTextCharFormat | None = None
        self.live_markdown: LiveMarkdown | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._work)
        self._repainted = 0.0  # when _pace_repaints last let the view repaint

    # -- following the buffer ------------------------------------------------------------------

    def reset(self) -> None:
        self._buffer = None
        self._shown = 0
        self._block_len = 0
        self._static = False
        self._timer.stop()
        self._set_repaints(True)
        self.live_markdown = None  # the next run's renderer takes the theme in force then
        self.setExtraSelections([])
        self.clear()

    @property
    def shown(self) -> int:
        return self._shown

    @property
    def rendered(self) -> bool:
        """Whether the document shows rendered Markdown (so it no longer equals the source)."""
        return self.markdown and self._shown > 0

    @property
    def _source(self) -> str:
        """The source text the document shows."""
        return self._buffer.value[: self._shown] if self._buffer is not None else ""

    @property
    def pending(self) -> bool:
        """Text received but not laid out yet (a burst being shown in slices)."""
        if self.live_markdown is not None:
            return self.live_markdown.pending
        return not self.markdown and self._buffer is not None and len(self._buffer) > self._shown

    def sync(self, buffer: TextBuffer) -> bool:
        """Show what ``buffer`` holds beyond what is shown; True if anything was added."""
        if self._buffer is not None and (buffer is not self._buffer or len(buffer) < self._shown):
            self.reset()  # a new run (or a replaced buffer): start over
        if self.live_markdown is not None and self.live_markdown.finished:
            return False  # finished; more text would only come from a new run
        self._buffer = buffer
        if not self.markdown:
            if len(buffer) <= self._shown:
                return False
            self._show_plain()
            return True
        new = buffer.since(self._shown)
        if not new:
            return False
        self._shown += len(new)
        self._live().feed(new)
        # Inside the frame only the new text goes in (as the plain tail); a render step that is
        # due runs from the timer, in an event-loop turn of its own, so the frame's work and the
        # step's never block the UI thread back to back (ui_stall_p99_ms).
        self._work(defer=True)
        return True

    def _show_plain(self, *, whole: bool = False) -> None:
        """Append what the buffer holds beyond what is shown, BUDGET's worth of it when it is
        long (all of it if ``whole``); the timer shows the rest."""
        if self._buffer is None:
            return
        clock = time.perf_counter
        started = clock()
        waiting = len(self._buffer) - self._shown
        limit = waiting
        if not whole and limit > SLICE_MIN and self._per_char > 0:
            limit = max(SLICE_MIN, int(BUDGET / self._per_char))
        # Only the slice is copied out of the buffer, not the whole backlog behind it.
        piece = self._buffer.value[self._shown : self._shown + limit]
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self._insert(cursor, piece)
        self._shown += len(piece)
        if at_bottom:
            bar.setValue(bar.maximum())
        cost = clock() - started
        if len(piece) >= SLICE_MIN // 10:  # a few characters say more about fixed costs
            rate = cost / len(piece)
            self._per_char = rate if self._per_char <= 0 else 0.7 * self._per_char + 0.3 * rate
        behind = len(piece) < waiting
        self._pace_repaints(behind)
        if behind:
            self._timer.start(max(0, int(BACKLOG_PACE * cost * 1000)))

    def render_markdown(self) -> None:
        """The stream ended: lay out its last block as final (the same look it had while open)."""
        if self.markdown and self._shown:
            self._live().finish()
            self._work()

    def mark_gap(self, gap: Gap) -> None:
        """Text was lost at ``gap.offset`` (an unreadable event): show a mark at that place.
        Only rendered Markdown has room for one (the plain view keeps one position per source
        character, which the linked views rely on)."""
        if self.markdown:
            self._live().mark_gap(gap)
            self._work()

    def show_text(self, text: str) -> None:
        """Show a finished text (no timeline behind it), rendered in slices if it is long."""
        from playground.protocol.state import TextBuffer

        self.reset()
        buffer = TextBuffer()
        buffer.append(text, 0)
        self.sync(buffer)
        self.render_markdown()
        self._static = True

    def flush(self) -> None:
        """Lay out everything received now, whatever it costs (a dump, a test)."""
        if not self.markdown and self.pending:
            self._timer.stop()
            self._show_plain(whole=True)
        live = self.live_markdown
        if live is not None:
            self._timer.stop()
            live.throttle, throttle = False, live.throttle
            while live.step(10.0) is not None:
                pass
            live.throttle = throttle
            self._pace_repaints(behind=False)

    def _live(self) -> LiveMarkdown:
        if self.live_markdown is None:
            from playground.ui.kit.theme import is_dark

            from .markdown_doc import LiveMarkdown
            from .markdown_render import BlockRenderer

            renderer = BlockRenderer(dark=is_dark(), base=self.char_format)
            self.live_markdown = LiveMarkdown(self.document(), renderer)
        return self.live_markdown

    def _work(self, *, defer: bool = False) -> None:
        live = self.live_markdown
        if live is None:
            if self.pending:  # plain text shown in slices
                self._show_plain()
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        # A step from the timer leaves the reader running (a step inside a frame runs with it
        # paused, as all of the frame's work does). Since plain blocks skip md4c a step is
        # mostly Qt's layout, which runs beside the reader's decode: with the reader paused for
        # each step, the window's best rate under a flood was 4-13 % lower in three sets of
        # 8-10 runs (2-core AMD EPYC), for a p99 stall 0.4-1.1 ms shorter.
        delay = live.step(BUDGET, defer=defer)
        if at_bottom:
            bar.setValue(bar.maximum())
        self._pace_repaints(live.behind, CATCH_UP_REPAINT if defer else 2 * CATCH_UP_REPAINT)
        if delay is not None:
            self._timer.start(max(0, int(delay * 1000)))

    def _pace_repaints(self, behind: bool, every: float = CATCH_UP_REPAINT) -> None:
        """While rendering catches up with text that came in a burst (a flood, a long answer
        shown at once), the view repaints at most every ``every`` seconds, not after each step:
        a step's repaint took as long as the step itself (the window's paint of the view, its
        scroll bar and their containers, 3-4 ms on a 2-core AMD EPYC), and the steps come every
        10-15 ms while behind. ``_work`` passes CATCH_UP_REPAINT in a frame (the view's sync),
        where the repaint rides with the frame's own paint, and twice that from the view's own
        timer, so a step repaints on its own only when no frame came. The steps' work shows
        all at once on the next repaint; other widgets paint as ever."""
        now = time.perf_counter()
        if behind and now - self._repainted < every:
            self._set_repaints(False)
            return
        self._set_repaints(True)
        self._repainted = now

    def _set_repaints(self, on: bool) -> None:
        # The viewport and the scroll bars, not the view itself: a view that is a window of its
        # own (a test's) stopped painting for good once its updates had been switched off.
        for part in (self.viewport(), self.verticalScrollBar(), self.horizontalScrollBar()):
            if part.updatesEnabled() != on:
                part.setUpdatesEnabled(on)  # on again: repaints the part once

    def _insert(self, cursor: QTextCursor, text: str) -> None:
        # Qt lays a paragraph out whole on every change, so one endless paragraph makes each
        # append cost more than the last (render_growth). While streaming, a paragraph
        # longer than PARAGRAPH_LIMIT is broken at a space: the space becomes the block break
        # (one position for one character, so offsets and linked views still line up).
        fmt = self.char_format
        block = self._block_len
        at = 0  # where the text not yet put begins (indices: no copy of the rest per break)
        while block + len(text) - at > PARAGRAPH_LIMIT:
            room = max(0, PARAGRAPH_LIMIT - block)
            # The last line end within the paragraph's room: the paragraph stays short without
            # help. (Searching the whole rest found the last line end of a long insert, beyond
            # the room, and broke lines at spaces that had line ends near them.)
            newline = text.rfind("\n", at, at + room + 1)
            if newline >= 0:
                self._put(cursor, text[at : newline + 1], fmt)
                at = newline + 1
                block = 0
                continue
            space = text.find(" ", at + room)
            if space < 0:
                break
            self._put(cursor, text[at:space], fmt)
            cursor.insertBlock()
            at = space + 1
            block = 0
        rest = text[at:] if at else text
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

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        # An image in a server's Markdown is never fetched or read from disk: only its alt text.
        return None

    # -- linked views --------------------------------------------------------------------------

    def item_at_position(self, position: int) -> int | None:
        """The timeline item behind document position ``position``."""
        if self._buffer is None or self._static:
            return None
        offset = self._offset_of(position)
        return self._buffer.item_at(offset) if offset is not None else None

    def _offset_of(self, position: int) -> int | None:
        if not self.rendered:
            cursor = QTextCursor(self.document())
            cursor.setPosition(0)
            cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
            before = cursor.selectedText()  # code points; a block break is one U+2029
            return min(len(before), max(0, self._shown - 1))
        shown = self._live().at(position)
        if shown is None:
            return None
        # Rendered Markdown no longer lines up with its source: find the clicked words in the
        # block's source, near where they are in its rendered text.
        rendered = self._plain(shown)
        # One character of the raw text per position (a selection into a table would grow to
        # whole cells, so the offset is taken from positions, not from a selection's text).
        here = max(0, min(len(rendered), position - shown.doc_start))
        source = shown.block.text
        if not source:
            return None
        approx = here * len(source) // max(1, len(rendered))
        found = locate(rendered, here, source, approx)
        return shown.block.start + min(len(source) - 1, found if found >= 0 else approx)

    def _plain(self, shown: Shown) -> str:
        cursor = QTextCursor(self.document())
        cursor.setPosition(shown.doc_start)
        cursor.setPosition(shown.doc_end, QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText()

    def highlight(self, item: int) -> bool:
        """Mark the text that timeline item ``item`` carried; False if it carried none here."""
        if self._buffer is None or self._static:
            self.setExtraSelections([])
            return False
        spans = self._buffer.spans_of(item)
        selections: list[QTextEdit.ExtraSelection] = []
        fmt = QTextCharFormat()
        fmt.setBackground(HIGHLIGHT)
        text = self._buffer.value
        first: QTextCursor | None = None
        for start, end in spans:
            if start >= self._shown:
                continue
            end = min(end, self._shown)
            if self.rendered:
                ranges = self._rendered_ranges(start, end)
            else:
                ranges = [(utf16_len(text[:start]), utf16_len(text[:end]))]
            for a, b in ranges:
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

    def _rendered_ranges(self, start: int, end: int) -> list[tuple[int, int]]:
        """Document ranges showing source ``[start, end)``: its words found in each block."""
        out: list[tuple[int, int]] = []
        for shown in self._live().overlapping(start, end):
            block = shown.block
            a, b = max(start, block.start), min(end, block.end)
            needle = block.text[a - block.start : b - block.start].strip(" \t\n*_`~#>|")
            if not needle:
                continue
            rendered = self._plain(shown)
            approx = (a - block.start) * len(rendered) // max(1, len(block.text))
            found = nearest(rendered, needle, approx)
            if found < 0:
                continue
            out.append(
                (
                    shown.doc_start + utf16_len(rendered[:found]),
                    shown.doc_start + utf16_len(rendered[: found + len(needle)]),
                )
            )
        return out

    # -- mouse ---------------------------------------------------------------------------------

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
        href = self.anchorAt(point)
        if href:
            self.follow_link(href)
            return
        position = self.cursorForPosition(point).position()
        item = self.item_at_position(position)
        if item is not None:
            self.activated.emit(item)

    def follow_link(self, href: str) -> None:
        """A code block's Copy link copies its code, a lost-text mark selects its event; any
        other link opens in the browser."""
        from .gap_marks import LOST_SCHEME
        from .markdown_render import COPY_SCHEME

        if href.startswith(LOST_SCHEME):
            if not self._static:
                self.activated.emit(int(href[len(LOST_SCHEME) :]))
            return
        if href.startswith(COPY_SCHEME):
            if self.live_markdown is not None:
                group = int(href[len(COPY_SCHEME) :])
                QGuiApplication.clipboard().setText(self.live_markdown.code_of(group))
            return
        url = QUrl(href)
        if url.scheme() in ("http", "https", "mailto"):
            open_url(url)


def open_url(url: QUrl) -> bool:
    """Open ``url`` in the user's browser (tests replace this)."""
    return QDesktopServices.openUrl(url)
