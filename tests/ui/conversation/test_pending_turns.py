"""A long thread shown at once builds its last screens; its far turns wait as stand-ins.

Every turn is in the view's blocks, in order, from the start; a stand-in is built when it
comes near the view (the view staying where it was, not jumping to the thread's end), and
anything asked of it that only a built block has (Edit) builds it first. On the real
simulator, a thread opened that way continues: the next request carries every turn.
"""

from __future__ import annotations

from typing import Any

import pytest
from panel_helpers import say, sim_panel
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from playground.protocol.conversation.model import Turn
from playground.ui.conversation.pending_turns import PENDING_OVER, PendingBlock, prepare
from playground.ui.conversation.thread_view import ThreadView
from playground.ui.conversation.turn_block import TurnBlock

ANSWER = "\n\n".join(
    f"Paragraph {n}: the keeper climbed the stairs and lit the **lamp** again, "
    "as the ships went by in the fog with `signals` on." * 2
    for n in range(4)
)
CODE = (
    "\n\n```python\ndef light(lamp):\n    lamp.on = True\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
)


def _thread(pairs: int) -> list[Turn]:
    turns = []
    for n in range(pairs):
        turns += [Turn.of("user", f"Question {n}"), Turn.of("assistant", f"{ANSWER}{CODE}({n})")]
    return turns


def _settle(rounds: int = 30) -> None:
    for _ in range(rounds):
        QCoreApplication.processEvents()


@pytest.fixture
def view(qapp: QApplication) -> Any:
    shown = ThreadView()
    shown.resize(640, 400)
    shown.show()
    _settle(2)
    yield shown
    shown.close()
    shown.deleteLater()
    _settle(2)


def test_a_long_thread_shown_at_once_has_every_turn_and_builds_only_its_end(
    view: ThreadView,
) -> None:
    turns = _thread(30)
    view.show_thread(turns, live=None, open_calls=[], prefill={})
    _settle()
    blocks = view.blocks
    assert [b.turn for b in blocks] == turns and [b.index for b in blocks] == list(range(60))
    # The view is at the thread's end, and the turns there are built with their text.
    bar = view.scroller.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0
    assert not isinstance(blocks[-1], PendingBlock) and blocks[-1].text_view is not None
    assert "(29)" in blocks[-1].text_view.toPlainText()
    # The first turns, screens away, are stand-ins with about the height of their text.
    assert isinstance(blocks[0], PendingBlock) and isinstance(blocks[1], PendingBlock)
    assert blocks[1].height() > blocks[0].height() > 0


def test_a_few_turns_shown_at_once_are_all_built(view: ThreadView) -> None:
    view.show_thread(_thread(PENDING_OVER // 2), live=None, open_calls=[], prefill={})
    _settle()
    assert not any(isinstance(b, PendingBlock) for b in view.blocks)


def test_a_stand_in_is_built_when_scrolled_into_view_and_the_view_stays(
    view: ThreadView,
) -> None:
    turns = _thread(30)
    view.show_thread(turns, live=None, open_calls=[], prefill={})
    _settle()
    bar = view.scroller.verticalScrollBar()
    bar.setValue(0)
    _settle()
    first = view.blocks[0]
    assert not isinstance(first, PendingBlock) and isinstance(first, TurnBlock)
    assert first.text_view is not None and "Question 0" in first.text_view.toPlainText()
    # Built above nothing: the view is still at the top, not sent to the thread's end.
    assert bar.value() == 0
    # Part way down: the turn at the view's top is built and stays at the top of the view,
    # whatever the heights the stand-ins above it had.
    bar.setValue(bar.maximum() // 3)
    _settle()
    top = bar.value()
    assert 0 < top < bar.maximum()
    seen = [b for b in view.blocks if b.y() + b.height() > top and b.y() < top + 400]
    assert seen and not any(isinstance(b, PendingBlock) for b in seen)
    assert [b.turn for b in view.blocks] == turns


def test_asking_a_stand_in_for_its_edit_button_builds_it(view: ThreadView) -> None:
    turns = _thread(30)
    view.show_thread(turns, live=None, open_calls=[], prefill={})
    _settle()
    far = view.blocks[3]
    assert isinstance(far, PendingBlock)
    far.edit_button.click()  # a built block's button: the stand-in builds it and answers
    built = view.blocks[3]
    assert not isinstance(built, PendingBlock) and built.turn == turns[3]
    assert built.editor is not None and built.editor.edit.toPlainText() == turns[3].text
    assert [b.turn for b in view.blocks] == turns


def test_a_turn_made_ahead_goes_with_its_stand_in_when_the_thread_changes(
    view: ThreadView,
) -> None:
    view.show_thread(_thread(30), live=None, open_calls=[], prefill={})
    _settle()
    far = view.blocks[5]
    assert isinstance(far, PendingBlock)
    steps = 0
    while prepare(far):  # its text, its block, the block shown where the stand-in is
        steps += 1
    assert steps == 3 and far.made is not None and far.made.isVisible()
    other = [Turn.of("user", "Another conversation"), Turn.of("assistant", "Its answer.")]
    view.show_thread(other, live=None, open_calls=[], prefill={})
    _settle()
    # Nothing of the first conversation is left on screen in the column.
    shown = [w for w in view.body.findChildren(TurnBlock) if w.isVisible()]
    assert shown == view.blocks and [b.turn for b in shown] == other


def test_an_opened_long_thread_continues_with_every_turn(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    thread = panel.conversation
    turns = _thread(25)
    thread.restore(turns)
    view = thread.view
    # Shown at once: only the end is built, the rest stand in (and are built as they come near).
    assert any(isinstance(b, PendingBlock) for b in view.blocks)
    qloop.sleep(0.05)
    assert say(qloop, panel, "And then?") == "complete"
    sent = thread.requests[-1]["body"]["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"][:-1] == [t.text for t in turns]
    # The question and its answer joined the thread; every turn has its block, in order.
    assert len(thread.turns) == 52
    assert [b.turn.role for b in view.blocks] == [t.role for t in thread.turns]
    assert view.blocks[-2].turn.text == "And then?"
    panel.close()
