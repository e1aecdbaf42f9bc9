"""Presets in the real window on the real simulator: a two-turn conversation with a tool loop
saved on chat, responses and messages, the thread cleared, the preset opened again (same thread,
model and body), a new conversation from it (no thread, same system and tools); the menu."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from panel_helpers import say, then_wait
from sdk_referee import TIME_TOOL

from playground.protocol.conversation.bodies import parse_body
from playground.protocol.requests import SAMPLE_TOOL
from playground.runs.presets import find_preset, list_presets

ROUTES = ("chat", "responses", "messages")
ASK_TOOLS = "What is the weather and the time in Paris?"
FOLLOW_UP = "Thanks. Is it a good day for a walk?"
SYSTEM = "You are a terse travel assistant."
CANNED = {"get_weather": '{"temp": 21, "sky": "clear"}'}


def _menu_texts(menu: Any) -> list[str]:
    return [a.text().replace("&", "").split("\t")[0] for a in menu.actions() if a.text()]


def _conversation(qloop: Any, window: Any, route: str) -> Any:
    """A two-turn conversation with a tool loop on ``route``'s panel, a system and a model."""
    panel = window.show_panel(route)
    panel.set_pace("instant")
    editor = panel.editor
    window.provider_bar.set_model("sim-reasoner")
    editor.system.setPlainText(SYSTEM)
    editor.use_tools.setChecked(True)
    editor.tools.setPlainText(json.dumps([SAMPLE_TOOL, TIME_TOOL]))
    editor.temperature.setValue(0.4)
    if route == "messages":  # thinking goes back with its signature (the simulator checks)
        editor.thinking.setValue(1024)
    # A canned result in the Tools list, Auto-reply off: it fills its call's editor.
    tools = editor.tools
    tools.list.setCurrentRow(0)
    assert tools.name.text() == "get_weather"
    tools.canned.setPlainText(CANNED["get_weather"])
    assert not tools.auto_reply.isChecked()
    assert say(qloop, panel, ASK_TOOLS) == "complete"
    view = panel.conversation.view
    assert [e.call.name for e in view.result_editors] == ["get_weather", "get_time"]
    # The canned result fills its call's editor; the other is typed.
    assert view.result_editors[0].edit.toPlainText() == CANNED["get_weather"]
    view.result_editors[1].edit.setPlainText('{"time": "14:05"}')
    assert then_wait(qloop, panel, view.send_results_button.click) == "complete"
    assert say(qloop, panel, FOLLOW_UP) == "complete"
    # The simulator calls a tool again: the canned one is filled in, any other typed.
    assert view.result_editors and view.result_editors[0].call.name == "get_weather"
    assert view.result_editors[0].edit.toPlainText() == CANNED["get_weather"]
    for other in view.result_editors[1:]:
        other.edit.setPlainText('{"time": "14:06"}')
    assert then_wait(qloop, panel, panel.send) == "complete"
    roles = [t.role for t in panel.conversation.turns]
    assert roles == ["user", "assistant", "tool", "assistant"] * 2
    assert panel.conversation.turns[-1].text
    return panel


@pytest.mark.parametrize("route", ROUTES)
def test_a_preset_saved_and_opened_again(
    route: str, window: Any, qloop: Any, tmp_path: Path
) -> None:
    presets = window.menus.presets
    presets.root = tmp_path
    panel = _conversation(qloop, window, route)
    thread = panel.conversation
    turns = list(thread.turns)
    body = panel.editor.body()
    assert body["model"] == "sim-reasoner"
    path = presets.save(f"Paris walk {route}")
    assert path is not None and path.parent == tmp_path
    assert presets.message == f"Saved the preset “Paris walk {route}”."
    saved = find_preset(f"Paris walk {route}", tmp_path)
    assert saved.route == route and saved.model == "sim-reasoner" and saved.system == SYSTEM
    assert saved.body == body and saved.canned == CANNED

    # Everything goes: the thread, the system, the model, the canned results; another panel.
    thread.clear()
    panel.editor.tools.canned.setPlainText("")
    panel.editor.system.setPlainText("")
    window.provider_bar.set_model("sim-fast")
    window.show_panel("images")
    assert thread.turns == [] and thread.view.blocks == []

    opened = presets.open(f"Paris walk {route}")
    assert opened is panel and window.current_panel() is panel
    assert thread.turns == turns
    assert len(thread.view.blocks) == len(turns) and not thread.view.empty_hint.isVisible()
    assert panel.editor.body() == body
    assert panel.editor.model == "sim-reasoner" == window.provider_bar.model()
    assert panel.editor.system.toPlainText() == SYSTEM
    assert panel.editor.use_tools.isChecked()
    assert panel.editor.tools.canned_results() == CANNED and thread.auto_results == {}
    # The conversation goes on from the preset: the next request carries its turns (and the
    # simulator, which checks them as the vendors do, takes it).
    assert say(qloop, panel, "And in the evening?") == "complete"
    sent = parse_body(thread.requests[-1]["body"], route).conversation.turns
    assert [(t.role, t.text) for t in sent] == [(t.role, t.text) for t in turns] + [
        ("user", "And in the evening?")
    ]


