"""The Tools group on the chat, responses and messages panels, on the real simulator: the list
builds each route's tools, a schema is checked as it is typed, a canned result with Auto-reply
runs the tool loop with no click, and a pasted body fills the list."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from panel_helpers import sim_panel
from sdk_referee import TIME_TOOL

from playground.protocol.requests import SAMPLE_TOOL, to_anthropic_tool

ROUTES = ("chat", "responses", "messages")
ASK_TOOLS = "What is the weather and the time in Paris?"
WEATHER = '{"temp_c": 18, "sky": "clear"}'
TIME = '{"time": "09:40"}'
FORECAST_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


def _panel(route: str, sim: Any) -> Any:
    panel = sim_panel(route, sim, pace="instant")
    if route == "messages":  # thinking must go back with its signature (the simulator checks)
        panel.editor.thinking.setValue(1024)
    return panel


def _body(panel: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(panel.editor.raw.toPlainText())
    return body


def _settle(qloop: Any, panel: Any, action: Any) -> None:
    """Do ``action`` and wait until no run goes on (auto-replies start runs of their own)."""

    async def go() -> None:
        action()
        for _ in range(200):
            await asyncio.sleep(0.02)
            await panel.session.wait()
            await asyncio.sleep(0.05)
            if not panel.session.is_running:
                return

    qloop.run(go(), 60)


def _say(qloop: Any, panel: Any, text: str) -> None:
    panel.editor.prompt.setPlainText(text)
    _settle(qloop, panel, panel.send)


def _text(panel: Any) -> str:
    return str(panel.session.state.text)


def _select(tools: Any, name: str) -> None:
    rows = [i for i, d in enumerate(tools.defs) if d.name == name]
    assert len(rows) == 1
    tools.list.setCurrentRow(rows[0])
    assert tools.name.text() == name


def _add(tools: Any, name: str, description: str, schema: dict[str, Any]) -> None:
    """A tool added the way a person does: +, then its fields typed."""
    tools.add_button.click()
    # The new tool is selected, with a name of its own to type over and an empty object schema.
    assert tools.list.currentRow() == len(tools.defs) - 1
    assert tools.name.text() == tools.name.selectedText() == f"tool_{len(tools.defs) - 1}"
    assert json.loads(tools.parameters.toPlainText()) == {"type": "object", "properties": {}}
    tools.name.setText(name)
    tools.description.setText(description)
    tools.parameters.setPlainText(json.dumps(schema, indent=2))


@pytest.mark.parametrize("route", ROUTES)
def test_the_list_builds_the_routes_tools(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    tools = panel.editor.tools
    assert "tools" not in _body(panel)
    tools.use_tools.setChecked(True)
    assert [d.name for d in tools.defs] == ["get_weather"]  # the sample tool to start from
    _add(tools, "get_forecast", "The forecast for some days", FORECAST_SCHEMA)
    assert [tools.list.item(i).text() for i in range(tools.list.count())] == [
        "get_weather",
        "get_forecast",
    ]
    tools.tool_choice.setCurrentText("get_forecast")
    forecast = {"name": "get_forecast", "description": "The forecast for some days"}
    weather = SAMPLE_TOOL["function"]
    if route == "chat":
        want = [
            SAMPLE_TOOL,
            {"type": "function", "function": forecast | {"parameters": FORECAST_SCHEMA}},
        ]
        choice: Any = {"type": "function", "function": {"name": "get_forecast"}}
    elif route == "responses":
        want = [
            {
                "type": "function",
                "name": "get_weather",
                "description": weather["description"],
                "parameters": weather["parameters"],
            },
            {"type": "function"} | forecast | {"parameters": FORECAST_SCHEMA},
        ]
        choice = {"type": "function", "name": "get_forecast"}
    else:
        want = [
            {
                "name": "get_weather",
                "description": weather["description"],
                "input_schema": weather["parameters"],
            },
            forecast | {"input_schema": FORECAST_SCHEMA},
        ]
        choice = {"type": "tool", "name": "get_forecast"}  # fmt: skip
    assert _body(panel)["tools"] == want
    assert _body(panel)["tool_choice"] == choice
    # The simulator takes it, and calls the chosen tool with arguments made from its schema.
    _say(qloop, panel, "Plan my week in Paris")
    assert panel.conversation.requests[0]["body"]["tools"] == want
    calls = panel.conversation.turns[-1].tool_calls
    assert [c.name for c in calls] == ["get_forecast"]
    assert isinstance(json.loads(calls[0].arguments)["city"], str)
    # Removing a tool takes it out of the body and out of the tool choices.
    _select(tools, "get_weather")
    tools.remove_button.click()
    assert [t.get("name") or t["function"]["name"] for t in _body(panel)["tools"]] == [
        "get_forecast"
    ]
    choices = [tools.tool_choice.itemText(i) for i in range(tools.tool_choice.count())]
    assert choices == ["auto", "none", "required", "get_forecast"]


@pytest.mark.parametrize("route", ROUTES)
def test_an_invalid_schema_shows_its_errors_and_is_left_out(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    _select(tools, "get_time")
    assert tools.schema_errors.isHidden()
    broken = json.loads(json.dumps(TIME_TOOL["function"]["parameters"]))
    broken["properties"]["timezone"]["type"] = "strin"
    broken["required"] = "timezone"
    tools.parameters.setPlainText(json.dumps(broken, indent=2))
    # Checked as typed: each error with its path, beside the tool, which is marked.
    assert not tools.schema_errors.isHidden()
    assert tools.schema_errors.text().splitlines() == [
        "✗ /properties/timezone/type: 'strin' is not one of "
        "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']",
        "✗ /required: 'timezone' is not of type 'array'",
        "The body built from the list leaves it out until this is fixed.",
    ]
    row = tools.list.item(1)
    assert row.text() == "⚠ get_time  · invalid schema"
    assert row.toolTip().splitlines()[1] == "/required: 'timezone' is not of type 'array'"
    assert tools.list.item(0).text() == "get_weather"
    # The body leaves it out, and its view says why.
    names = [t.get("name") or t["function"]["name"] for t in _body(panel)["tools"]]
    assert names == ["get_weather"]
    assert panel.editor.raw_error.text() == "Left out of the body (see the Tools list): get_time"
    # Half-typed JSON is an error at its line; a schema of another type is named as such.
    tools.parameters.setPlainText('{\n  "type": "object",\n  "properties": {\n')
    assert tools.schema_errors.text().startswith("✗ line 4: not JSON")
    tools.parameters.setPlainText('{"type": "string"}')
    assert tools.schema_errors.text().startswith('✗ /type: a tool\'s parameters must be {"type"')
    # Fixed: no error, and the tool is back in the body.
    tools.parameters.setPlainText(json.dumps(TIME_TOOL["function"]["parameters"]))
    assert tools.schema_errors.isHidden()
    assert tools.list.item(1).text() == "get_time"
    assert len(_body(panel)["tools"]) == 2
    assert panel.editor.raw_error.text() == ""
    # A tool with no name is not sent either.
    tools.name.setText("")
    assert tools.schema_errors.text().splitlines()[0] == "✗ The tool needs a name."
    assert tools.list.item(1).text() == "⚠ (unnamed)  · no name"
    assert len(_body(panel)["tools"]) == 1


def _results_sent(route: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id, result) of the tool results in a request body, read in the route's shape."""
    if route == "chat":
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]
    if route == "responses":
        items = body["input"] if isinstance(body["input"], list) else []  # a lone prompt: text
        return [
            (i["call_id"], i["output"]) for i in items if i.get("type") == "function_call_output"
        ]
    return [
        (b["tool_use_id"], b["content"])
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


@pytest.mark.parametrize("route", ROUTES)
def test_canned_results_with_auto_reply_run_the_tool_loop_without_a_click(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    _select(tools, "get_weather")
    tools.canned.setPlainText(WEATHER)
    _select(tools, "get_time")
    tools.canned.setPlainText(TIME)
    assert tools.list.item(0).text() == "get_weather  · canned result"
    assert "temp_c" not in json.dumps(_body(panel))  # a canned result never goes on the wire
    tools.auto_reply.setChecked(True)
    for round_, ask in enumerate([ASK_TOOLS, "And tomorrow, weather and time?"]):
        _say(qloop, panel, ask)
        requests = panel.conversation.requests
        assert len(requests) == 2 * (round_ + 1)
        asked, answered = requests[-2]["body"], requests[-1]["body"]
        # The follow-up question carries the earlier round's results; only its answer is new.
        earlier = _results_sent(route, requests[1]["body"]) if round_ else []
        assert _results_sent(route, asked) == earlier
        calls = panel.conversation.turns[-3].tool_calls
        assert [c.name for c in calls] == ["get_weather", "get_time"]
        # Both calls answered together, each with its tool's canned result, in the route's shape.
        assert _results_sent(route, answered) == [
            *earlier,
            (calls[0].id, WEATHER),
            (calls[1].id, TIME),
        ]
        # The final answer uses the results.
        assert f"The tool answered: get_weather: {WEATHER}; get_time: {TIME}" in _text(panel)
        assert panel.conversation.view.results_box.isHidden()
    roles = [t.role for t in panel.conversation.turns]
    assert roles == ["user", "assistant", "tool", "assistant"] * 2


@pytest.mark.parametrize("route", ["chat", "messages"])
def test_a_call_without_a_canned_result_waits_for_its_editor(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = _panel(route, sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    _select(tools, "get_weather")
    tools.canned.setPlainText(WEATHER)
    tools.auto_reply.setChecked(True)
    _say(qloop, panel, ASK_TOOLS)
    # Parallel calls go back together: with get_time unanswered, nothing is sent by itself.
    assert len(panel.conversation.requests) == 1
    view = panel.conversation.view
    assert not view.results_box.isHidden()
    assert [(e.call.name, e.edit.toPlainText()) for e in view.result_editors] == [
        ("get_weather", WEATHER),
        ("get_time", ""),
    ]
    view.result_editors[1].edit.setPlainText(TIME)
    _settle(qloop, panel, view.send_results_button.click)
    assert len(panel.conversation.requests) == 2
    assert f"get_weather: {WEATHER}; get_time: {TIME}" in _text(panel)


def test_without_auto_reply_a_canned_result_only_fills_its_editor(qloop: Any, sim: Any) -> None:
    panel = _panel("responses", sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.canned.setPlainText(WEATHER)  # the sample tool, get_weather, is selected
    _say(qloop, panel, "What is the weather in Paris?")
    assert len(panel.conversation.requests) == 1
    editors = panel.conversation.view.result_editors
    assert [(e.call.name, e.edit.toPlainText()) for e in editors] == [("get_weather", WEATHER)]


@pytest.mark.parametrize("route", ROUTES)
def test_a_pasted_body_fills_the_list(route: str, qloop: Any, sim: Any) -> None:
    panel = _panel(route, sim)
    tools = panel.editor.tools
    tools.canned.setPlainText(WEATHER)  # kept for the tool of the same name
    pasted = [SAMPLE_TOOL, TIME_TOOL]
    body: dict[str, Any] = {
        "model": "sim-reasoner",
        "stream": True,
        "messages": [{"role": "user", "content": ASK_TOOLS}],
        "tools": pasted,
        "tool_choice": "required",
    }
    if route == "messages":
        body |= {"max_tokens": 1024, "tools": [to_anthropic_tool(t) for t in pasted]}
        body["tool_choice"] = {"type": "any"}
    elif route == "responses":
        body["input"] = body.pop("messages")
        body["tools"] = [
            {"type": "function"} | {k: v for k, v in t["function"].items()} for t in pasted
        ]
    assert not tools.list.isVisibleTo(panel)  # Send tools is off: the list is closed
    panel.editor.set_body(body)
    assert tools.use_tools.isChecked()
    assert tools.list.isVisibleTo(panel) and tools.auto_reply.isVisibleTo(panel)
    assert [d.name for d in tools.defs] == ["get_weather", "get_time"]
    assert [tools.list.item(i).text() for i in range(tools.list.count())] == [
        "get_weather  · canned result",
        "get_time",
    ]
    assert tools.name.text() == "get_weather"
    assert json.loads(tools.parameters.toPlainText()) == SAMPLE_TOOL["function"]["parameters"]
    assert tools.canned.toPlainText() == WEATHER
    assert tools.tool_choice.currentText() == "required"
    _select(tools, "get_time")
    assert tools.description.text() == "Local time in a timezone"
    # The list builds the body that was pasted; an edit of the list shows in the body.
    panel.editor._form_to_raw()
    assert _body(panel)["tools"] == body["tools"]
    tools.description.setText("The time where you are")
    assert "The time where you are" in json.dumps(_body(panel)["tools"])
    panel.editor.set_body(body | {"tools": body["tools"][:1]})
    assert [d.name for d in tools.defs] == ["get_weather"]
    if route == "chat":  # a chat body without tools turns Send tools off (and closes the list)
        panel.editor.set_body({k: v for k, v in body.items() if k not in ("tools", "tool_choice")})
        assert not tools.use_tools.isChecked() and not tools.list.isVisibleTo(panel)
        assert [d.name for d in tools.defs] == ["get_weather"]  # kept for when it is on again


def test_the_list_can_be_edited_as_json(qloop: Any, sim: Any) -> None:
    panel = _panel("chat", sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.as_json.click()
    assert tools.pages.currentIndex() == 1
    assert json.loads(tools.json_edit.toPlainText()) == [SAMPLE_TOOL]
    tools.json_edit.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    assert [tools.list.item(i).text() for i in range(2)] == ["get_weather", "get_time"]
    assert _body(panel)["tools"] == [SAMPLE_TOOL, TIME_TOOL]
    tools.json_edit.setPlainText("[{")  # half-typed: said, and the list stays
    assert tools.json_error.text().startswith("Not valid JSON yet")
    assert len(tools.defs) == 2
    tools.as_json.click()
    assert tools.pages.currentIndex() == 0


def test_the_first_frame_does_not_load_the_schema_checker() -> None:
    # The sample tool's schema is known good: building the panels checks nothing, so jsonschema
    # (about 90 ms to import) loads at the first edit of a schema, not before the window shows.
    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from playground.ui.panels.editor import RequestEditor\n"
        "editors = [RequestEditor(r) for r in ('chat', 'responses', 'messages')]\n"
        "for e in editors:\n"
        "    e.use_tools.setChecked(True)\n"
        "    assert e.body()['tools'], e.route\n"
        "print('jsonschema' in sys.modules)\n"
        'editors[0].tools.parameters.setPlainText(\'{"type": "object"}\')\n'
        "print('jsonschema' in sys.modules)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_auto_reply_stops_after_its_rounds_in_a_row(qloop: Any, sim: Any) -> None:
    # A model that keeps calling its tools: after MAX_AUTO_ROUNDS answered rounds without a user
    # turn, the calls wait in their result editors (prefilled) for a person.
    from playground.protocol.conversation.model import ToolCall, ToolResult, Turn
    from playground.ui.conversation.auto_reply import MAX_AUTO_ROUNDS, auto_answer

    panel = _panel("chat", sim)
    tools = panel.editor.tools
    tools.use_tools.setChecked(True)
    tools.canned.setPlainText(WEATHER)
    tools.auto_reply.setChecked(True)
    thread = panel.conversation
    panel.editor.set_prompt("")  # the thread below is the whole conversation

    def rounds(n: int) -> list[Turn]:
        turns = [Turn.of("user", "weather?")]
        for i in range(n):
            turns.append(Turn("assistant", (ToolCall(f"c{i}", "get_weather"),)))
            turns.append(Turn("tool", (ToolResult(f"c{i}", WEATHER),)))
        return [*turns, Turn("assistant", (ToolCall("open", "get_weather"),))]

    thread.turns = rounds(MAX_AUTO_ROUNDS)
    thread.refresh()
    assert not auto_answer(thread, limit=MAX_AUTO_ROUNDS)
    assert [e.edit.toPlainText() for e in thread.view.result_editors] == [WEATHER]
    assert thread.requests == []
    # One round fewer: answered, and the run goes on.
    thread.turns = rounds(MAX_AUTO_ROUNDS - 1)
    thread.refresh()
    _settle(qloop, panel, lambda: auto_answer(thread, limit=MAX_AUTO_ROUNDS))
    assert len(thread.requests) == 1
    assert thread.turns[-1].text.startswith(f"The tool answered: {WEATHER}")
    assert thread.turns[-2].role == "tool" and thread.turns[-2].tool_results[0].call_id == "open"
    # Auto-reply off: a canned result is only a prefill.
    tools.auto_reply.setChecked(False)
    thread.turns = rounds(0)
    thread.refresh()
    assert not auto_answer(thread)
