"""The window's cost and prompt cache figures against the real simulator: the status line after a
run on chat, responses and messages, each answer's figures line and the conversation's total,
the warning before sending when the system prompt changed, an idle pause past a short lifetime."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from panel_helpers import say

pytestmark = pytest.mark.timeout(300)

LONG = "Tell me how the simulator's prompt cache keeps a prefix, in a few sentences please. " * 5
ROUTES = ("chat", "responses", "messages")


def _ready(window: Any, qloop: Any, route: str) -> Any:
    """``route``'s panel once the simulator's model list (prices, windows, cache) has come."""
    panel = window.panels[route]
    window.show_panel(route)
    qloop.wait_until(lambda: bool(window.provider_bar.model_info), 15)
    if route == "messages":  # Anthropic caches nothing without a breakpoint: automatic caching
        panel.editor.set_body({**panel.editor.body(), "cache_control": {"type": "ephemeral"}})
    return panel


@pytest.mark.parametrize("route", ROUTES)
def test_the_status_line_shows_the_cost_and_a_second_turn_hits(
    window: Any, qloop: Any, route: str
) -> None:
    panel = _ready(window, qloop, route)
    assert say(qloop, panel, LONG) == "complete"
    line = panel.status_line
    assert line.cost.text().startswith("$"), line.text()
    assert "total:" in line.cost.toolTip() and " x " in line.cost.toolTip()
    assert line.cache.text().startswith("cache cold"), line.text()
    assert say(qloop, panel, "And then?") == "complete"
    assert line.cache.text().startswith("cache hit: "), line.text()
    assert " tok (" in line.cache.text() and "%)" in line.cache.text()
    assert " · $" in line.text() and "cache hit" in line.text()  # the dump's status_line
    # Each answer's figures line, and the conversation's running total in the summary.
    thread = panel.conversation
    answers = [b for b in thread.view.blocks if b.turn.role == "assistant"]
    assert len(answers) == 2
    figures = [b.figures.text() for b in answers if b.figures is not None]
    assert figures[0].startswith("cache cold") and figures[1].startswith("cache hit")
    assert all(" · cost $" in f for f in figures)
    summary = thread.view.summary.text()
    assert summary.startswith("Conversation: 4 turns · $"), summary


@pytest.mark.parametrize("route", ROUTES)
def test_a_changed_system_prompt_is_warned_before_sending_and_shown_on_the_turn(
    window: Any, qloop: Any, route: str
) -> None:
    panel = _ready(window, qloop, route)
    system = panel.editor.system_box()
    system.setPlainText("You answer briefly. " * 10)
    assert say(qloop, panel, LONG) == "complete"
    warning = panel.context_parts.warning
    warning.update_now()
    assert not warning.isVisible()  # the same prefix, in time: no warning
    system.setPlainText("You answer briefly. It is 12:01. " * 10)
    panel.editor.prompt_box().setPlainText("And then?")
    warning.update_now()
    assert warning.isVisible()
    assert warning.text() == "This request will miss the cache: system changed."
    assert "before:" in warning.toolTip() and "now:" in warning.toolTip()
    assert say(qloop, panel, "And then?") == "complete"
    assert panel.status_line.cache.text().startswith("cache prefix changed at system")
    last = [b for b in panel.conversation.view.blocks if b.turn.role == "assistant"][-1]
    assert last.figures is not None
    assert last.figures.text().startswith("cache prefix changed at system")
    assert "before:" in last.figures.toolTip()


@pytest.fixture
def short_lived(qloop: Any, settings: Any) -> Iterator[Any]:
    """A window on a simulator whose cache forgets after 1 s (it says so in /v1/models)."""
    from playground.sim.server import SimServer
    from playground.ui.window.shell import MainWindow

    with SimServer("127.0.0.1", 0, cache_ttl=1) as sim:
        win = MainWindow(
            settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
        )
        for panel in win.panels.values():
            panel.set_pace("fast")
        win.show()
        yield win
        win._closing = True
        qloop.run(win.shutdown(), 10)
        win.close()
        win.deleteLater()


def test_an_idle_pause_past_the_lifetime_is_expired(short_lived: Any, qloop: Any) -> None:
    panel = _ready(short_lived, qloop, "chat")
    assert say(qloop, panel, LONG) == "complete"
    warning = panel.context_parts.warning
    panel.editor.prompt_box().setPlainText("And then?")
    qloop.sleep(1.6)  # past the 1 s lifetime
    warning.update_now()
    assert warning.isVisible()
    assert warning.text().startswith("This request will miss the cache: the cache has expired")
    assert say(qloop, panel, "And then?") == "complete"
    assert panel.status_line.cache.text().startswith("cache expired"), panel.status_line.text()


def test_an_images_run_is_priced_per_image_with_no_cache_figure(window: Any, qloop: Any) -> None:
    panel = _ready(window, qloop, "images")
    assert say(qloop, panel, "A lighthouse at dusk") == "complete"
    line = panel.status_line
    assert line.cost.text().startswith("$"), line.text()
    assert "image: " in line.cost.toolTip()  # priced per image (the simulator's sim-image)
    assert line.cache.text() == ""  # the media routes have no prompt cache


@pytest.mark.parametrize("route", ["responses", "messages"])
def test_the_window_asks_its_providers_counting_endpoint(
    window: Any, qloop: Any, route: str
) -> None:
    panel = _ready(window, qloop, route)
    panel.editor.prompt_box().setPlainText(LONG)
    gauge = panel.context_parts.gauge
    gauge.update_now()
    qloop.wait_until(lambda: gauge.estimate.source == "counted", 10)
    assert gauge.estimate.context_window == 200000  # sim-reasoner's, from /v1/models
    assert "· counted" in gauge.label.text()
