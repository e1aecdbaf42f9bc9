"""Branches on the chat, responses and messages panels against the simulator: an earlier
question edited and sent again keeps the old continuation as a branch, a regenerated answer
keeps the old one; ◀ and ▶ in the turn's head switch them, in the thread, its blocks, the JSON
body and the next request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import say, sim_panel, then_wait

from playground.protocol.conversation import parse_body

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"
SECOND = "And how tall is it?"
EDITED = "And how old is it?"


def _turns(thread: Any) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in thread.turns]


def _shown(thread: Any) -> list[tuple[str, str]]:
    return [(b.turn.role, b.turn.text) for b in thread.view.blocks]


def _body_turns(panel: Any) -> list[tuple[str, str]]:
    body = json.loads(panel.editor.raw.toPlainText())
    return [(t.role, t.text) for t in parse_body(body, panel.route).conversation.turns]


def _sent(panel: Any) -> list[tuple[str, str]]:
    body = panel.conversation.requests[-1]["body"]
    return [(t.role, t.text) for t in parse_body(body, panel.route).conversation.turns]


def _switch(block: Any) -> Any:
    from playground.ui.conversation.branching import BranchSwitch

    return block.findChild(BranchSwitch)


def _switches(thread: Any) -> dict[int, str]:
    """Each block's ◀ k/n ▶ label, by the block's index."""
    found = {}
    for block in thread.view.blocks:
        switch = _switch(block)
        if switch is not None:
            found[block.index] = switch.label.text()
    return found


def _two_exchanges(route: str, sim: Any, qloop: Any) -> Any:
    panel = sim_panel(route, sim, pace="instant")
    assert say(qloop, panel, FIRST) == "complete"
    assert say(qloop, panel, SECOND) == "complete"
    return panel


@pytest.mark.parametrize("route", ROUTES)
def test_an_earlier_question_edited_and_sent_keeps_the_old_continuation_as_a_branch(
    route: str, sim: Any, qloop: Any
) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    old = _turns(thread)
    assert _switches(thread) == {}
    block = thread.view.blocks[2]
    block.edit_button.click()
    block.editor.edit.setPlainText(EDITED)
    block.editor.save_button.click()
    # The edited question ends the thread, on branch 2 of 2; the body shows that branch.
    assert _turns(thread) == [*old[:2], ("user", EDITED)]
    assert _switches(thread) == {2: "2/2"}
    assert _body_turns(panel) == [*old[:2], ("user", EDITED)]
    assert then_wait(qloop, panel) == "complete"  # Send, the prompt box empty
    assert _sent(panel) == [*old[:2], ("user", EDITED)]
    new = _turns(thread)
    assert new[:3] == [*old[:2], ("user", EDITED)] and new[3][0] == "assistant"
    assert len(new) == 4 and _switches(thread) == {2: "2/2"}
    # ◀: the old question and its answer again, in the blocks and the body; ▶: the new ones.
    switch = _switch(thread.view.blocks[2])
    assert not switch.next_button.isEnabled() and switch.previous_button.isEnabled()
    switch.previous_button.click()
    assert _turns(thread) == old and _shown(thread) == old
    assert _switches(thread) == {2: "1/2"}
    assert _body_turns(panel) == old
    _switch(thread.view.blocks[2]).next_button.click()
    assert _turns(thread) == new and _shown(thread) == new
    assert _body_turns(panel) == new and _switches(thread) == {2: "2/2"}
    # The old branch goes on where it was left: the next request carries its turns.
    _switch(thread.view.blocks[2]).previous_button.click()
    assert say(qloop, panel, "Thanks!") == "complete"
    assert _sent(panel) == [*old, ("user", "Thanks!")]
    assert len(thread.turns) == 6 and _switches(thread) == {2: "1/2"}
    _switch(thread.view.blocks[2]).next_button.click()
    assert _turns(thread) == new


@pytest.mark.parametrize("route", ROUTES)
def test_regenerate_keeps_the_old_answer_as_a_branch(route: str, sim: Any, qloop: Any) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    old = _turns(thread)
    requests = len(thread.requests)
    block = thread.view.blocks[1]
    assert then_wait(qloop, panel, block.regenerate_button.click) == "complete"
    assert len(thread.requests) == requests + 1 and _sent(panel) == old[:1]
    new = _turns(thread)
    assert len(new) == 2 and new[1][0] == "assistant"
    assert _switches(thread) == {1: "2/2"}
    assert _body_turns(panel) == new
    _switch(thread.view.blocks[1]).previous_button.click()
    # Branch 1: the old answer and everything after it.
    assert _turns(thread) == old and _shown(thread) == old and _body_turns(panel) == old
    assert _switches(thread) == {1: "1/2"}
    _switch(thread.view.blocks[1]).next_button.click()
    assert _turns(thread) == new and _body_turns(panel) == new
    # Regenerated again: a third branch.
    assert then_wait(qloop, panel, thread.view.blocks[1].regenerate_button.click) == "complete"
    assert _switches(thread) == {1: "3/3"}


def test_a_new_conversation_has_no_branches(sim: Any, qloop: Any) -> None:
    panel = _two_exchanges("chat", sim, qloop)
    thread = panel.conversation
    then_wait(qloop, panel, thread.view.blocks[1].regenerate_button.click)
    assert _switches(thread) == {1: "2/2"}
    thread.clear()
    assert say(qloop, panel, FIRST) == "complete"
    assert say(qloop, panel, SECOND) == "complete"
    assert _switches(thread) == {}


def test_branches_are_kept_with_the_conversation_and_opened_again(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("instant")
    thread = panel.conversation
    assert say(qloop, panel, FIRST) == "complete"
    assert say(qloop, panel, SECOND) == "complete"
    old = _turns(thread)
    assert then_wait(qloop, panel, thread.view.blocks[1].regenerate_button.click) == "complete"
    new = _turns(thread)
    qloop.sleep(0.05)
    store = window.kept.store
    kept_id = window.kept.current["chat"].id
    saved = store.load(kept_id)
    assert saved.branches is not None and saved.branches.shown(1) == (1, 2)
    thread.clear()
    assert _switches(thread) == {}
    window.kept.open(saved)
    assert _turns(thread) == new and _switches(thread) == {1: "2/2"}
    _switch(thread.view.blocks[1]).previous_button.click()
    assert _turns(thread) == old and _body_turns(panel) == old
    qloop.sleep(0.05)
    assert store.load(kept_id).conversation.turns == tuple(thread.turns)  # the switch kept


@pytest.mark.parametrize("route", ROUTES)
def test_a_regenerate_that_fails_shows_the_old_answer_again(
    route: str, sim: Any, qloop: Any
) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    old = _turns(thread)
    panel.set_fault("http-500")
    assert then_wait(qloop, panel, thread.view.blocks[1].regenerate_button.click) != "complete"
    qloop.sleep(0.05)
    assert _turns(thread) == old and _shown(thread) == old and _body_turns(panel) == old
    assert _switches(thread) == {}


def test_a_thread_carried_in_replaces_the_branches(window: Any, qloop: Any) -> None:
    chat = window.show_panel("chat")
    chat.set_pace("instant")
    assert say(qloop, chat, FIRST) == "complete"
    block = chat.conversation.view.blocks[0]
    block.edit_button.click()
    block.editor.edit.setPlainText(EDITED)
    block.editor.save_button.click()  # a fork at the first turn
    assert _switches(chat.conversation) == {0: "2/2"}
    messages = window.show_panel("messages")
    messages.set_pace("instant")
    assert say(qloop, messages, SECOND) == "complete"
    actions = {a.data(): a for a in messages.conversation.view.send_to_menu.actions()}
    actions["chat"].trigger()
    assert window.current_panel() is chat
    assert chat.conversation.turns[0].text == SECOND
    assert _switches(chat.conversation) == {}
