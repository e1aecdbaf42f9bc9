"""The Traffic panel's detail pane follows the selection: an exchange selected says what it is
and its actions work, and the dock keeps its size whatever exchange is shown."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from playground.ui.docks.traffic.panel import EMPTY as EMPTY_TEXT
from tests.ui.conftest import Loop
from tests.ui.docks.test_traffic_dock import _finish, _sdk

pytestmark = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <(socket.socket|function _SelectorTransport.__del__):"
    "pytest.PytestUnraisableExceptionWarning"
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "The time in a city",
            "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
        },
    }
]


def _start_proxy(window: Any, sim: Any, qloop: Loop) -> Any:
    qloop.do(window.start_proxy, sim.base_url)
    return window.traffic


def _requests(base_url: str) -> None:
    """A chat stream that calls a tool, then a path with no stream format (/v1/models)."""
    headers = {"Authorization": "Bearer sk-traffic-selection", "X-Sim-Pace": "fast"}
    body = {
        "model": "sim-chat",
        "stream": True,
        "messages": [{"role": "user", "content": "What time is it in Tokyo?"}],
        "tools": TOOLS,
    }
    with httpx.Client(timeout=30) as client:
        client.post(f"{base_url}/chat/completions", json=body, headers=headers).raise_for_status()
        client.get(f"{base_url}/models", headers=headers).raise_for_status()


def _all_done(panel: Any, count: int) -> bool:
    entries = panel.model.entries
    return len(entries) == count and all(e.status != "streaming" for e in entries)


def test_the_selected_exchange_is_shown_and_the_dock_keeps_its_size(
    window: Any, sim: Any, qloop: Loop
) -> None:
    traffic = _start_proxy(window, sim, qloop)
    panel = traffic.panel
    assert panel.empty.text() == EMPTY_TEXT  # nothing yet: where to point the app
    run = _sdk(qloop, traffic.base_url)
    _finish(qloop, run)
    thread = threading.Thread(target=_requests, args=(traffic.base_url,))
    thread.start()
    qloop.wait_until(lambda: not thread.is_alive(), 30)
    qloop.wait_until(lambda: _all_done(panel, 3), 20)
    qloop.sleep(0.2)
    by_path: dict[str, list[Any]] = {}
    for entry in panel.model.entries:
        by_path.setdefault(entry.ex.path, []).append(entry)
    models = by_path["/v1/models"][0]
    chats = by_path["/v1/chat/completions"]
    tools = next(e for e in chats if e.session.state.tool_calls)
    text = next(e for e in chats if e is not tools)
    heights = set()
    hints = set()
    for entry in (text, tools, models, tools, text):
        panel.select(entry)
        qloop.sleep(0.15)  # the window lays its docks out on the next turns of the loop
        heights.add(traffic.height())
        hints.add((panel.sizeHint().height(), panel.minimumSizeHint().height()))
    assert len(heights) == 1, heights  # the dock did not jump with the selection
    assert len(hints) == 1, hints
    for entry in (text, tools):
        panel.select(entry)
        assert panel.output.currentWidget() is not panel.empty
        assert panel.open_button.isEnabled() and panel.save_button.isEnabled()
        assert panel.export_button.isEnabled()
    panel.select(models)  # no stream format: the pane says what it is, not "No traffic yet"
    said = panel.empty.text()
    assert panel.output.currentWidget() is panel.empty
    assert "No traffic yet" not in said
    assert said.startswith("GET /v1/models → HTTP 200") and "not decoded" in said


def test_an_exchange_selected_before_its_request_arrived_gets_its_actions(
    window: Any, sim: Any, qloop: Loop
) -> None:
    traffic = _start_proxy(window, sim, qloop)
    panel = traffic.panel
    # The first exchange is selected as it starts, before its request reaches the window.
    run = _sdk(qloop, traffic.base_url, pace="20")
    qloop.wait_until(lambda: bool(panel.model.entries) and panel.shown is not None, 20)
    entry = panel.model.entries[0]
    qloop.wait_until(lambda: entry.session is not None, 20)
    qloop.sleep(0.05)
    assert panel.selected_entries() == [entry]
    assert panel.open_button.isEnabled() and panel.save_button.isEnabled()
    assert panel.output.currentWidget() is not panel.empty
    _finish(qloop, run)
