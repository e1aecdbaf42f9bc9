"""LiveMarkdown: a QTextDocument that shows growing Markdown, laying out only its open block.

The text goes through ``BlockSplitter`` (pure, playground/protocol/markdown.py); each block it
closes is rendered once at the end of the document and never touched again; the block still
open is removed and rendered anew. While a stream runs, rendering happens by time, not per
frame: after a render step that took ``c`` seconds the next waits ``max(interval, OPEN_FACTOR *
c)`` (``OPEN_INTERVAL``, or ``FAST_INTERVAL`` while text arrives far faster than anyone reads),
and what arrives in between is appended as plain text after the last render (the *tail*), so
every frame still shows every character. Under a flood (more than ``FAST_CHARS`` a step, over
15,000 characters a second) there is no tail: the text appears rendered, ten times a second.
The step then renders the closed blocks that came in since as few md4c documents as it can
(runs of paragraphs and headings go in one, ``BlockRenderer.batch``): at full loopback speed
that is a few dozen blocks per step, and one parse and one insertion for them all costs about
a third of one per block. Closed blocks that arrive in a burst once the text is complete (a
capture opened, an answer shown from History) are rendered ``budget`` seconds at a time.
"""

from __future__ import annotations

import bisect
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument

from playground.protocol.markdown import Block, BlockSplitter

from .gap_marks import GLYPH, Gap, mark_format
from .markdown_render import BlockRenderer
from .plain_prose import PlainProse, plain_text

__all__ = ["FAST_INTERVAL", "OPEN_FACTOR", "OPEN_INTERVAL", "LiveMarkdown", "Shown"]

OPEN_INTERVAL = 0.030  # s between render steps: 30 per second reads as live
# ... 10 per second while more than FAST_CHARS arrived since the last step (over 15,000
# characters a second: no one reads that; the text then shows at the steps, with no tail).
FAST_INTERVAL = 0.100
FAST_CHARS = 1500
# While a stream runs, a step that stopped at its budget with blocks still waiting is followed
# after this many times its cost, so the steps leave the reader thread its share of the core:
# at most a third of the UI thread. At 1.0 (half of it) live Markdown cost a flood 10% of the
# window's event rate, each step's repaint and open block coming twice as often for the same
# text (ui_markdown_vs_plain 0.90 against 1.05, a 2-core AMD EPYC, the answer fully laid out
# before the clock stops); what the steps leave renders as the stream ends, 5 ms at a time.
BACKLOG_PACE = 2.0
OPEN_FACTOR = 10.0  # ... and at least 10x the last step's cost, so it takes at most a tenth
# Source characters rendered as one md4c document: about 2 ms of parse and layout on a 2-core
# Xeon, so a step checks its budget often enough to stay near it (8,000 made steps of 14 ms
# under a flood, a stall of their own), and still one document for many small blocks.
BATCH_CHARS = 3000
MIN_BATCH_CHARS = 200  # ... and at least this many when the budget left is short
_BATCHED = frozenset({"paragraph", "heading"})  # one md4c block -> one QTextBlock each
T = TypeVar("T")  # what an edit's change returns (_edit)


@dataclass(slots=True)
class Shown:
    """Where a rendered block is: in the source (code points) and in the document (positions)."""

    block: Block
    doc_start: int
    doc_end: int


