"""The simulator's answer length (X-Sim-Tokens) is picked in the window, beside fault and pace."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize("route", ["chat", "messages"])
def test_the_length_picked_is_sent_and_the_answer_is_that_long(
    window: Any, send_and_wait: Any, route: str
) -> None:
    from playground.sim import prose

    panel = window.show_panel(route)
    assert panel.length.isVisibleTo(window)  # beside the fault and pace pickers
    panel.set_sim_tokens(1000)
    assert panel.sim_headers()["X-Sim-Tokens"] == "1000"
    assert send_and_wait(panel) == "complete"
    assert "X-Sim-Tokens: 1000" in window.inspector.request_view.toPlainText()
    text = panel.session.state.choices[0].text.value
    assert len(prose.tokens(text)) == 1000  # the simulator's own tokens, exactly as many
    panel.set_sim_tokens(None)
    assert "X-Sim-Tokens" not in panel.sim_headers()  # its natural length: no header


def test_the_picker_shows_only_with_the_simulator_and_on_text_routes(window: Any) -> None:
    chat = window.show_panel("chat")
    assert chat.length.isVisibleTo(window)
    chat.set_on_simulator(False)  # another provider: no simulator pickers at all
    assert not chat.length.isVisibleTo(window) and not chat.pace.isVisibleTo(window)
    chat.set_on_simulator(True)
    images = window.show_panel("images")
    assert images.pace.isVisibleTo(window) and not images.length.isVisibleTo(window)
    images.set_sim_tokens(1000)
    assert "X-Sim-Tokens" not in images.sim_headers()
