"""The thread pane builds only what changed, on the real simulator: a sent turn adds its block and
one for the answer on its way, which takes the answer when the run ends; the earlier blocks stay
(the same widgets), an edit, delete or insert rebuilds only the turns it changed, and nothing is
built while an answer streams or as it ends."""

from __future__ import annotations

from typing import Any

import pytest
from panel_helpers import say, sim_panel, then_wait

from playground.ui.conversation.parking import KEEP_RENDERED
from playground.ui.runtime import frames

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"


@pytest.mark.parametrize("route", ROUTES)
def test_a_new_turn_keeps_the_earlier_blocks(route: str, qloop: Any, sim: Any) -> None:
    panel = sim_panel(route, sim, pace="instant")
    if route == "messages":  # thinking and its signature go back and forth with each answer
        panel.editor.thinking.setValue(1024)
    view = panel.conversation.view
    assert say(qloop, panel, FIRST) == "complete"
    first = list(view.blocks)
    texts = [b.text_view for b in first]
    assert len(first) == 2 and first[1].live  # the answer is shown in full by the live views
    panel.set_pace("fast")
    seen: set[tuple[int, ...]] = set()

    def watch(_seconds: float) -> None:
        seen.add(tuple(id(b) for b in view.blocks))

    frames.frame_observers.append(watch)
    try:
        assert say(qloop, panel, "And how tall is it?") == "complete"
    finally:
        frames.frame_observers.remove(watch)
    blocks = view.blocks
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"] * 2
    assert len(blocks) == 4
    # The question is the same block with the same rendered text; the first answer, shown by
    # the live views until the next question, got its own block once, then kept it.
    assert blocks[0] is first[0] and blocks[0].text_view is texts[0]
    assert not blocks[1].live and blocks[1].text_view is not None
    assert blocks[1].text_view.source.startswith(blocks[1].turn.text[:60])
    # From the Send on, the answer on its way has its block after the question just sent, and
    # no block was built or dropped while it streamed or as it ended: at every frame the same
    # four blocks, the last of them holding the answer at the end.
    ids = tuple(id(b) for b in blocks)
    assert seen == {ids}
    assert blocks[3].live and not blocks[3].coming and blocks[3].turn.role == "assistant"
    # The next question keeps all of them but the answer just shown live.
    earlier = list(blocks)
    assert say(qloop, panel, "And when was it built?") == "complete"
    assert all(a is b for a, b in zip(view.blocks[:3], earlier[:3], strict=True))
    assert view.blocks[3] is not earlier[3] and len(view.blocks) == 6


def test_an_edit_delete_or_insert_rebuilds_only_what_it_changed(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    thread, view = panel.conversation, panel.conversation.view
    say(qloop, panel, FIRST)
    say(qloop, panel, "Then tell me about Rome")
    say(qloop, panel, "And Madrid?")
    before = list(view.blocks)
    assert len(before) == 6
    # Edit the second answer (an earlier question edited starts a branch): its block alone is new.
    block = before[3]
    block.edit_button.click()
    block.editor.edit.setPlainText("Milan, then")
    block.editor.save_button.click()
    after = list(view.blocks)
    assert [b is a for a, b in zip(before, after, strict=True)] == [True] * 3 + [False] + [True] * 2
    assert after[3].turn.text == "Milan, then"
    assert "Milan" in after[3].text_view.toPlainText()
    # Delete the first question: the others are the same blocks, at their new places.
    after[0].delete_button.click()
    kept = list(view.blocks)
    assert all(a is b for a, b in zip(kept, after[1:], strict=True))
    assert [b.index for b in kept] == [0, 1, 2, 3, 4]
    assert [t.role for t in thread.turns] == ["assistant", "user", "assistant", "user", "assistant"]
    # Regenerate is for an answer after a turn: the answer now first has none, the others have.
    assert kept[0].regenerate_button is None
    assert kept[2].regenerate_button is not None and kept[4].regenerate_button is not None
    # Its actions act on the turn where it is now: delete the block now second (a question).
    kept[1].delete_button.click()
    assert [t.text for t in thread.turns][:2] == [kept[0].turn.text, kept[2].turn.text]
    rest = list(view.blocks)
    assert all(a is b for a, b in zip(rest, [kept[0], *kept[2:]], strict=True))
    # Insert a question before the first answer: one new block, and that answer (second now)
    # can be regenerated.
    rest[0].insert_menu.actions()[0].trigger()
    view.draft.edit.setPlainText("What is in Berlin?")
    view.draft.save_button.click()
    inserted = list(view.blocks)
    assert all(inserted[0] is not b for b in rest)
    assert all(a is b for a, b in zip(inserted[1:], rest, strict=True))
    assert inserted[0].turn.text == "What is in Berlin?"
    assert inserted[1].regenerate_button is not None
    assert [b.index for b in inserted] == list(range(len(inserted)))
    # Regenerating the first answer drops it and what follows, and asks again: the question
    # before it stays the same block.
    assert then_wait(qloop, panel, inserted[1].regenerate_button.click) == "complete"
    assert view.blocks[0] is inserted[0] and len(view.blocks) == 2


def test_older_turns_far_out_of_view_park_their_text_and_get_it_back(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    base = panel.sim_headers
    panel.sim_headers = lambda: {**base(), "X-Sim-Tokens": "400"}  # answers taller than the pane
    view = panel.conversation.view
    for n in range(6):
        assert say(qloop, panel, f"{FIRST} ({n})") == "complete"
    qloop.sleep(0.05)
    blocks = view.blocks
    assert len(blocks) == 12
    # The newest turns keep their rendered text; the oldest, far above the view, parked it
    # in a place as tall.
    # (The last, the answer just streamed, is shown by the live views below.)
    assert all(b.parked is None for b in blocks[-KEEP_RENDERED:]) and blocks[-1].live
    assert all(b.text_view is not None for b in blocks[-KEEP_RENDERED:-1])
    parked = [b for b in blocks if b.parked is not None]
    assert blocks[0] in parked and blocks[1] in parked
    assert all(b.text_view is None for b in parked)
    tall = [b.height() for b in blocks]
    # Scrolled to the top: the first turns are rendered again, at the height they had, and
    # the answers near the end (far below now) are still rendered (they are the newest).
    view.scroller.verticalScrollBar().setValue(0)
    qloop.sleep(0.05)
    assert blocks[0].parked is None and blocks[0].text_view is not None
    assert blocks[1].text_view.source == blocks[1].turn.text[: len(blocks[1].text_view.source)]
    assert "Eiffel" in blocks[0].text_view.toPlainText()
    assert [b.height() for b in blocks] == tall
    assert view.scroller.verticalScrollBar().value() == 0
    # Edit opens on a parked turn too, with its whole text (back at the end, the oldest park
    # again).
    view.scroller.verticalScrollBar().setValue(view.scroller.verticalScrollBar().maximum())
    qloop.wait_until(lambda: any(b.parked is not None for b in blocks), timeout=5)
    far = next(b for b in blocks if b.parked is not None)
    far.edit_button.click()
    assert far.editor is not None and far.parked is None
    assert far.editor.edit.toPlainText() == far.turn.text
