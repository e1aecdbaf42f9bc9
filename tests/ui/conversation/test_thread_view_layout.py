"""The thread pane's layout: a turn added lays out itself, not the thread before it.

A long thread must not cost more at each run's end than a short one: adding a turn neither
squeezes and regrows the blocks above it (each one resized twice) nor asks their texts for their
height at a second width (every block measured again at every pass), and the blocks stay as tall
as their text at any width of the pane.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from panel_helpers import EventCounter
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from playground.protocol.conversation.model import Turn
from playground.ui.conversation import parking, turn_widgets
from playground.ui.conversation.thread_view import ThreadView

ANSWER = "\n\n".join(
    f"Paragraph {n} of the answer: the keeper climbed the stairs and lit the lamp again, "
    "as the ships went by in the **fog** with `signals` on." * 2
    for n in range(6)
)


def _settle() -> None:
    for _ in range(4):
        QCoreApplication.processEvents()


def _thread(pairs: int) -> list[Turn]:
    turns = []
    for n in range(pairs):
        turns += [Turn.of("user", f"Question {n}"), Turn.of("assistant", ANSWER)]
    return turns


def _grow(view: ThreadView, turns: list[Turn]) -> None:
    """``turns`` shown two at a time, as a session's runs add them: every block built (a
    thread shown at once leaves its far turns pending, pending_turns.py), the older parked."""
    for end in range(2, len(turns) + 1, 2):
        view.show_thread(turns[:end], live=None, open_calls=[], prefill={})
        _settle()


@pytest.fixture
def view(qapp: QApplication) -> Any:
    shown = ThreadView()
    shown.resize(640, 320)
    shown.show()
    _grow(shown, _thread(15))
    yield shown
    shown.close()
    shown.deleteLater()
    _settle()


def test_a_turn_added_resizes_none_of_the_blocks_before_it(view: ThreadView) -> None:
    before = list(view.blocks)
    assert any(b.parked is not None for b in before)  # long enough for parked turns too
    resizes = EventCounter(QEvent.Type.Resize)
    for block in before:
        block.installEventFilter(resizes)
    turns = [b.turn for b in before] + [Turn.of("user", "And then?")]
    view.show_thread(turns, live=None, open_calls=[], prefill={})
    _settle()
    assert view.blocks[:-1] == before
    assert resizes.count == 0


def test_a_turn_added_measures_the_earlier_texts_again_at_most_once(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, int, int]] = []  # (the text, the width asked, the width it had)

    # The texts are made of subclasses that count what they are asked (patching the methods of
    # PySide classes with live instances crashes PySide later).
    class CountedText(turn_widgets.TurnText):
        def heightForWidth(self, width: int) -> int:
            asked.append((id(self), width, self.width()))
            return super().heightForWidth(width)

    class CountedParked(parking.ParkedText):
        def heightForWidth(self, width: int) -> int:
            asked.append((id(self), width, self.width()))
            return super().heightForWidth(width)

    monkeypatch.setattr(turn_widgets, "TurnText", CountedText)
    monkeypatch.setattr(parking, "ParkedText", CountedParked)
    view = ThreadView()
    view.resize(640, 320)
    view.show()
    _grow(view, _thread(15))
    try:
        earlier = {id(shown) for b in view.blocks for shown in (b.text_view, b.parked) if shown}
        assert any(b.parked is not None for b in view.blocks)
        asked.clear()
        turns = [b.turn for b in view.blocks] + [Turn.of("user", "And then?")]
        view.show_thread(turns, live=None, open_calls=[], prefill={})
        _settle()
    finally:
        view.close()
        view.deleteLater()
        _settle()
    # Qt's box layout keeps a height for one width: asked at a second width (the column's size
    # hint's), every block's layout was measured again at every pass, and its texts with it (67
    # asks for 30 texts here). Now the earlier texts keep their heights: a block's own layout
    # may ask one text again, at the width it has.
    again = [(width, own) for text, width, own in asked if text in earlier]
    assert len(again) <= 2
    assert all(width == own for width, own in again)


@pytest.mark.parametrize("width", [360, 640, 1100])
def test_blocks_are_as_tall_as_their_turn_at_the_panes_width(view: ThreadView, width: int) -> None:
    # A new width measures the parked turns again, from their kept copy of the text (which
    # PySide deleted with the turn's text view: resizing the pane crashed).
    view.resize(width, 320)
    _settle()
    view.show_thread(
        [b.turn for b in view.blocks] + [Turn.of("assistant", ANSWER)],
        live=None,
        open_calls=[],
        prefill={},
    )
    _settle()
    blocks = view.blocks
    layouts = [b.layout() for b in blocks]
    assert all(layout is not None for layout in layouts)
    wanted = [
        layout.totalHeightForWidth(b.width())
        for b, layout in zip(blocks, layouts, strict=True)
        if layout is not None
    ]
    assert [b.height() for b in blocks] == wanted
    # One after the other, 6 px apart: no block overlaps the next or leaves a gap.
    gaps = {later.y() - (b.y() + b.height()) for b, later in pairwise(blocks)}
    assert gaps == {6}


def test_the_blocks_column_has_a_size_at_any_count_of_turns(qapp: QApplication) -> None:
    shown = ThreadView()
    shown.resize(640, 320)
    shown.show()
    _settle()
    try:
        assert shown.body.sizeHint().isValid()  # no turns: no height for a width to ask
        shown.show_thread(_thread(2), live=None, open_calls=[], prefill={})
        _settle()
        hint = shown.body.sizeHint()
        blocks = shown.blocks
        assert hint.isValid() and hint.height() >= blocks[-1].y() + blocks[-1].height()
    finally:
        shown.close()
        shown.deleteLater()
        _settle()


def test_a_wide_pane_ends_at_its_last_turn(qapp: QApplication) -> None:
    # Turns with thinking (a wrapped label) in a pane wider than their size hints: the column
    # is as tall as its blocks, with no blank space under the last one.
    from playground.protocol.conversation.model import Thinking

    thinking = Thinking("The user asks about the keeper's lamp; I should say how it is lit. " * 3)
    turns: list[Turn] = []
    for n in range(6):
        turns += [Turn.of("user", f"Question {n}"), Turn("assistant", (thinking, *_answer()))]
    shown = ThreadView()
    shown.resize(1100, 320)
    shown.show()
    try:
        shown.show_thread(turns, live=None, open_calls=[], prefill={})
        _settle()
        last = shown.blocks[-1]
        margins = shown.blocks_layout.contentsMargins()
        assert shown.body.height() == last.y() + last.height() + margins.bottom()
        bar = shown.scroller.verticalScrollBar()
        bar.setValue(bar.maximum())
        _settle()
        bottom = last.mapTo(shown.scroller.viewport(), last.rect().bottomLeft()).y()
        assert bottom == shown.scroller.viewport().height() - 1 - margins.bottom()
    finally:
        shown.close()
        shown.deleteLater()
        _settle()


def _answer() -> tuple[Any, ...]:
    return Turn.of("assistant", ANSWER[:300]).parts