class LiveMarkdown:
    """Markdown text fed in deltas, shown in ``document``; ``step`` does the rendering work."""

    def __init__(self, document: QTextDocument, renderer: BlockRenderer) -> None:
        self.document = document
        self.renderer = renderer
        self.throttle = True  # the benchmark turns it off to measure every frame's full work
        self.reset()

    def reset(self) -> None:
        self._splitter = BlockSplitter()
        self._backlog: deque[Block] = deque()
        self.closed: list[Shown] = []
        self._starts: list[int] = []  # doc_start of each closed block (for bisect)
        self.open: Shown | None = None
        self._end = 0  # document position after the last closed block
        self._end_formats = (QTextBlockFormat(), QTextCharFormat())  # of the block at _end
        self._dirty = False
        self._due = 0.0
        self._codes: dict[int, dict[int, str]] = {}  # fence group -> piece start -> code
        self._gaps: list[Gap] = []  # lost text not yet in a closed block, in offset order
        self.marked: list[Gap] = []  # ... and those a closed block (or the end) shows
        self.finished = False
        self._raw: list[str] = []  # text fed since the last render step
        self._raw_len = 0
        self._tail_at = 0  # how much of _raw the tail shows
        self._tail = False  # plain text follows the last render
        self._per_char = 0.0  # seconds a closed batch took per source character (0: not known)
        self._plain: PlainProse | None = None  # md4c's formats for plain blocks, learnt once

    # -- input ---------------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        self._backlog.extend(self._splitter.feed(text))
        self._raw.append(text)
        self._raw_len += len(text)
        self._dirty = True

    def mark_gap(self, gap: Gap) -> None:
        """Text was lost at source offset ``gap.offset``: the block that holds it shows a mark.

        The answer view says so before it feeds the text that follows, so the block is not
        rendered yet (or is the open one, laid out again); a gap at the very end, once all is
        rendered, is marked at the document's end.
        """
        bisect.insort(self._gaps, gap, key=lambda g: g.offset)
        self._dirty = True
        self._due = 0.0  # shown at once, not at the next open-block turn
        if self.finished and not self._backlog:
            self._mark_end()

    def finish(self) -> None:
        if not self.finished:
            self._backlog.extend(self._splitter.finish())
            self.finished = True
            self._dirty = True
            self._due = 0.0  # the last block is laid out at once: nothing is left raw

    @property
    def pending(self) -> bool:
        return bool(self._backlog) or self._dirty

    @property
    def behind(self) -> bool:
        """Closed blocks wait to be rendered (the last step stopped at its budget)."""
        return bool(self._backlog)

    # -- rendering -----------------------------------------------------------------------------

    def step(self, budget: float, *, defer: bool = False) -> float | None:
        """Render for about ``budget`` seconds; None when all is shown, else seconds until the
        next step is due (0: closed blocks are still waiting). ``defer``: while a stream runs
        faster than FAST_CHARS a step, only show the new text (the tail) and leave a due render
        step to the next call (LiveText's timer)."""
        clock = time.perf_counter
        started = clock()
        if not self._backlog and not self._dirty:
            return None
        live = self.throttle and not self.finished
        if live and started < self._due:
            if self._raw_len <= FAST_CHARS:
                self._show_tail()  # every frame shows every character, rendered or not
            # Under a flood the text shows at each render step instead: a tail there would be
            # laid out, removed and laid out again rendered, which was measured at about 40% of
            # the answer's UI-thread cost at full loopback speed, for text no one can read.
            return self._due - started
        if live and defer and self._raw_len > FAST_CHARS:
            # Due now: the timer's step renders it all in a moment (a tail laid out now would
            # only be removed again).
            return 0.0
        fast = self._raw_len > FAST_CHARS
        self._raw, self._raw_len, self._tail_at = [], 0, 0
        if self._backlog:
            self._edit(self._drop_open)
            rendered = False
            while self._backlog:
                # One insertion per batch of closed blocks, laid out as it goes in: the clock
                # sees the layout's cost too. Each batch is sized to the budget left at the
                # cost per character the last batches took, and the step ends before a batch
                # that would overrun it (on a 2-core AMD EPYC a fixed 3,000-character batch
                # took 6 ms, and two of them made a 5 ms step a 12-17 ms block).
                left = budget - (clock() - started)
                if not rendered or left >= self._per_char * len(self._backlog[0].text):
                    self._render_batch(left)
                    rendered = True
                    left = budget - (clock() - started)
                    if left >= 0 or not self._backlog:
                        continue
                # The rest follows in the timer's next turns. (Putting it back as the tail
                # meanwhile was measured: on a busy machine the extra layout made the steps
                # slower, the backlog longer and the next tail longer still.) While the stream
                # runs, the next turn waits BACKLOG_PACE times this step's cost: back to back,
                # the steps took the core the reader thread shares with the UI.
                if self.finished or not self.throttle:
                    return 0.0
                return BACKLOG_PACE * (clock() - started)
        if not self._dirty:
            return None
        self._dirty = False
        self._edit(self._replace_open)
        if self.finished:
            self._mark_end()
        cost = clock() - started
        interval = FAST_INTERVAL if fast else OPEN_INTERVAL
        self._due = clock() + max(interval, OPEN_FACTOR * cost)
        return None

    def _show_tail(self) -> None:
        """Append the text fed since the last render step as plain text (cheap: no parse, and
        Qt lays out only the last paragraph); the next step replaces it with its rendering."""
        text = "".join(self._raw[self._tail_at :])
        self._tail_at = len(self._raw)
        if not text:
            return
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        fmt = QTextCharFormat(self.renderer.base) if self.renderer.base else QTextCharFormat()
        first, newline, rest = text.partition("\n")
        cursor.beginEditBlock()
        if not self._tail and self.open is None and (self.closed or self._end):
            newline, rest = "\n", text  # nothing open to continue: start a line of its own
        elif first:
            cursor.insertText(first, fmt)  # the open block's last line goes on
        self._tail = True
        if newline:
            # One new plain block, then the rest in one insertion (Qt splits its lines): its
            # lines take the plain block's format, not a heading's or a code line's.
            cursor.insertBlock(QTextBlockFormat(), fmt)
            if rest:
                cursor.insertText(rest, fmt)
        cursor.endEditBlock()

    def _render_batch(self, budget: float) -> None:
        """Render the next closed blocks (about ``budget`` seconds' worth, at least one) as one
        edit, and learn the cost per source character from it."""
        clock = time.perf_counter
        started = clock()
        limit = BATCH_CHARS
        if self._per_char > 0:
            limit = max(MIN_BATCH_CHARS, min(BATCH_CHARS, int(budget / self._per_char)))
        chars = self._edit(lambda: self._render_closed(limit))
        if chars >= MIN_BATCH_CHARS:  # a few characters say more about fixed costs than rates
            rate = (clock() - started) / chars
            self._per_char = rate if self._per_char <= 0 else 0.7 * self._per_char + 0.3 * rate

    def _render_closed(self, limit: int = BATCH_CHARS) -> int:
        """The next closed block, or a run of paragraphs and headings of up to ``limit`` source
        characters rendered as one; returns the characters rendered."""
        block = self._backlog.popleft()
        batched = block.kind in _BATCHED and not self._gaps
        plain = plain_text(block) if batched and self.closed else None
        if plain is not None:
            return self._render_plain(block, plain, limit)
        run = [block]
        size = len(block.text)
        if batched and not block.continued:
            while self._backlog and size < limit:
                following = self._backlog[0]
                if following.kind not in _BATCHED or following.continued:
                    break
                run.append(self._backlog.popleft())
                size += len(following.text)
        got = self.renderer.batch(run, leading=bool(self.closed)) if len(run) > 1 else None
        if got is None:
            for one in run:
                self._add_closed(self._render(one))
            return size
        fragment, ends = got
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        start = cursor.position()
        cursor.insertFragment(fragment)
        before = start
        for one, end in zip(run, ends, strict=True):
            self.closed.append(Shown(one, before, start + end))
            self._starts.append(before)
            before = start + end
        self.closed[-1].doc_end = self._end = cursor.position()
        self._keep_end_formats()
        return size

    def _render_plain(self, block: Block, plain: tuple[str, int], limit: int) -> int:
        """``block`` and the plain paragraphs and headings after it (up to ``limit`` source
        characters) inserted as text in md4c's formats (plain_prose); returns the characters."""
        run, texts = [block], [plain]
        size = len(block.text)
        while self._backlog and size < limit:
            following = self._backlog[0]
            shown = plain_text(following) if following.kind in _BATCHED else None
            if shown is None:
                break
            run.append(self._backlog.popleft())
            texts.append(shown)
            size += len(following.text)
        if self._plain is None:
            self._plain = PlainProse(self.renderer)
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        before = cursor.position()
        for one, end in zip(run, self._plain.insert(cursor, texts), strict=True):
            self.closed.append(Shown(one, before, end))
            self._starts.append(before)
            before = end
        self._end = before
        self._keep_end_formats()
        return size

    def _add_closed(self, shown: Shown) -> None:
        self.closed.append(shown)
        self._starts.append(shown.doc_start)
        self._end = shown.doc_end
        self._keep_end_formats()

    def _edit(self, change: Callable[[], T]) -> T:
        # One edit block: the view lays the change out once, not once per part of it.
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        try:
            return change()
        finally:
            cursor.endEditBlock()

    def _replace_open(self) -> None:
        self._drop_open()
        block = self._splitter.open_block()
        if block is not None:
            self.open = self._render(block, open_block=True)

    def _keep_end_formats(self) -> None:
        last = self.document.lastBlock()
        self._end_formats = (last.blockFormat(), last.charFormat())

    def _render(self, block: Block, *, open_block: bool = False) -> Shown:
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        start = cursor.position()
        gaps: list[Gap] = []
        if self._gaps and block.kind != "rule":  # a rule has no text to hold a mark
            # A closed block takes the gaps before its end; the open one all that are left.
            cut = (
                len(self._gaps)
                if open_block
                else bisect.bisect_left(self._gaps, block.end, key=lambda g: g.offset)
            )
            gaps = self._gaps[:cut]
            if not open_block:
                del self._gaps[:cut]
                self.marked.extend(gaps)
        self.renderer.insert(cursor, block, first=not self.closed, gaps=gaps)
        if block.kind == "fence":
            self._codes.setdefault(block.group, {})[block.start] = block.code
        return Shown(block, start, cursor.position())

    def _mark_end(self) -> None:
        """Gaps after the last block (the stream ended right after the lost event)."""
        if not self._gaps or self.open is not None:
            return
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        for gap in self._gaps:
            cursor.insertText(GLYPH, mark_format(gap, dark=self.renderer.colors.dark))
        self.marked.extend(self._gaps)
        self._gaps = []
        if self.closed:
            self.closed[-1].doc_end = self._end = cursor.position()
            self._keep_end_formats()

    def _drop_open(self) -> None:
        if self.open is None and not self._tail:
            return
        self.open = None
        self._tail = False
        cursor = QTextCursor(self.document)
        cursor.setPosition(self._end)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        # Qt gives the surviving block the removed one's format when the survivor is empty
        # (a table's trailing block, the document's first): put back what it had.
        block_format, char_format = self._end_formats
        cursor.setBlockFormat(block_format)
        cursor.setBlockCharFormat(char_format)

    # -- lookups -------------------------------------------------------------------------------

    def at(self, position: int) -> Shown | None:
        """The rendered block holding document position ``position``."""
        if self.open is not None and position >= self.open.doc_start:
            return self.open
        k = bisect.bisect_right(self._starts, position) - 1
        if k < 0:
            return self.closed[0] if self.closed else self.open
        return self.closed[k]

    def overlapping(self, start: int, end: int) -> list[Shown]:
        """Rendered blocks whose source overlaps ``[start, end)``."""
        shown = [*self.closed, self.open] if self.open is not None else self.closed
        lo = bisect.bisect_right([s.block.end for s in self.closed], start)
        return [s for s in shown[lo:] if s.block.start < end and s.block.end > start] or [
            s for s in shown[max(0, lo - 1) : lo + 1] if s.block.start <= start < s.block.end + 1
        ]

    def code_of(self, group: int) -> str:
        """All of a fenced code block's text (its pieces, in order)."""
        pieces = self._codes.get(group, {})
        return "\n".join(pieces[k] for k in sorted(pieces))
