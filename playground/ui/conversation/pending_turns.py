"""Pending turns: a long thread's far turns shown as stand-ins of about their height until seen.

Opening a saved conversation of 200 turns (answers of ~300 words with a code block and a table)
built every turn's block with its Markdown rendered and measured at every width asked: 2.2 s
before the paint of its last screen (measured, 1560x920, a 2-core AMD EPYC). When ThreadView
builds many turns at once, only the newest (those the last screens show) are built; each one
before them is a ``PendingBlock``: a TurnBlock's place, as tall as its text is estimated to be,
without its widgets. Parking (parking.py) builds a stand-in's real block as it comes near the
view, in steps (``prepare``, then ``build_near``), keeping what the view shows where it was (the
estimate is not the real height). Anything
asked of a stand-in that only a real block has (its buttons, its text) builds the real block
first and answers from it, so every turn is always in ``ThreadView.blocks`` and usable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QSignalBlocker, QSize
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QFrame, QSizePolicy, QVBoxLayout, QWidget

from playground.ui.conversation.turn_block import ACCENT_WIDTH, ACCENTS, TurnBlock, cut

if TYPE_CHECKING:
    from playground.protocol.conversation import Turn
    from playground.ui.conversation.thread_view import ThreadView
    from playground.ui.conversation.turn_widgets import TurnText

__all__ = [
    "PENDING_OVER",
    "PendingBlock",
    "build",
    "build_near",
    "first_built",
    "make_block",
    "prepare",
    "unbuilt",
]

# Building more turns than this at once (opening a conversation, a preset) leaves the far ones
# pending. A run's end or an edit builds one or two: those are always built at once.
PENDING_OVER = 16
NEWEST_BUILT = 8  # at least these newest turns are built (as parking keeps them rendered)
SCREENS_BUILT = 2  # ... and as many more as fill this many view heights, by the estimate
_HEAD = 28  # a block's role and action row, its margins and spacing (px, at the default font)


@dataclass(frozen=True)
class _Shape:
    """What a Markdown text's height depends on, read once however many widths are asked."""

    paragraphs: tuple[int, ...]  # characters of each prose paragraph (wrapped)
    items: tuple[int, ...]  # characters of each heading or list item (wrapped, a taller line)
    code_lines: int  # lines inside fences (never wrapped: a sideways bar)
    fences: int
    table_rows: int  # rows but the header's rule


@lru_cache(maxsize=256)
def _shape(text: str) -> _Shape:
    paragraphs: list[int] = []
    items: list[int] = []
    code_lines = fences = table_rows = 0
    paragraph = 0
    fenced = False
    for raw in text.splitlines():
        stripped = raw.strip()
        prose = not fenced and bool(stripped) and not stripped.startswith(("```", "|", "#"))
        prose = prose and not stripped.startswith(("- ", "* ", "1. "))
        if prose:
            paragraph += len(stripped) + 1
            continue
        if paragraph:
            paragraphs.append(paragraph)
            paragraph = 0
        if stripped.startswith("```"):
            fences += 1
            fenced = not fenced
        elif fenced:
            code_lines += 1
        elif stripped.startswith("|"):
            table_rows += bool(set(stripped) - set("|-: "))  # not the header's rule
        elif stripped:
            items.append(len(stripped))
    if paragraph:
        paragraphs.append(paragraph)
    return _Shape(tuple(paragraphs), tuple(items), code_lines, fences, table_rows)


