"""Cache up to here: a messages turn's breakpoint set from the thread goes into the body on that
turn's last content block and shows on the turn; the simulator then writes the prefix to its
cache; a pasted body's breakpoints show on their turns too."""

from __future__ import annotations

from typing import Any

import pytest
from panel_helpers import say, sim_panel

pytestmark = pytest.mark.timeout(120)

LONG = "Tell me how the simulator's prompt cache keeps a prefix, in a few sentences please. " * 5
EPHEMERAL = {"type": "ephemeral"}


def _marker(block: Any) -> str:
    label = block.findChild(object, "cacheMarker")
    return label.text() if label is not None and label.isVisibleTo(block) else ""


def test_cache_up_to_here_sets_the_breakpoint_and_the_simulator_caches(
    qloop: Any, sim: Any
) -> None:
    panel = sim_panel("messages", sim, model="sim-chat")
    assert say(qloop, panel, LONG) == "complete"
    marks = panel.cache_marks
    thread = panel.conversation
    assert [t.role for t in thread.turns] == ["user", "assistant"]
    marks.set_breakpoint(1, "5m")
    qloop.sleep(0.05)
    body = panel.editor.body()
    assert body["messages"][1]["content"][-1]["cache_control"] == EPHEMERAL
    answer = thread.view.blocks[1]
    assert _marker(answer).startswith("⚑ cache breakpoint (5 min)")
    menu = marks.menu_for(answer)
    first = menu.actions()[0]
    assert first.text() == "Cache up to here" and first.isChecked()
    assert say(qloop, panel, "And then?") == "complete"
    usage = panel.session.state.usage
    assert usage["cache_creation_input_tokens"] > 0  # the marked prefix was written
    assert thread.turns[1].cache_breakpoint == "5m"  # it stays on the thread as sent
    marks.set_breakpoint(1, None)
    qloop.sleep(0.05)
    assert "cache_control" not in str(panel.editor.body()["messages"][1])
    assert _marker(thread.view.blocks[1]) == ""


def test_a_pasted_bodys_breakpoints_show_on_their_turns(qloop: Any, sim: Any) -> None:
    panel = sim_panel("messages", sim, model="sim-chat")
    body = {
        "model": "sim-chat",
        "max_tokens": 256,
        "messages": [
            {"role": "user",
             "content": [{"type": "text", "text": LONG, "cache_control": EPHEMERAL}]},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "And then?"},
        ],
    }  # fmt: skip
    panel.editor.set_body(body)
    qloop.sleep(0.05)
    thread = panel.conversation
    assert thread.turns[0].cache_breakpoint == "5m"
    assert _marker(thread.view.blocks[0]).startswith("⚑ cache breakpoint")
    assert _marker(thread.view.blocks[1]) == ""


def test_breakpoints_on_the_system_and_the_tools(qloop: Any, sim: Any) -> None:
    import json

    panel = sim_panel("messages", sim, model="sim-chat")
    switches = panel.context_parts.breakpoints
    panel.editor.system_box().setPlainText("You are terse.")
    tools = [{"name": "get_weather", "description": "The weather", "input_schema": {
        "type": "object", "properties": {"city": {"type": "string"}}}}]  # fmt: skip
    panel.editor.tools.setPlainText(json.dumps(tools))
    panel.editor.use_tools.setChecked(True)
    switches.system.setChecked(True)
    body = panel.editor.body()
    assert body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": EPHEMERAL}
    ]
    assert "cache_control" not in body["tools"][-1]
    switches.tools.setChecked(True)
    assert panel.editor.body()["tools"][-1]["cache_control"] == EPHEMERAL
    switches.system.setChecked(False)
    assert panel.editor.body()["system"] == "You are terse."
    # A pasted body's own breakpoint on its system turns the switch on.
    pasted = {"model": "sim-chat", "max_tokens": 64, "system": [
        {"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}],
        "messages": [{"role": "user", "content": "Hi"}]}  # fmt: skip
    switches.tools.setChecked(False)
    panel.editor.set_body(pasted)
    assert switches.system.isChecked() and not switches.tools.isChecked()


def test_a_far_turn_built_later_has_its_menu_and_its_mark(qloop: Any, sim: Any) -> None:
    # A long pasted thread shows its far turns as stand-ins (pending_turns.py): one built when
    # scrolled to must offer "Cache up to here" and show its mark like any other.
    from PySide6.QtCore import Qt

    from playground.ui.conversation.pending_turns import PendingBlock, build

    panel = sim_panel("messages", sim, model="sim-chat")
    messages: list[dict[str, Any]] = []
    for i in range(20):
        content: Any = f"Question {i}: {LONG}"
        if i == 0:
            content = [{"type": "text", "text": content, "cache_control": EPHEMERAL}]
        messages += [{"role": "user", "content": content}, {"role": "assistant", "content": "Ok."}]
    panel.editor.set_body({"model": "sim-chat", "max_tokens": 256, "messages": messages})
    qloop.sleep(0.1)
    view = panel.conversation.view
    far = view.blocks[0]
    assert isinstance(far, PendingBlock)
    real = build(far)
    qloop.sleep(0.05)
    assert view.blocks[0] is real
    assert real.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    assert panel.cache_marks.menu_for(real).actions()[0].isChecked()
    assert _marker(real).startswith("⚑ cache breakpoint (5 min)")
