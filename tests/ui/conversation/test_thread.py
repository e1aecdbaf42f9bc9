"""The conversation thread on the chat, responses and messages panels, on the real simulator:
follow-ups carry the earlier turns, turns can be deleted, tool calls are answered in a loop."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import say, sim_panel, then_wait
from PySide6.QtGui import QKeySequence, QShortcut
from sdk_referee import TIME_TOOL, sdk_answer

from playground.protocol.requests import SAMPLE_TOOL

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"
ASK_TOOLS = "What is the weather and the time in Paris?"


def _panel(route: str, sim: Any) -> Any:
    return sim_panel(route, sim, pace="instant")


def _text(panel: Any) -> str:
    return str(panel.session.state.text)


def _strings(value: Any) -> str:
    """Every string in a JSON value, one a line (to look for a turn's text in a body)."""
    if isinstance(value, str):
        return value + "\n"
    if isinstance(value, dict):
        return "".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "".join(_strings(v) for v in value)
    return ""


def _body(panel: Any) -> str:
    """The strings of the JSON body view's body."""
    return _strings(json.loads(panel.editor.raw.toPlainText()))


@pytest.mark.parametrize("route", ROUTES)
def test_a_follow_up_carries_the_earlier_turns(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    view = panel.conversation.view
    assert view.blocks == [] and view.empty_hint.isVisibleTo(panel)  # the transcript's empty state
    assert say(qloop, panel, FIRST) == "complete"
    first_answer = _text(panel)
    # The answer stays in the thread; the prompt box is empty for the next turn.
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]
    assert panel.conversation.turns[1].text == first_answer
    assert panel.editor.prompt.toPlainText() == ""
    assert not view.empty_hint.isVisibleTo(panel)
    assert len(panel.conversation.view.blocks) == 2
    # The JSON body view shows the thread's messages.
    assert FIRST in _body(panel) and first_answer in _body(panel)
    assert say(qloop, panel, "And how tall is it?") == "complete"
    assert _text(panel).startswith(f'Following up on "{FIRST}".')
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant", "user", "assistant"]
    paths = [r["path"] for r in panel.conversation.requests]
    assert len(paths) == 2 and paths[0] == paths[1] and paths[0].startswith("/v1/")
    assert first_answer in _strings(panel.conversation.requests[1]["body"])
    assert first_answer not in _strings(panel.conversation.requests[0]["body"])


@pytest.mark.parametrize("route", ROUTES)
def test_a_deleted_turn_is_not_sent(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    say(qloop, panel, FIRST)
    say(qloop, panel, "Then tell me about Rome")
    assert len(panel.conversation.turns) == 4
    panel.conversation.view.blocks[0].delete_button.click()  # the first question
    panel.conversation.view.blocks[0].delete_button.click()  # and its answer
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]
    assert len(panel.conversation.view.blocks) == 2
    assert FIRST not in _body(panel).splitlines()
    say(qloop, panel, "And Madrid?")
    # The follow-up names the turn still there, not the deleted one.
    assert _text(panel).startswith('Following up on "Then tell me about Rome".')
    assert FIRST not in _strings(panel.conversation.requests[-1]["body"]).splitlines()
    # New conversation (Ctrl+N) clears the thread.
    # (Offscreen no window becomes active, so the key is not dispatched: the shortcut's own
    # action stands for it.)
    shortcuts = [s for s in panel.findChildren(QShortcut) if s.key() == QKeySequence("Ctrl+N")]
    assert len(shortcuts) == 1
    shortcuts[0].activated.emit()
    assert panel.conversation.turns == [] and panel.conversation.view.blocks == []
    assert "Rome" not in _body(panel)


@pytest.mark.parametrize("route", ROUTES)
def test_a_two_round_tool_loop_with_parallel_calls(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    editor = panel.editor
    editor.use_tools.setChecked(True)
    editor.tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    if route == "messages":  # thinking must go back with its signature (the simulator checks)
        editor.thinking.setValue(1024)
    view = panel.conversation.view
    for round_, ask in enumerate([ASK_TOOLS, "And tomorrow, weather and time?"]):
        assert say(qloop, panel, ask) == "complete"
        calls = panel.conversation.turns[-1].tool_calls
        assert [c.name for c in calls] == ["get_weather", "get_time"]
        # One result editor per parallel call, and the Send results action.
        assert [e.call.id for e in view.result_editors] == [c.id for c in calls]
        assert not view.results_box.isHidden()
        for editor_ in view.result_editors:
            editor_.edit.setPlainText(json.dumps({"round": round_, "tool": editor_.call.name}))
        # Round one by the button; round two by Send (Ctrl+Enter), which sends the results.
        press = view.send_results_button.click if round_ == 0 else panel.send
        assert then_wait(qloop, panel, press) == "complete"
        used = (
            f'The tool answered: get_weather: {{"round": {round_}, "tool": "get_weather"}}; '
            f'get_time: {{"round": {round_}, "tool": "get_time"}}'
        )
        earlier = f'Following up on "{ASK_TOOLS[:-1].rsplit(" ", 1)[0]}…".\n\n'
        assert _text(panel).startswith(earlier + used if round_ else used)
        assert panel.conversation.turns[-2].role == "tool"
        assert [r.call_id for r in panel.conversation.turns[-2].tool_results] == [
            c.id for c in calls
        ]
        assert view.results_box.isHidden()
    roles = [t.role for t in panel.conversation.turns]
    assert roles == ["user", "assistant", "tool", "assistant"] * 2
    assert len(panel.conversation.requests) == 4


@pytest.mark.parametrize("route", ROUTES)
def test_the_official_sdks_accept_the_bodies_the_panel_sent(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    panel.editor.use_tools.setChecked(True)
    panel.editor.tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    say(qloop, panel, ASK_TOOLS)
    for editor_ in panel.conversation.view.result_editors:
        editor_.edit.setPlainText('{"ok": true}')
    then_wait(qloop, panel, panel.conversation.view.send_results_button.click)
    say(qloop, panel, "And tomorrow?")
    texts = []
    for request in panel.conversation.requests:
        text, sent = sdk_answer(sim.base_url, route, request["body"])
        assert sent == request["body"]
        texts.append(text)
    assert len(texts) == 3
    # The results' body gets the answer that uses them, as the panel's own run did.
    assert texts[1].startswith('The tool answered: get_weather: {"ok": true}; get_time:')


@pytest.mark.parametrize("route", ROUTES)
def test_a_body_typed_into_the_json_view_fills_the_thread(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    body = {
        "model": "sim-reasoner",
        "stream": True,
        "messages": [
            {"role": "user", "content": FIRST},
            {"role": "assistant", "content": "It is a wrought-iron tower."},
            {"role": "user", "content": "How tall is it?"},
        ],
    }
    if route == "messages":
        body["max_tokens"] = 1024
    elif route == "responses":
        body["input"] = body.pop("messages")
    panel.editor.set_body(body)
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]
    assert panel.editor.prompt.toPlainText() == "How tall is it?"
    assert len(panel.conversation.view.blocks) == 2
    assert then_wait(qloop, panel, panel.send) == "complete"
    assert _text(panel).startswith(f'Following up on "{FIRST}".')
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"] * 2


def test_the_json_body_of_a_thread_is_built_when_it_is_seen_or_sent(qloop: Any, sim: Any) -> None:
    # The JSON body view never opened: a run's end dumps no JSON (the thread grows with every
    # answer); the body read or the view opened afterwards has the answer in it.
    panel = _panel("chat", sim)
    editor = panel.editor
    built: list[int] = []
    plain = editor._built

    def counted() -> Any:
        built.append(1)
        return plain()

    editor._built = counted
    at_start: list[int] = []
    panel.session.started.connect(lambda: at_start.append(len(built)))
    assert say(qloop, panel, FIRST) == "complete"
    qloop.sleep(0.1)
    assert editor._raw is None and at_start == [len(built)]  # nothing built after the Send
    answer = _text(panel)
    assert answer[:40] in _strings(editor.body())
    assert answer[:40] in _body(panel)  # the view, opened now, shows it
    assert editor.raw_error.text() == ""