@lru_cache(maxsize=16)
def _metrics(described: str) -> tuple[int, int, int]:
    """A font's average character width and line spacing, and the fixed font's line spacing
    (asking Qt each time was 30 of the 60 ms the open's estimates took, profiled)."""
    font = QFont()
    font.fromString(described)  # QFont.toString(): the font's every attribute
    prose = QFontMetrics(font)
    mono = QFontMetrics(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return max(1, prose.averageCharWidth()), prose.lineSpacing(), mono.lineSpacing()


def estimated_text_height(text: str, width: int, font: QFont) -> int:
    """``text`` rendered as Markdown ``width`` px wide, about (prose wrapped at the font's
    average character width, code and table rows one line each): never laid out."""
    char, line, code_line = _metrics(font.toString())
    per_line = max(1, width // char)
    shape = _shape(text)
    height = sum(math.ceil(p / per_line) * line + line * 0.6 for p in shape.paragraphs)
    height += sum(math.ceil(n / per_line) * line * 1.3 for n in shape.items)
    height += shape.code_lines * code_line + shape.fences * line * 0.5
    height += shape.table_rows * (line + 8)
    return int(height) + 8


class _EstimatedText(QWidget):
    """The place of a pending turn's parts: about as tall as they will be at each width."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self._heights: dict[int, int] = {}
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = estimated_text_height(self.text, width, self.font())
        return height

    def sizeHint(self) -> QSize:
        return QSize(200, self.heightForWidth(self.width() if self.width() > 1 else 400))

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)


class PendingBlock(TurnBlock):
    """A turn not built yet: its place in the thread and what ``ThreadView.show_thread`` asks
    of a block (index, turn, live, coming; ``hold``, ``move_to``), nothing else. Any other
    attribute is the real block's, built on the spot (``build``)."""

    def __init__(
        self, index: int, turn: Turn, live: bool, view: ThreadView, *, coming: bool = False
    ) -> None:
        QFrame.__init__(self)  # not TurnBlock's: building its widgets is what is put off
        self.index = index
        self.turn = turn
        self.live = live
        self.coming = coming
        self.view = view
        self.editor = None
        self.text_view = None
        self.parked = None
        self.real: TurnBlock | None = None  # once built: every later question goes to it
        self.prepared: TurnText | None = None  # its text, rendered ahead of the build
        self.made: TurnBlock | None = None  # its real block, made ahead of the build
        self.setObjectName("turn")
        self.accent = QColor(ACCENTS.get(turn.role, "gray"))
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(ACCENT_WIDTH + 12, _HEAD, 2, 2)
        self.box.addWidget(_EstimatedText(cut(turn.text) if not live else ""))

    pending = True  # what parking.py asks (it does not import this module)

    def prepare(self) -> bool:
        return prepare(self)

    def build_in_view(self) -> None:
        build_near(self.view, [self])

    def __getattr__(self, name: str) -> Any:
        # Only for what this class lacks (its buttons, layouts, text): the real block has it.
        if name.startswith("__") or "view" not in self.__dict__:
            raise AttributeError(name)
        return getattr(build(self), name)

    def hold(self, turn: Turn, *, coming: bool) -> None:
        if self.real is not None:
            self.real.hold(turn, coming=coming)
            return
        self.turn = turn
        self.coming = coming

    def move_to(self, index: int, turn: Turn, *, coming: bool) -> None:
        if self.real is not None:
            self.real.move_to(index, turn, coming=coming)
            return
        self.index = index
        self.hold(turn, coming=coming)

    def open_editor(self) -> None:
        build(self).open_editor()

    def close_editor(self) -> None:
        if self.real is not None:
            self.real.close_editor()

    def deleteLater(self) -> None:
        # Gone before it was built (the thread changed): what was made for it goes too (the
        # block made ahead may already be the column's child).
        for ahead in (self.made, self.prepared):
            if ahead is not None:
                ahead.hide()
                ahead.deleteLater()
        self.made = self.prepared = None
        super().deleteLater()


class _BuiltLate(TurnBlock):
    """A pending turn's real block: its size hint at the width it has."""

    def __init__(
        self, index: int, turn: Turn, live: bool, view: ThreadView, *, coming: bool = False
    ) -> None:
        self._hints: dict[int, QSize] = {}
        super().__init__(index, turn, live, view, coming=coming)

    def sizeHint(self) -> QSize:
        # QFrame's is its layout's height at the layout's hint *width*, where a turn's text
        # (a QAbstractScrollArea, 256 px wide by its hint) wraps to another height: laying out
        # an answer with code and a table at 256 px, then back at the pane's width, was half
        # of the 20-35 ms a built answer cost (measured, scrolling 200 turns). Kept per width
        # until the block's layout changes: the column asks every block at every pass (1,400
        # times a block built, 14 ms, when computed each time).
        width = self.width()
        hint = self._hints.get(width)
        if hint is None:
            box = self.box
            inner = box.sizeHint().width()
            hint = self._hints[width] = QSize(
                inner, box.totalHeightForWidth(width if width > 1 else inner)
            )
        return hint

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._hints.clear()
        return super().event(event)


def unbuilt(block: TurnBlock) -> bool:
    """Whether ``block`` still stands in for its turn (asking it for a built block's parts
    builds it: a pass over every block that only reads skips these)."""
    return isinstance(block, PendingBlock) and block.real is None


def make_block(
    view: ThreadView, index: int, turn: Turn, live: bool, *, coming: bool, first: int, bulk: bool
) -> TurnBlock:
    """The block ThreadView.show_thread builds for turn ``index``: as ever when few turns are
    built (``bulk`` False); of many, a stand-in before ``first``, else a block laid out at
    the column's width before anything asks its height (its text measured once, not at the
    640, 623 and 256 px a new block and text view are asked at first: 107 of the 380 ms an
    open of 200 turns took, profiled)."""
    if not bulk:
        return TurnBlock(index, turn, live, view, coming=coming)
    if index < first:
        return PendingBlock(index, turn, live, view, coming=coming)
    block = _BuiltLate(index, turn, live, view, coming=coming)
    margins = view.blocks_layout.contentsMargins()
    width = view.body.width() - margins.left() - margins.right()
    if width > 1:
        block.resize(width, block.height())
        inner = _inner_width(block)
        if block.text_view is not None and block.text_view.width() != inner:
            block.text_view.resize(inner, block.text_view.height())
        block.box.activate()
    return block


def first_built(view: ThreadView, turns: Sequence[Turn], start: int, end: int) -> int:
    """The first of turns ``start``..``end`` (those about to be built) to build now: all of
    them when they are few, else the newest ones that fill the last screens."""
    if end - start <= PENDING_OVER:
        return start
    width = max(view.scroller.viewport().width(), 200)
    wanted = SCREENS_BUILT * max(view.scroller.viewport().height(), 400)
    font = view.font()
    first, filled = end, 0
    while first > start and (end - first < NEWEST_BUILT or filled < wanted):
        first -= 1
        filled += estimated_text_height(turns[first].text, width, font) + _HEAD
    return first


def _inner_width(block: TurnBlock) -> int:
    """The width a turn's parts get in ``block`` (the block as wide as it is now)."""
    margins = block.box.contentsMargins()
    return max(1, block.width() - margins.left() - margins.right())


def prepare(block: PendingBlock) -> bool:
    """One step of building ``block`` ahead of showing it, in a turn of the event loop of its
    own: its text rendered and laid out at the width it will have, then its block made around
    it (laid out and polished, not shown). False once there is nothing left to prepare:
    ``build`` puts the block in its place. One pass building an answer with code and a table
    whole cost 15-25 ms; in three, none is over 8 (measured, scrolling 200 turns)."""
    if block.real is not None:
        return False
    made = block.made
    if made is not None:
        if made.isVisible() or not block.isVisible():
            return False
        # Shown where the stand-in is, a child of the column outside its layout (the layout
        # takes it at the build): a block's first show cost 4-5 ms, a step of its own here.
        made.setParent(block.parentWidget())
        made.setGeometry(block.geometry())
        made.show()
        return True
    if block.prepared is None and not block.live and block.turn.text:
        from playground.ui.conversation.turn_widgets import TurnText

        shown = TurnText(cut(block.turn.text))
        shown.resize(_inner_width(block), shown.height())  # laid out once, at its width
        block.prepared = shown
        return True
    block.made = _make(block)
    return True


def _make(block: PendingBlock) -> TurnBlock:
    """``block``'s real block, laid out at its width and polished, not in the thread yet."""
    view = block.view
    prepared, block.prepared = block.prepared, None
    if prepared is not None:
        # The text prepared earlier is the one the new block shows: the view hands it out
        # (an instance attribute over the method, for this call only).
        def text_view(text: str) -> Any:
            if prepared is not None and text == prepared.source:
                return prepared
            return type(view).text_view(view, text)

        view.text_view = text_view  # type: ignore[method-assign]
    try:
        real = _BuiltLate(block.index, block.turn, block.live, view, coming=block.coming)
    finally:
        view.__dict__.pop("text_view", None)
    if prepared is not None and real.text_view is not prepared:
        prepared.deleteLater()
    _fit(real, block)
    real.ensurePolished()  # the style's work on its widgets, before the show that needs it
    return real


def _fit(real: TurnBlock, block: PendingBlock) -> None:
    """``real`` laid out in ``block``'s place, its text at the width it gets there before
    anything asks its height (a text view is 640 px wide until laid out, and measured there
    it was laid out twice more)."""
    real.setGeometry(block.geometry())
    width = _inner_width(block)
    if real.text_view is not None and real.text_view.width() != width:
        real.text_view.resize(width, real.text_view.height())
    real.box.activate()


def build(block: TurnBlock) -> TurnBlock:
    """``block``'s real block, built in its place if it is pending (the view's list, its
    layout) and shown; ``block`` itself if it is built."""
    if not isinstance(block, PendingBlock):
        return block
    if block.real is not None:
        return block.real
    view = block.view
    real, block.made = block.made, None
    if real is None:
        real = _make(block)
    elif real.geometry() != block.geometry():
        _fit(real, block)  # the thread moved or the pane changed width since
    block.real = real
    block.made = None
    blocks = view.blocks
    place = block.index
    if not (place < len(blocks) and blocks[place] is block):
        place = next((i for i, b in enumerate(blocks) if b is block), -1)
    if place >= 0:
        blocks[place] = real
        view.blocks_layout.replaceWidget(block, real)
        real.show()
    # Hidden and deleted, not unparented: taking a shown widget out of its parent cost 1-2 ms.
    block.hide()
    block.deleteLater()
    view.farBuilt.emit(real)
    return real


def build_near(view: ThreadView, pending: Sequence[PendingBlock]) -> None:
    """Build ``pending`` (blocks near the view) and keep the turn at the view's top where it
    was on screen. A real block is seldom as tall as its estimate; without this the view
    would slide by the difference of every block built above it, and each new height changes
    the scroll bar's range, which the thread answers by jumping to its end."""
    if not pending:
        return
    bar = view.scroller.verticalScrollBar()
    top = bar.value()
    blocks = view.blocks
    anchor = next((i for i, b in enumerate(blocks) if b.y() + b.height() > top), 0)
    offset = blocks[anchor].y() - top if blocks else 0
    with QSignalBlocker(bar):
        for block in pending:
            build(block)
        # The column laid out and the bar's range set now, while its signals are held: the
        # built blocks', the column's and the scroll area's own requests only. The window's
        # layout, which a new block's size hint reaches too, follows in the event loop, once
        # (delivered here, it was relaid out at each block built: 7 ms each, profiled).
        area = view.scroller
        for _ in range(2):
            for block in pending:
                real = block.real
                if real is not None:
                    QCoreApplication.sendPostedEvents(real, QEvent.Type.LayoutRequest)
            for receiver in (view.body, area.viewport(), area):
                QCoreApplication.sendPostedEvents(receiver, QEvent.Type.LayoutRequest)
    if view.blocks:
        bar.setValue(view.blocks[min(anchor, len(view.blocks) - 1)].y() - offset)
