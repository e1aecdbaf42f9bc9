"""Editing the thread on the chat, responses and messages panels, on the real simulator: a turn
edited in place (a question, an answer), turns inserted before and after, an answer regenerated,
the thread carried to another route's panel and to Compare; each checked in the requests sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from panel_helpers import say, sim_panel, then_wait
from PySide6.QtCore import Qt

from playground.protocol.conversation import Thinking, parse_body

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"
EDITED = "Tell me about the Colosseum in Rome"
STEER = "An edited answer, to steer the model."


def _panel(route: str, sim: Any) -> Any:
    panel = sim_panel(route, sim, pace="instant")
    if route == "messages":  # an edited answer must go back with its thinking and signature
        panel.editor.thinking.setValue(1024)
    return panel


def _text(panel: Any) -> str:
    return str(panel.session.state.text)


def _sent(panel: Any, route: str, n: int = -1) -> list[tuple[str, str]]:
    """Request ``n``'s turns as (role, text)."""
    body = panel.conversation.requests[n]["body"]
    return [(t.role, t.text) for t in parse_body(body, route).conversation.turns]


def _body_turns(panel: Any, route: str) -> list[tuple[str, str]]:
    """The JSON body view's turns as (role, text)."""
    body = json.loads(panel.editor.raw.toPlainText())
    return [(t.role, t.text) for t in parse_body(body, route).conversation.turns]


def _editor(block: Any) -> Any:
    """A block's open editor (read afresh: an earlier assert saw it closed)."""
    assert block.editor is not None
    return block.editor


def _draft(view: Any) -> Any:
    """The thread view's open draft (read afresh: an earlier assert saw it closed)."""
    assert view.draft is not None
    return view.draft


def _edit(block: Any, text: str) -> None:
    block.edit_button.click()
    assert block.editor is not None
    assert block.text_view is None or block.text_view.isHidden()
    assert block.editor.edit.toPlainText() == block.turn.text  # the whole text, not a preview
    block.editor.edit.setPlainText(text)
    block.editor.save_button.click()