@pytest.mark.parametrize("route", ROUTES)
def test_a_new_conversation_from_a_preset(
    route: str, window: Any, qloop: Any, tmp_path: Path
) -> None:
    presets = window.menus.presets
    presets.root = tmp_path
    panel = _conversation(qloop, window, route)
    body = panel.editor.body()
    presets.save("template")
    window.show_panel("speech")

    opened = presets.new_conversation("template")
    assert opened is panel and window.current_panel() is panel
    thread = panel.conversation
    assert thread.turns == [] and thread.view.blocks == []
    assert panel.editor.system.toPlainText() == SYSTEM
    assert panel.editor.prompt.toPlainText() == ""
    fresh = panel.editor.body()
    for key in ("model", "tools", "temperature"):
        assert fresh[key] == body[key]
    assert panel.editor.tools.canned_results() == CANNED
    # The first question of a new conversation: no earlier turn is named, the tools are sent.
    assert say(qloop, panel, ASK_TOOLS) == "complete"
    assert not panel.session.state.text.startswith("Following up")
    assert [t.role for t in thread.turns] == ["user", "assistant"]
    assert [c.name for c in thread.turns[-1].tool_calls] == ["get_weather", "get_time"]
    sent = thread.requests[-1]["body"]
    assert sent["tools"] == body["tools"] and sent["model"] == "sim-reasoner"


def test_the_presets_menu_lists_opens_and_deletes(window: Any, qloop: Any, tmp_path: Path) -> None:
    presets = window.menus.presets
    presets.root = tmp_path
    menu = window.menus.presets_menu
    assert menu.title().replace("&", "") == "Presets"
    bar = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert bar == ["File", "Run", "Presets", "View", "Help"]
    presets.refresh()
    assert _menu_texts(menu) == [
        "Save as preset…",
        "Open preset",
        "New conversation from preset",
        "Delete preset",
    ]
    assert _menu_texts(presets.open_menu) == ["(no presets saved yet)"]
    assert not presets.open_menu.actions()[0].isEnabled()

    # Images has no thread: Save as preset is off there and says why.
    window.show_panel("images")
    presets.refresh()
    assert not presets.save_action.isEnabled()
    assert presets.save("nothing") is None
    assert presets.message.startswith("Presets keep a Chat, Responses or Messages panel")

    panel = window.show_panel("messages")
    panel.editor.system.setPlainText(SYSTEM)
    assert presets.save("Beta") is not None
    (tmp_path / "broken.json").write_text("{ not json")
    presets.refresh()
    assert presets.save_action.isEnabled()
    entries = presets.open_menu.actions()
    assert [a.text() for a in entries] == ["Beta\tMessages · sim-reasoner", "broken (unreadable)"]
    assert entries[1].toolTip() == (
        "The file broken.json is not valid JSON (line 1); it was set aside as broken.json.corrupt."
    )
    assert [a.isEnabled() for a in entries] == [True, False]
    assert [a.isEnabled() for a in presets.delete_menu.actions()] == [True, True]

    # The menu's own entries do what they say.
    window.show_panel("chat")
    presets.open_menu.actions()[0].trigger()
    assert window.current_panel().route == "messages"
    assert panel.editor.system.toPlainText() == SYSTEM
    presets.delete_menu.actions()[0].trigger()
    assert list_presets(tmp_path) == []  # the broken file was set aside as it was listed
    # A broken file opened by name: one sentence on the status bar, nothing else.
    (tmp_path / "broken.json").write_text("[" * 100_000)
    assert presets.open("broken") is None
    assert presets.message == (
        "The file broken.json is nested deeper than 256 levels; "
        "it was set aside as broken.json.1.corrupt."
    )
    assert window.statusBar().currentMessage() == presets.message
    assert presets.open("broken") is None
    assert presets.message == "There is no preset named 'broken'."
    presets.refresh()  # the menu lists again, the broken files out of the way
    assert [a.text() for a in presets.open_menu.actions()] == ["(no presets saved yet)"]


def test_save_as_preset_asks_for_a_name_and_before_replacing(
    window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QInputDialog, QMessageBox

    presets = window.menus.presets
    presets.root = tmp_path
    window.interactive = True
    asked: list[str] = []

    def get_text(*args: Any) -> tuple[str, bool]:
        asked.append(args[-1])  # the name offered
        return "  Asked   name ", True

    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(get_text))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a: answers.pop(0)))
    panel = window.show_panel("responses")
    panel.editor.system.setPlainText("first")
    assert presets.save() == tmp_path / "Asked name.json"
    assert asked == [""] and presets.last_name == "Asked name"
    panel.editor.system.setPlainText("second")
    assert presets.save() is None  # "Replace the preset?" No
    assert find_preset("Asked name", tmp_path).system == "first"
    assert presets.save() is not None  # Yes
    assert find_preset("Asked name", tmp_path).system == "second"
    assert asked == ["", "Asked name", "Asked name"] and answers == []


def test_a_preset_keeps_variables_as_written_and_their_values(
    window: Any, qloop: Any, tmp_path: Path
) -> None:
    presets = window.menus.presets
    presets.root = tmp_path
    panel = window.show_panel("chat")
    panel.set_pace("instant")
    editor = panel.editor
    editor.system.setPlainText("You write about {{topic}}.")
    assert say(qloop, panel, "One line on {{topic}}, please.") is not None
    editor.variables.field("topic").textEdited.emit("tides")
    presets.save("topical")
    saved = find_preset("topical", tmp_path)
    # The body keeps the variables as written, the values beside it.
    assert "{{topic}}" in json.dumps(saved.body) and "tides" not in json.dumps(saved.body)
    assert saved.variables == {"topic": "tides"}
    editor.variables.set_values({})
    editor.system.setPlainText("")
    presets.open("topical")
    assert editor.variables.names() == ["topic"]
    assert editor.variables.field("topic").text() == "tides"
    assert "You write about tides." in editor.raw.toPlainText()
