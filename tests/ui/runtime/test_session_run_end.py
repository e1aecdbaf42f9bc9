"""A run's end on the UI thread: what it costs must not grow with the answer's events."""

from __future__ import annotations

from typing import Any

import pytest
from panel_helpers import say, sim_panel


@pytest.mark.parametrize(("route", "reads"), [("chat", False), ("messages", True)])
def test_the_thread_parses_payloads_at_the_end_only_for_routes_that_read_them(
    qloop: Any, sim: Any, monkeypatch: pytest.MonkeyPatch, route: str, reads: bool
) -> None:
    # A chat answer's turn comes from the state; parsing every event's JSON again there was a
    # 1-3 s block on the UI thread after a 100,000-chunk answer.
    from playground.protocol.stream import StreamDecoder

    parsed: list[int] = []
    real = StreamDecoder.payload

    def counting(self: StreamDecoder, item_index: int) -> object | None:
        parsed.append(item_index)
        return real(self, item_index)

    panel = sim_panel(route, sim, pace="instant")
    monkeypatch.setattr(StreamDecoder, "payload", counting)
    assert say(qloop, panel, "Tell me about lighthouses") == "complete"
    thread = panel.conversation
    assert thread is not None and [t.role for t in thread.turns] == ["user", "assistant"]
    assert thread.turns[-1].text
    events = len(panel.session.decoder.items)
    if reads:
        assert len(parsed) >= events  # messages rebuilds its blocks from the payloads
    else:
        assert parsed == []