@pytest.mark.parametrize("route", ROUTES)
def test_an_edited_question_and_answer_are_what_the_next_request_carries(
    route: str, qloop: Any, sim: Any, qtbot: Any
) -> None:
    panel = _panel(route, sim)
    thread = panel.conversation
    assert say(qloop, panel, FIRST) == "complete"
    first_answer = thread.turns[1].text
    # Cancel leaves the turn as it was.
    block = thread.view.blocks[0]
    block.edit_button.click()
    block.editor.edit.setPlainText("never saved")
    block.editor.cancel_button.click()
    assert block.editor is None and thread.turns[0].text == FIRST
    _edit(thread.view.blocks[0], EDITED)
    # An earlier question edited starts a branch (test_thread_branches.py): it ends the thread
    # until Send asks it again.
    assert [(t.role, t.text) for t in thread.turns] == [("user", EDITED)]
    assert then_wait(qloop, panel) == "complete"
    first_answer = thread.turns[1].text
    # Keys in the editor: Esc cancels, Ctrl+Enter saves (and does not send the request).
    block = thread.view.blocks[1]
    block.edit_button.click()
    block.editor.edit.setPlainText("never saved")
    qtbot.keyClick(block.editor.edit, Qt.Key.Key_Escape)
    assert block.editor is None and thread.turns[1].text == first_answer
    block.edit_button.click()
    _editor(block).edit.setPlainText(STEER)
    qtbot.keyClick(_editor(block).edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert len(thread.requests) == 2 and not panel.session.is_running
    assert [(t.role, t.text) for t in thread.turns] == [("user", EDITED), ("assistant", STEER)]
    if route == "messages":  # the thinking and its signature stay on the edited answer
        thinking = [p for p in thread.turns[1].parts if isinstance(p, Thinking)]
        assert len(thinking) == 1 and thinking[0].signature
    # The block shows the edited text, rendered; the JSON body view carries the edits.
    assert thread.view.blocks[1].text_view.toPlainText().strip() == STEER
    assert _body_turns(panel, route) == [("user", EDITED), ("assistant", STEER)]
    assert say(qloop, panel, "And how old is it?") == "complete"
    assert _sent(panel, route) == [
        ("user", EDITED),
        ("assistant", STEER),
        ("user", "And how old is it?"),
    ]
    assert first_answer not in json.dumps(thread.requests[-1]["body"])
    # The simulator names the earlier question: the edited one arrived.
    assert _text(panel).startswith(f'Following up on "{EDITED}".')


@pytest.mark.parametrize("route", ROUTES)
def test_turns_inserted_before_and_after_are_sent_in_place(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    thread, view = panel.conversation, panel.conversation.view
    say(qloop, panel, FIRST)
    answer = thread.turns[1].text
    # The menu is made when first asked for (each weighs ~13 KB), drawn as a menu's button before.
    button = view.blocks[0].insert_button
    assert button.menu() is None
    width = button.sizeHint().width()
    labels = [a.text() for a in view.blocks[0].insert_menu.actions()]
    assert button.menu() is view.blocks[0].insert_menu and button.sizeHint().width() == width
    assert labels == [
        "User turn before",
        "Assistant turn before",
        "User turn after",
        "Assistant turn after",
    ]
    # Cancel and an empty Save add nothing.
    view.blocks[0].insert_menu.actions()[0].trigger()
    assert view.draft is not None
    view.draft.cancel_button.click()
    assert view.draft is None
    view.blocks[0].insert_menu.actions()[0].trigger()
    _draft(view).save_button.click()
    assert len(thread.turns) == 2
    # A user turn before the first, then an assistant turn after that one.
    view.blocks[0].insert_menu.actions()[0].trigger()
    _draft(view).edit.setPlainText("What is in Berlin?")
    _draft(view).save_button.click()
    assert view.draft is None
    table = "## Berlin\n\n| Sight | Year |\n|---|---|\n| Gate | 1791 |"
    view.blocks[0].insert_menu.actions()[3].trigger()
    _draft(view).edit.setPlainText(table)
    _draft(view).save_button.click()
    expected = [
        ("user", "What is in Berlin?"),
        ("assistant", table),
        ("user", FIRST),
        ("assistant", answer),
    ]
    assert [(t.role, t.text) for t in thread.turns] == expected
    assert len(view.blocks) == 4
    # The inserted answer is rendered as the answer view renders: no "##", a table.
    shown = view.blocks[1].text_view
    assert "##" not in shown.toPlainText() and "Berlin" in shown.toPlainText()
    assert any(
        frame.__class__.__name__ == "QTextTable"
        for frame in shown.document().rootFrame().childFrames()
    )
    assert _body_turns(panel, route) == expected
    assert say(qloop, panel, "And Madrid?") == "complete"
    assert _sent(panel, route) == [*expected, ("user", "And Madrid?")]
    assert _text(panel).startswith(f'Following up on "{FIRST}".')


@pytest.mark.parametrize("route", ROUTES)
def test_regenerate_drops_the_answer_and_what_follows_and_asks_again(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    thread, view = panel.conversation, panel.conversation.view
    say(qloop, panel, FIRST)
    say(qloop, panel, "Then tell me about Rome")
    assert [t.role for t in thread.turns] == ["user", "assistant"] * 2
    assert view.blocks[0].regenerate_button is None  # a user turn has nothing to regenerate
    panel.editor.prompt.setPlainText("words not sent yet")
    requests = len(thread.requests)
    block = view.blocks[1]
    assert block.regenerate_button is not None
    assert then_wait(qloop, panel, block.regenerate_button.click) == "complete"
    # One more request, with the turns before the answer only: no Rome, no prompt box turn.
    assert len(thread.requests) == requests + 1
    assert _sent(panel, route) == [("user", FIRST)]
    assert "Rome" not in json.dumps(thread.requests[-1]["body"])
    assert "words not sent yet" not in json.dumps(thread.requests[-1]["body"])
    # The simulator's new answer is the new last turn; the prompt box kept its words.
    assert [t.role for t in thread.turns] == ["user", "assistant"]
    assert thread.turns[-1].text == _text(panel) and _text(panel)
    assert panel.editor.prompt.toPlainText() == "words not sent yet"
    assert _body_turns(panel, route)[-1] == ("user", "words not sent yet")


@pytest.mark.parametrize(
    ("source", "target"), [("chat", "messages"), ("messages", "responses"), ("responses", "chat")]
)
def test_send_to_another_panel_carries_the_thread(
    source: str, target: str, window: Any, qloop: Any
) -> None:
    panel = window.show_panel(source)
    if source == "messages":
        panel.editor.thinking.setValue(1024)  # thinking is Anthropic's: it stays behind
    panel.editor.system.setPlainText("Answer briefly.")
    assert say(qloop, panel, FIRST) == "complete"
    answer = panel.conversation.turns[1].text
    panel.editor.prompt.setPlainText("And how tall is it?")
    view = panel.conversation.view
    actions = {a.data(): a for a in view.send_to_menu.actions()}
    assert set(actions) == {r for r in ROUTES if r != source} | {"compare"}
    actions[target].trigger()
    other = window.current_panel()
    assert other.route == target
    assert [(t.role, t.text) for t in other.conversation.turns] == [
        ("user", FIRST),
        ("assistant", answer),
    ]
    assert not any(isinstance(p, Thinking) for t in other.conversation.turns for p in t.parts)
    assert other.editor.prompt.toPlainText() == "And how tall is it?"
    assert other.editor.system.toPlainText() == "Answer briefly."
    assert len(other.conversation.view.blocks) == 2
    assert then_wait(qloop, other, other.send) == "complete"
    assert _sent(other, target) == [
        ("user", FIRST),
        ("assistant", answer),
        ("user", "And how tall is it?"),
    ]
    assert _text(other).startswith(f'Following up on "{FIRST}".')


def test_send_to_compare_gives_every_column_the_thread(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    assert say(qloop, panel, FIRST) == "complete"
    panel.editor.prompt.setPlainText("And how tall is it?")
    actions = {a.data(): a for a in panel.conversation.view.send_to_menu.actions()}
    actions["compare"].trigger()
    compare = window.compare.compare_window
    assert compare is not None and compare.conversation is not None
    assert [t.role for t in compare.conversation.turns] == ["user", "assistant"]
    assert compare.prompt.toPlainText() == "And how tall is it?"
    assert "2 earlier turns" in compare.statusBar().currentMessage()
    routes = [c.config.route for c in compare.columns]
    assert sorted(routes) == sorted(ROUTES)
    for column in compare.columns:
        body = compare.body_for(column.config.route, "")
        assert [t.text for t in parse_body(body, column.config.route).conversation.turns] == [
            FIRST,
            panel.conversation.turns[1].text,
            "And how tall is it?",
        ]

    async def all_finished() -> None:
        compare.send_all()
        await asyncio.sleep(0)
        await asyncio.gather(*(c.session.wait() for c in compare.columns))

    qloop.run(all_finished(), 30)
    qloop.sleep(0.05)
    for column in compare.columns:
        assert column.text.startswith(f'Following up on "{FIRST}".'), column.config.route
    compare.close()


# The offscreen platform cannot raise a popup nor grab the keyboard for it: it says so.
@pytest.mark.qt_log_ignore(
    "^This plugin does not support raise\\(\\)$",
    "^This plugin does not support grabbing the keyboard$",
)
def test_pressing_insert_opens_the_menu_it_makes_then(qloop: Any, sim: Any) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    panel = _panel("chat", sim)
    say(qloop, panel, FIRST)
    button = panel.conversation.view.blocks[0].insert_button
    assert button.menu() is None
    shown: list[Any] = []

    def close() -> None:
        popup = QApplication.activePopupWidget()
        shown.append(popup)
        if popup is not None:
            popup.close()

    QTimer.singleShot(300, close)
    QTest.mousePress(button, Qt.MouseButton.LeftButton)  # opens it (a loop of its own)
    assert shown and shown[0] is button.menu() is not None
    assert len(button.menu().actions()) == 4
