"""A deleted turn put back, on the chat, responses and messages panels against the simulator:
by Ctrl+Z and by the "Turn deleted" notice's Undo, several in reverse order, each at its place
with the live answer's index, in the thread, its blocks and the JSON body; another change
ends the undo."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import say, sim_panel
from PySide6.QtCore import Qt

from playground.protocol.conversation import parse_body
from playground.ui.conversation.undo_delete import NOTICE_MS

ROUTES = ("chat", "responses", "messages")


def _turns(thread: Any) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in thread.turns]


def _body_turns(panel: Any) -> list[tuple[str, str]]:
    body = json.loads(panel.editor.raw.toPlainText())
    return [(t.role, t.text) for t in parse_body(body, panel.route).conversation.turns]


def _shown(thread: Any) -> list[tuple[str, str]]:
    return [(b.turn.role, b.turn.text) for b in thread.view.blocks]


def _two_exchanges(route: str, sim: Any, qloop: Any) -> Any:
    panel = sim_panel(route, sim, pace="instant")
    assert say(qloop, panel, "Tell me about the Eiffel Tower") == "complete"
    assert say(qloop, panel, "And how tall is it?") == "complete"
    assert panel.conversation.live == 3
    return panel


def _ctrl_z(qtbot: Any, panel: Any) -> None:
    panel.activateWindow()
    panel.conversation.view.scroller.setFocus()
    qtbot.keyClick(
        panel.conversation.view.scroller, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
    )


@pytest.mark.parametrize("route", ROUTES)
def test_ctrl_z_puts_a_deleted_turn_back_in_its_place(
    route: str, sim: Any, qloop: Any, qtbot: Any
) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    before = _turns(thread)
    body_before = _body_turns(panel)
    notice = thread.undo_delete.notice
    assert notice.isHidden()
    thread.view.blocks[1].delete_button.click()
    assert _turns(thread) == before[:1] + before[2:]
    assert not notice.isHidden() and "Turn deleted" in thread.undo_delete.notice_label.text()
    assert _body_turns(panel) != body_before
    _ctrl_z(qtbot, panel)
    assert _turns(thread) == before and thread.live == 3
    assert _shown(thread) == before
    assert _body_turns(panel) == body_before
    assert notice.isHidden()
    # What goes next carries the turn put back.
    assert say(qloop, panel, "Thanks!") == "complete"
    sent = parse_body(thread.requests[-1]["body"], route).conversation.turns
    assert [(t.role, t.text) for t in sent] == [*before, ("user", "Thanks!")]


@pytest.mark.parametrize("route", ROUTES)
def test_undo_puts_several_deletes_back_last_first(
    route: str, sim: Any, qloop: Any, qtbot: Any
) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    before = _turns(thread)
    body_before = _body_turns(panel)
    thread.view.blocks[3].delete_button.click()  # the live answer
    assert thread.live is None
    thread.view.blocks[0].delete_button.click()
    assert _turns(thread) == before[1:3]
    undo = thread.undo_delete.undo_button
    assert undo.isVisible() and undo.text() == "Undo"
    undo.click()
    assert _turns(thread) == before[:3] and thread.live is None
    assert undo.isVisible()  # one more to put back
    undo.click()
    assert _turns(thread) == before and thread.live == 3
    assert _shown(thread) == before and _body_turns(panel) == body_before
    assert thread.undo_delete.notice.isHidden()
    # Nothing more to undo: Ctrl+Z leaves the thread as it is.
    _ctrl_z(qtbot, panel)
    assert _turns(thread) == before


@pytest.mark.parametrize("route", ROUTES)
def test_another_change_ends_the_undo(route: str, sim: Any, qloop: Any, qtbot: Any) -> None:
    panel = _two_exchanges(route, sim, qloop)
    thread = panel.conversation
    thread.view.blocks[2].delete_button.click()
    assert not thread.undo_delete.notice.isHidden()
    block = thread.view.blocks[0]
    block.edit_button.click()
    block.editor.edit.setPlainText("An edited question")
    block.editor.save_button.click()
    after = _turns(thread)
    assert thread.undo_delete.notice.isHidden()
    _ctrl_z(qtbot, panel)
    assert _turns(thread) == after


@pytest.mark.parametrize("route", ROUTES)
def test_the_notice_stays_when_the_only_turn_is_deleted(route: str, sim: Any, qloop: Any) -> None:
    panel = sim_panel(route, sim, pace="instant")
    thread = panel.conversation
    assert say(qloop, panel, "Hello there") == "complete"
    thread.view.blocks[1].delete_button.click()
    thread.view.blocks[0].delete_button.click()
    assert thread.turns == []
    assert thread.undo_delete.undo_button.isVisible()
    thread.undo_delete.undo_button.click()
    thread.undo_delete.undo_button.click()
    assert [t.role for t in thread.turns] == ["user", "assistant"]
    assert thread.view.isVisible()


def test_the_notice_goes_after_a_while_and_ctrl_z_still_works(
    sim: Any, qloop: Any, qtbot: Any
) -> None:
    panel = _two_exchanges("chat", sim, qloop)
    thread = panel.conversation
    before = _turns(thread)
    thread.view.blocks[1].delete_button.click()
    undo = thread.undo_delete
    assert undo._timer.isActive() and undo._timer.interval() == NOTICE_MS
    undo._timer.timeout.emit()  # its time is up (no test waits ten seconds)
    assert undo.notice.isHidden()
    _ctrl_z(qtbot, panel)
    assert _turns(thread) == before
