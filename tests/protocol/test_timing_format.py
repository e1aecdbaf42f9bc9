"""protocol/timing_format.py: durations, rates and the figures table as people read them."""

from __future__ import annotations

from timing_helpers import stalled_timing

from playground.protocol.timing_format import figures, format_rate, format_seconds

_timing = stalled_timing


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
    assert rows["time to headers"] == "50 ms"
    assert rows["first byte"] == "100 ms"
    assert rows["first token"] == "100 ms"
    assert rows["first answer token"] == "100 ms"
    assert rows["total"] == "2.50 s"
    assert rows["text tokens/s"].startswith("12.5/s")  # 5 reported tokens over 0.4 s
    assert "usage" in rows["text tokens/s"]
    assert rows["dead air"].startswith("1 × > 500 ms = 2.00 s")
    assert rows["usage reported"] == "input 3, output 5, total 8"
    assert rows["counted"].startswith("text 5 deltas / 15 chars")


def test_format_rate() -> None:
    assert format_rate(None) == "—"
    assert format_rate(12.54) == "12.5/s"
