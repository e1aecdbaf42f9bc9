"""Parking: the rendered text of a thread's older turns put away while far out of view.

A laid-out answer of 4,000 characters weighs ~0.35 MB in Qt (its document's layout): kept for
every turn, that was most of a long session's memory growth (measured: 50 answers of 2,000
tokens). The newest turns keep their text wherever the pane is scrolled; an older turn more than
a view's height out of view has a ``ParkedText`` of the same height in its place (the rendered
document not laid out, ~40 KB), and gets its text rendered again as it comes near.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, QTimer
from PySide6.QtWidgets import QWidget

from playground.ui.runtime import idle

if TYPE_CHECKING:
    from playground.ui.conversation.thread_view import ThreadView
    from playground.ui.conversation.turn_block import TurnBlock
    from playground.ui.conversation.turn_widgets import TurnText

__all__ = ["KEEP_RENDERED", "ParkedText", "Parking", "park", "unpark"]

KEEP_RENDERED = 8  # the newest turns: their text stays rendered
BUDGET_S = 0.004  # a pass's work before it leaves the rest to the next turn of the event loop
SCROLL_REST_S = 0.3  # parking waits until the user has not scrolled for this long


class ParkedText(QWidget):
    """A turn's rendered text put away: as tall as the text shown, without the text laid out."""

    def __init__(self, shown: TurnText) -> None:
        super().__init__()
        self.source = shown.source
        # Laid out only to measure it at a new width. PySide ties a clone to the document it
        # was cloned from: with the turn's text deleted, it was gone too, and the next resize
        # of the pane crashed measuring it. Parented here, it lives as long as this widget.
        self._doc = shown.document().clone()
        self._doc.setParent(self)
        self._doc.setDefaultFont(shown.document().defaultFont())
        self._heights = dict(shown._heights)
        self._frame = shown.frameWidth()
        self._bar = shown.horizontalScrollBar().sizeHint().height()
        self._width = shown.sizeHint().width()
        self.setSizePolicy(shown.sizePolicy())
        self.setMinimumHeight(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            from playground.ui.conversation.turn_widgets import text_height

            # A copy laid out and dropped at once: the layout is what weighs. (Unparented, it
            # is Python's to free; as cloned it would live on, laid out, until the document.)
            copy = self._doc.clone()
            copy.setParent(None)
            inner = max(width - 2 * self._frame, 1)
            height = self._heights[width] = text_height(copy, inner, self._frame, self._bar)
        return height

    def sizeHint(self) -> QSize:
        return QSize(
            self._width, self.heightForWidth(self.width() if self.width() > 1 else self._width)
        )

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # the text as the turn would show it now
            self._doc.setDefaultFont(self.font())
            self._heights.clear()
            self.updateGeometry()
        super().changeEvent(event)


def park(block: TurnBlock) -> None:
    """Far out of view: ``block``'s rendered text put away, its place kept as tall."""
    shown = block.text_view
    if shown is None or block.editor is not None:
        return
    block.parked = ParkedText(shown)
    block.parts_layout.replaceWidget(shown, block.parked)
    block.parked.show()
    shown.setParent(None)
    shown.deleteLater()
    block.text_view = None


def unpark(block: TurnBlock) -> None:
    """Near the view again: ``block``'s text rendered in the place kept for it."""
    parked = block.parked
    if parked is None:
        return
    block.text_view = block.view.text_view(parked.source)
    block.parts_layout.replaceWidget(parked, block.text_view)
    block.text_view.show()
    parked.setParent(None)
    parked.deleteLater()
    block.parked = None


def _pending(block: TurnBlock) -> bool:
    """Whether ``block`` is a turn not built yet (pending_turns.py, which imports this
    module's neighbours: asked of the class, not imported)."""
    return bool(getattr(type(block), "pending", False))


class Parking:
    """Parks and unparks a ThreadView's turns as it is scrolled and as its turns change."""

    def __init__(self, view: ThreadView) -> None:
        self.view = view
        self._timer: QTimer | None = None
        self._rest_timer: QTimer | None = None
        view.scroller.verticalScrollBar().valueChanged.connect(self.soon)

    def _after_rest(self) -> None:
        """Look again once the user has stopped scrolling for SCROLL_REST_S."""
        if self._rest_timer is None:
            self._rest_timer = QTimer(self.view)
            self._rest_timer.setSingleShot(True)
            self._rest_timer.timeout.connect(self.now)
        self._rest_timer.start(int(SCROLL_REST_S * 1000))

    def soon(self) -> None:
        """Look again once the blocks are laid out where they will be."""
        if self._timer is None:
            if len(self.view.blocks) <= KEEP_RENDERED:
                return
            self._timer = QTimer(self.view)
            self._timer.setSingleShot(True)
            self._timer.setInterval(0)
            self._timer.timeout.connect(self.now)
        self._timer.start()

    def now(self) -> None:
        """Older turns far out of view parked; those near it (and the newest) rendered, the
        visible ones first. Each pass does about BUDGET_S of it and leaves the rest to the next
        turn of the event loop: scrolling a page into turns not built yet (pending_turns.py)
        or parked built or rendered two or three at once, 25-70 ms frames (measured, 200 turns
        with code and tables)."""
        view = self.view
        blocks = view.blocks
        bar = view.scroller.verticalScrollBar()
        seen = view.scroller.viewport().height()
        margin = max(seen, 400)
        shown_top, shown_bottom = bar.value(), bar.value() + seen
        top, bottom = shown_top - margin, shown_bottom + margin
        # The blocks near the view, found by bisection (they are laid out in order): asking
        # every block where it is cost 20 us a block, 8 ms a change with 400 turns.
        first = bisect_left(blocks, top, key=lambda b: b.y() + b.height() - 1)
        last = bisect_right(blocks, bottom, key=lambda b: b.y())
        oldest_kept = len(blocks) - KEEP_RENDERED
        wanted = [
            b
            for i, b in enumerate(blocks)
            if (i >= oldest_kept or first <= i < last) and (b.parked is not None or _pending(b))
        ]
        away = [
            b
            for i, b in enumerate(blocks)
            if i < oldest_kept
            and not first <= i < last
            and b.text_view is not None
            and not _pending(b)
        ]

        def distance(block: TurnBlock) -> int:
            y = block.y()
            return max(0, y - shown_bottom, shown_top - (y + block.height()))

        wanted.sort(key=distance)
        deadline = time.perf_counter() + BUDGET_S
        stepped = False  # a turn not built yet took a step: the next pass goes on with it
        for n, block in enumerate(wanted):
            if n and time.perf_counter() > deadline:
                self.soon()
                return
            if _pending(block):
                # Built in steps, each in a pass of its own: its text rendered, its block made
                # around it, then the block put in its place (the blocks below move, the view
                # keeps its place: the next pass looks again). Built in one pass, an answer
                # with code and a table cost 15-25 ms.
                if block.prepare():  # type: ignore[attr-defined]
                    stepped = True
                    continue
                block.build_in_view()  # type: ignore[attr-defined]
                self.soon()
                return
            unpark(block)
        if stepped:
            self.soon()
            return
        if away and idle.scrolled_within(SCROLL_REST_S):
            # While the user scrolls, what went out of view stays rendered: parking it cost a
            # frame 4-7 ms each (its document cloned), and scrolling back rendered it again.
            self._after_rest()
            return
        for n, block in enumerate(away):
            if (n or wanted) and time.perf_counter() > deadline:
                self.soon()
                return
            park(block)
