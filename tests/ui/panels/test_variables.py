"""The Variables group of the chat, responses and messages panels, on the real simulator: a
``{{topic}}`` in the system, a turn of the thread, a tool's description or the message box is
listed once with a value field; the JSON body view shows the request filled in; what is sent
(the spec, the dump's requests, the answer the simulator wrote from it) has the value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import sim_panel, then_wait

from playground.protocol.requests import SAMPLE_TOOL

ROUTES = ("chat", "responses", "messages")
PLACES = ("system", "thread", "tool", "message box")
VALUE = "barn owls"


def _panel(route: str, sim: Any) -> Any:
    return sim_panel(route, sim, pace="instant")


def _tool(description: str) -> dict[str, Any]:
    tool: dict[str, Any] = json.loads(json.dumps(SAMPLE_TOOL))
    tool["function"]["description"] = description
    return tool


def _use(panel: Any, place: str, text: str) -> None:
    """``text`` put where ``place`` says, as a person would (the thread from a pasted body)."""
    editor = panel.editor
    if place == "system":
        editor.system.setPlainText(text)
    elif place == "message box":
        editor.prompt.setPlainText(text)
    elif place == "tool":
        editor.use_tools.setChecked(True)
        editor.tools.setPlainText(json.dumps([_tool(text)]))
    else:  # a body pasted into the JSON view: its earlier turns become the thread
        editor.set_body(
            {
                "model": "sim-reasoner",
                "messages": [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": "Noted."},
                    {"role": "user", "content": "Go on."},
                ],
            }
            if panel.route != "responses"
            else {
                "model": "sim-reasoner",
                "input": [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": "Noted."},
                    {"role": "user", "content": "Go on."},
                ],
            }
        )
        assert any(text in t.text for t in panel.conversation.turns)


def _strings(value: Any) -> str:
    if isinstance(value, str):
        return value + "\n"
    if isinstance(value, dict):
        return "".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "".join(_strings(v) for v in value)
    return ""


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("place", PLACES)
def test_a_variable_is_listed_with_a_value_field(
    route: str, place: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    group = panel.editor.variables
    assert group is not None and group.isHidden()  # no variable: no group
    _use(panel, place, "Write about {{topic}} and {{ topic }} again.")
    qloop.sleep(0.3)  # a thread's change is looked at a moment later
    assert group.names() == ["topic"]
    assert not group.isHidden()
    assert group.field("topic").text() == ""
    # No value yet: the note says it goes as written, and the body view shows it so.
    assert "{{topic}}" in group.note.text() and not group.note.isHidden()
    assert "{{topic}}" in panel.editor.raw.toPlainText()
    group.field("topic").textEdited.emit(VALUE)  # as typing it does
    group.field("topic").setText(VALUE)
    assert group.note.isHidden()
    shown = panel.editor.raw.toPlainText()
    assert f"Write about {VALUE} and {VALUE} again." in _strings(json.loads(shown))
    assert "{{" not in shown


@pytest.mark.parametrize("route", ROUTES)
def test_every_place_at_once_lists_the_variable_once_and_sends_it_filled(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    for place in ("thread", "system", "tool", "message box"):  # a pasted body sets them all
        _use(panel, place, f"In the {place}: {{{{topic}}}}.")
    qloop.sleep(0.3)
    group = panel.editor.variables
    assert group.names() == ["topic"]
    edit = group.field("topic")
    edit.setText(VALUE)
    edit.textEdited.emit(VALUE)
    panel.editor.prompt.setPlainText("Tell me about {{topic}}.")
    sent_text = _strings(panel.editor.body())
    for place in PLACES[:3]:
        assert f"In the {place}: {VALUE}." in sent_text, place
    assert f"Tell me about {VALUE}." in sent_text and "{{" not in sent_text
    assert then_wait(qloop, panel) == "complete"
    # What went: the spec's body and the dump's request.
    assert f"Tell me about {VALUE}." in _strings(panel._last_spec.json_body)
    dumped = _strings(panel.conversation.requests[-1]["body"])
    assert f"Tell me about {VALUE}." in dumped and "{{topic}}" not in dumped
    # The thread keeps the variable as written: the next request fills it again.
    assert any("{{topic}}" in t.text for t in panel.conversation.turns)
    assert group.names() == ["topic"]


@pytest.mark.parametrize("route", ROUTES)
def test_the_simulator_answers_the_filled_in_prompt(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    panel.editor.prompt.setPlainText("Tell me about {{topic}}.")
    panel.editor.variables.field("topic").textEdited.emit("lighthouses")
    assert then_wait(qloop, panel) == "complete"
    # The simulator writes its answer from the prompt it received (docs/simulator.md).
    answer = panel.session.state.text.lower()
    assert "lighthouse" in answer and "{{topic}}" not in answer


def test_an_unfilled_variable_is_sent_as_written(qloop: Any, sim: Any) -> None:
    panel = _panel("chat", sim)
    panel.editor.prompt.setPlainText("Tell me about {{topic}}.")
    group = panel.editor.variables
    assert group.note.text() == "No value for {{topic}}: sent as written."
    assert group.note.text() in panel.editor.raw_error.text()  # under the JSON body too
    assert then_wait(qloop, panel) == "complete"
    assert "Tell me about {{topic}}." in _strings(panel.conversation.requests[-1]["body"])


def test_values_stay_with_the_panel_when_a_name_comes_back(qloop: Any, sim: Any) -> None:
    panel = _panel("messages", sim)
    editor = panel.editor
    editor.prompt.setPlainText("About {{topic}}.")
    editor.variables.field("topic").setText(VALUE)
    editor.variables.field("topic").textEdited.emit(VALUE)
    editor.prompt.setPlainText("About nothing.")
    assert editor.variables.isHidden() and editor.variables.names() == []
    editor.prompt.setPlainText("About {{topic}} again.")
    assert editor.variables.field("topic").text() == VALUE
    assert f"About {VALUE} again." in _strings(editor.body())
    assert editor.variables.values() == {"topic": VALUE}
