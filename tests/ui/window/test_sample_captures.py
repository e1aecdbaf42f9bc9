"""Help ▸ Sample captures on the real window: each route's sample opens, replays, and shows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.assets import SAMPLE_CAPTURES, sample_capture
from playground.cli.inspect import decode_file, state_json
from playground.protocol.requests import ROUTE_NAMES
from playground.ui.window.sample_captures import MENU_TITLE


def _sample_action(window: Any, route: str) -> Any:
    """The menu item a person would click: Help ▸ Sample captures ▸ the route's sample."""
    help_menu = next(
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help"
    )
    (entry,) = [a for a in help_menu.actions() if a.text() == MENU_TITLE]
    samples = entry.menu()
    samples.aboutToShow.emit()  # what opening the menu does: its items are made then
    assert [a.data() for a in samples.actions()] == list(SAMPLE_CAPTURES)
    assert [a.text() for a in samples.actions()] == list(SAMPLE_CAPTURES.values())
    samples.aboutToShow.emit()  # a second opening adds nothing
    assert len(samples.actions()) == len(SAMPLE_CAPTURES)
    return next(a for a in samples.actions() if a.data() == route)


def _shown(live: Any) -> str:
    return str(live._source if live.rendered else live.toPlainText())


@pytest.mark.parametrize("route", ROUTE_NAMES)
def test_a_sample_opens_from_the_help_menu_and_its_widgets_show_it(
    window: Any, qloop: Any, route: str
) -> None:
    expected = state_json(decode_file(sample_capture(route).read_bytes()))
    window.show_panel("chat" if route != "chat" else "images")  # somewhere else first
    qloop.do(_sample_action(window, route).trigger)
    panel = window.current_panel()
    assert panel.route == route  # the sample's own panel came to the front
    qloop.run(panel.session.wait(), 30)
    qloop.sleep(0.2)  # the last frame's updates and the widgets' finish()
    state = panel.session.state
    assert panel.session.run.replay
    assert (state.status, state.text) == ("complete", expected["text"])
    assert panel.status_line.status.text().endswith("complete")
    # The inspector lists the sample's events, as it does for a live run.
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items) > 0
    widgets = panel.widgets
    if route in ("chat", "responses", "messages"):
        assert _shown(widgets["thinking"].text) == expected["reasoning"] != ""
        assert widgets["thinking"].isVisibleTo(panel)
        if expected["text"]:
            assert _shown(widgets["answer"].pane(0).text) == expected["text"]
        calls = expected["tool_calls"]
        tools = widgets["tools"]
        assert len(tools.cards) == len(calls)
        for card, call in zip(tools.cards, calls):
            assert f"<b>{call['name']}</b>" in card.title.text() and card.valid_json
            assert json.loads(card.text) == json.loads(call["arguments"])
        assert tools.isVisibleTo(panel) == bool(calls)
    elif route == "images":
        assert widgets["images"].strip.count() == len(expected["images"]) == 3
    elif route == "speech":
        assert widgets["audio"].seconds == pytest.approx(expected["audio"]["seconds"], abs=0.01)
    elif route == "transcription":
        assert widgets["transcript"].shown_text == expected["text"] != ""
    else:
        assert widgets["music"].audio.seconds == pytest.approx(expected["audio"]["seconds"])
        assert widgets["music"].progress.value() == 100
    assert f"Opened {sample_capture(route).name}" in window.statusBar().currentMessage()
