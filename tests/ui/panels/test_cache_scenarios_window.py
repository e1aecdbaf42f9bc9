"""The prompt cache's scenarios in the window (the headless dump reads the window's panel): tools
reordered between two requests and an earlier turn edited are each a changed prefix, said where,
on the warning before sending and on the request's cache verdict, on chat, responses and
messages."""

from __future__ import annotations

from typing import Any

import pytest
from cache_scenarios import tools_for
from panel_helpers import say

from tests.ui.panels.test_cost_and_cache import LONG, ROUTES, _ready

pytestmark = pytest.mark.timeout(300)


def _last_cache(panel: Any) -> dict[str, Any]:
    cache: dict[str, Any] = panel.dump_state()["requests"][-1]["cache"]
    return cache


@pytest.mark.parametrize("route", ROUTES)
def test_tools_reordered_change_the_prefix_at_the_tools(
    window: Any, qloop: Any, route: str
) -> None:
    panel = _ready(window, qloop, route)
    tools = tools_for(route, [0, 1])  # get_weather, get_time
    panel.editor.set_body({**panel.editor.body(), "tools": tools, "tool_choice": "none"})
    panel.editor.system_box().setPlainText("You answer briefly. " * 10)
    assert say(qloop, panel, LONG) == "complete"
    assert _last_cache(panel)["status"] == "cold"
    body = panel.editor.body()
    panel.editor.set_body({**body, "tools": list(reversed(body["tools"]))})
    panel.editor.prompt_box().setPlainText("And then?")
    warning = panel.context_parts.warning
    warning.update_now()
    assert warning.isVisible() and "tools" in warning.text()
    assert say(qloop, panel, "And then?") == "complete"
    cache = _last_cache(panel)
    assert cache["status"] == "prefix_changed"
    assert cache["divergence"]["part"] == "tools"


@pytest.mark.parametrize("route", ROUTES)
def test_an_earlier_turn_edited_changes_the_prefix_at_that_message(
    window: Any, qloop: Any, route: str
) -> None:
    panel = _ready(window, qloop, route)
    panel.editor.system_box().setPlainText("You answer briefly. " * 10)
    assert say(qloop, panel, LONG) == "complete"
    assert say(qloop, panel, "And then?") == "complete"
    assert _last_cache(panel)["status"] in ("hit", "partial_hit")
    thread = panel.conversation
    answer = thread.turns[1]
    assert answer.role == "assistant"
    edited = answer.text[:40] + " (edited)" + answer.text[40:]
    thread.editing.edit(1, edited)  # an earlier answer steered: no branch, the thread goes on
    qloop.sleep(0.05)
    assert say(qloop, panel, "One more?") == "complete"
    cache = _last_cache(panel)
    assert cache["status"] == "prefix_changed"
    divergence = cache["divergence"]
    # The answer is message 1 of the thread, after the system message where the route puts it
    # among the messages; the offset counts its canonical JSON string's opening quote.
    assert divergence["part"] == "message"
    assert divergence["index"] == (1 if route == "messages" else 2)
    assert divergence["offset"] == 40 + 1
