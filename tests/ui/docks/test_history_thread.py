"""A run reopened from the History dock brings back its conversation, in the real window on the
real simulator: the thread its request sent, and its answer as the last assistant turn."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import say
from PySide6.QtCore import Qt

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"
SECOND = "Then tell me about Rome"


def _run_ids(window: Any, route: str) -> list[str]:
    view = window.docks.history_view
    view.set_route(route)
    tree = view.tree
    return [
        tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
        for i in range(tree.topLevelItemCount())
    ]


def _seen(turns: list[Any]) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in turns]


@pytest.mark.parametrize("route", ROUTES)
def test_reopening_a_run_restores_its_thread(route: str, window: Any, qloop: Any) -> None:
    panel = window.show_panel(route)
    panel.set_pace("instant")
    before = set(_run_ids(window, route))
    assert say(qloop, panel, FIRST) == "complete"
    thread = panel.conversation
    first_answer = thread.turns[-1]  # with its reasoning (a chat body sends none back)
    assert say(qloop, panel, SECOND) == "complete"
    live = list(thread.turns)
    assert [t.role for t in live] == ["user", "assistant"] * 2
    qloop.sleep(0.05)
    second, first = [i for i in _run_ids(window, route) if i not in before][:2]
    view = window.docks.history_view

    thread.clear()
    window.show_panel("images")
    assert view.reopen(first) is not None
    assert window.current_panel() is panel
    # The turns the request sent are back at once; the answer joins when the replay ends.
    assert _seen(thread.turns) == [("user", FIRST)]
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    assert thread.turns == [live[0], first_answer]  # the answer as the live run left it
    assert thread.live == 1 and len(thread.view.blocks) == 2
    assert panel.editor.prompt.toPlainText() == ""
    shown = json.dumps(json.loads(panel.editor.raw.toPlainText()), ensure_ascii=False)
    assert FIRST in shown and SECOND not in shown

    assert view.reopen(second) is not None
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    # The earlier turns as the request sent them (a chat body carries no reasoning), the
    # answer whole.
    assert _seen(thread.turns) == _seen(live)
    assert thread.turns[-1] == live[-1]
    assert len(thread.view.blocks) == 4

    # The reopened thread goes on: the follow-up names the reopened run's question.
    view.reopen(first)
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    assert say(qloop, panel, "And how tall is it?") == "complete"
    assert panel.session.state.text.startswith(f'Following up on "{FIRST}".')
    assert _seen(thread.turns)[:2] == _seen(live[:2])
    assert len(thread.turns) == 4


def test_a_refused_run_comes_back_without_an_answer(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("instant")
    before = set(_run_ids(window, "chat"))
    assert say(qloop, panel, FIRST) == "complete"
    panel.set_fault("http-500")
    assert say(qloop, panel, SECOND) == "failed"
    panel.set_fault("none")
    qloop.sleep(0.05)
    refused = next(i for i in _run_ids(window, "chat") if i not in before)
    panel.conversation.clear()
    window.docks.history_view.reopen(refused)
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    turns = panel.conversation.turns
    assert [t.role for t in turns] == ["user", "assistant", "user"]
    assert turns[-1].text == SECOND and turns[0].text == FIRST
