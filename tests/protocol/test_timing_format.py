"""protocol/timing_format.py: durations, rates and the figures table as people read them."""

from __future__ import annotations

from playground.protocol.sse import SSEItem, SSEParser
from playground.protocol.state import StreamState
from playground.protocol.timing import Timing, compute_timing
from playground.protocol.timing_format import figures, format_rate, format_seconds


def _timing() -> Timing:
    """Five text events at 0.1 s steps, a 2 s stall, then the terminator."""
    parser = SSEParser()
    items: list[SSEItem] = []
    times = [0.1, 0.2, 0.3, 0.4, 0.5, 2.5]
    for i, t in enumerate(times[:-1]):
        items.extend(parser.feed(f'data: {{"n": {i}}}\n\n'.encode(), t))
    items.extend(parser.feed(b"data: [DONE]\n\n", times[-1]))
    state = StreamState()
    for i in range(5):
        state.choice(0).text.append(f"w{i} ", i)
    state.usage = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    return compute_timing((items, state), t_headers=0.05, t_first_byte=0.1, t_end=2.5)


def test_format_seconds() -> None:
    assert format_seconds(None) == "—"
    assert format_seconds(0) == "0"
    assert format_seconds(0.0004) == "400 µs"
    assert format_seconds(0.0052) == "5.2 ms"
    assert format_seconds(0.25) == "250 ms"
    assert format_seconds(1.5) == "1.50 s"
    assert format_seconds(125) == "2 min 5 s"


def test_figures_table() -> None:
    rows = dict(figures(_timing()))
    assert rows["response headers"] == "50 ms"
    assert rows["first byte"] == "100 ms"
    assert rows["first text"] == "100 ms"
    assert rows["total"] == "2.50 s"
    assert rows["text tokens/s"].startswith("12.5/s")  # 5 reported tokens over 0.4 s
    assert "usage" in rows["text tokens/s"]
    assert rows["dead air"].startswith("1 × > 500 ms = 2.00 s")
    assert rows["usage reported"] == "input 3, output 5, total 8"
    assert rows["counted"].startswith("text 5 deltas / 15 chars")


def test_format_rate() -> None:
    assert format_rate(None) == "—"
    assert format_rate(12.54) == "12.5/s"
