"""The window's grid reads and decodes its streams on reader threads, as a panel's stream is:
the window's thread only takes what the readers queued (times, status, the capture's bytes)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from playground.protocol.stream import StreamDecoder

SUITE = {
    "name": "threads",
    "pace": "fast",
    "variants": [
        {"name": "chat", "route": "chat", "model": "sim", "prompt": "About {{topic}}"},
        {"name": "responses", "route": "responses", "model": "sim", "prompt": "About {{topic}}"},
        {"name": "messages", "route": "messages", "model": "sim", "prompt": "About {{topic}}",
         "params": {"max_tokens": 1024}},
    ],
    "cases": [{"id": t, "vars": {"topic": t}} for t in ("owls", "tides")],
    "checks": [{"type": "contains", "value": "{{topic}}", "ignore_case": True}],
}  # fmt: skip


def test_the_grid_decodes_on_reader_threads(
    evaluate: Any, run_to_end: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fed_on: list[str] = []
    feed = StreamDecoder.feed

    def noting_feed(self: StreamDecoder, data: bytes, t: float) -> Any:
        fed_on.append(threading.current_thread().name)
        return feed(self, data, t)

    monkeypatch.setattr(StreamDecoder, "feed", noting_feed)
    evaluate.load_source(SUITE)
    run_to_end(evaluate)
    cells = evaluate.controller.grid.cells
    assert len(cells) == 6 and all(c.status == "complete" and c.passed for c in cells)
    assert fed_on, "no stream was decoded"
    main = threading.main_thread().name
    assert main not in fed_on and set(fed_on) == {"playground-reader"}
