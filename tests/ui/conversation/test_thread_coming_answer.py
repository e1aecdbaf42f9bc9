"""The answer on its way in the thread pane, on the real simulator: its block is there from the
Send, its actions wait for it, and the run's end hands it the answer (or drops it if none came)."""

from __future__ import annotations

import asyncio
from typing import Any

from panel_helpers import sim_panel, then_wait

from playground.ui.runtime import frames


def _actions(block: Any) -> list[bool]:
    buttons = [block.edit_button, block.insert_button, block.delete_button]
    if block.regenerate_button is not None:
        buttons.append(block.regenerate_button)
    return [button.isEnabled() for button in buttons]


def test_the_answer_on_its_way_has_a_block_whose_actions_wait_for_it(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="fast")
    view = panel.conversation.view
    panel.editor.prompt.setPlainText("Tell me about lighthouses")
    during: list[tuple[int, int, bool, bool, list[bool], str]] = []

    def watch(_seconds: float) -> None:
        last = view.blocks[-1]
        during.append(
            (len(view.blocks), id(last), last.coming, last.live, _actions(last), last.turn.role)
        )

    frames.frame_observers.append(watch)
    try:
        assert then_wait(qloop, panel) == "complete"
    finally:
        frames.frame_observers.remove(watch)
    assert during, "no frame ran"
    answer = view.blocks[-1]
    # While it streamed: the question and a block for the answer, live (the views below show it),
    # its actions off: there is nothing to edit, delete or regenerate yet.
    streaming = [seen for seen in during if seen[2]]
    assert streaming and all(
        (count, coming, live, actions, role) == (2, True, True, [False] * 4, "assistant")
        for count, _id, coming, live, actions, role in streaming
    )
    # At the end the same block holds the answer, its actions on.
    assert {seen[1] for seen in during} == {id(answer)}
    assert len(view.blocks) == 2 and not answer.coming and answer.live
    assert all(_actions(answer))
    assert answer.turn.text == panel.session.state.text and answer.turn.text


def test_a_run_that_gives_no_answer_keeps_its_failed_turn_until_the_next_send(
    qloop: Any, sim: Any
) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    view = panel.conversation.view
    panel.set_fault("http-500")
    panel.editor.prompt.setPlainText("Tell me about lighthouses")
    assert then_wait(qloop, panel) == "failed"
    # The attempt stays on screen as a failed turn, its banner (with Retry) on it.
    assert [(b.turn.role, b.coming) for b in view.blocks] == [("user", False), ("assistant", True)]
    assert view.host_block() is view.blocks[-1] and panel.banner.isVisibleTo(panel)
    assert panel.conversation.turn_state(running=False) == "failed"
    # A new Send replaces the attempt: one user turn, then its answer.
    panel.set_fault("none")
    panel.editor.prompt.setPlainText("Tell me about harbours")
    assert then_wait(qloop, panel) == "complete"
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]
    assert panel.conversation.turns[0].text == "Tell me about harbours"


def test_a_stopped_run_says_so_on_its_turn(qloop: Any, sim: Any) -> None:
    # Stopped at once: whether a token came first or not, the run's turn is the last and says
    # it was cancelled; every other block shows one of the thread's turns.
    panel = sim_panel("chat", sim, pace="slow")
    view = panel.conversation.view
    panel.editor.prompt.setPlainText("Tell me about lighthouses")

    def send_then_stop() -> None:
        panel.send()
        asyncio.get_running_loop().call_soon(panel.session.stop)

    assert then_wait(qloop, panel, send_then_stop) == "cancelled"
    assert view.host_block() is view.blocks[-1]
    assert panel.conversation.turn_state(running=False) == "cancelled"
    shown = [b.turn for b in view.blocks if not b.coming]
    assert shown == panel.conversation.turns[: len(shown)]
