"""The timing view and the compare helpers on their own (no window, no network)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from playground.protocol.sse import SSEItem, SSEParser
from playground.protocol.state import StreamState, ToolCallState
from playground.protocol.timing import Timing, compute_timing
from playground.ui.compare_diff import (
    run_length,
    text_diff_html,
    tool_calls_of,
    usage_rows,
)
from playground.ui.timing_chart import ArrivalChart, format_seconds
from playground.ui.timing_view import TimingView, figures


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


@pytest.mark.parametrize("dark", [False, True])
def test_timing_view_draws_in_both_palettes(qtbot: Any, dark: bool) -> None:
    from PySide6.QtWidgets import QApplication

    from playground.ui.theme import apply_theme

    app = QApplication.instance()
    apply_theme(app, dark=dark)
    try:
        view = TimingView()
        qtbot.addWidget(view)
        view.resize(900, 600)
        view.show()
        view.set_timing(_timing())
        image = view.grab().toImage()
        assert not image.isNull()
        assert "dead air" in view.summary.text() and "2.00 s" in view.summary.text()
        assert "text" in view.legend.text()
        # The chart is not blank: some pixels carry the text channel's blue.
        chart = view.chart.grab().toImage()
        blue = 0
        for x in range(0, chart.width(), 2):
            for y in range(0, chart.height(), 2):
                c = chart.pixelColor(x, y)
                blue += c.blue() > 180 and c.red() < 120
        assert blue > 0
        view.set_timing(None)
        assert view.table.rowCount() == 0
    finally:
        apply_theme(app, dark=False)


def test_clicking_a_tick_activates_its_item(qtbot: Any) -> None:
    chart = ArrivalChart()
    qtbot.addWidget(chart)
    chart.resize(800, 200)
    chart.show()
    timing = _timing()
    chart.set_timing(timing)
    chart.grab()  # lay out the labels
    x = round(chart._x(timing.times[2]))
    with qtbot.waitSignal(chart.itemActivated, timeout=1000) as signal:
        QTest.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPoint(x, chart.height() // 2))
    assert signal.args == [2]
    assert chart.item_at(chart._x(1.5)) is None  # in the dead air: nothing there
    chart.highlight_item(4)
    assert chart._highlight == 4


def test_text_diff_marks_words() -> None:
    html = text_diff_html("the cat sat down", "the dog sat down")
    assert "line-through" in html and ">cat</span>" in html and ">dog</span>" in html
    assert "86% similar" in html  # 6 of 7 tokens (words and spaces) shared
    assert "100% similar" in text_diff_html("same", "same")
    assert "&lt;b&gt;" in text_diff_html("<b>", "x")  # escaped, never rendered


def test_run_length_and_usage_rows_and_tool_calls() -> None:
    assert run_length(["a", "a", "b", "a"]) == [("a", 2), ("b", 1), ("a", 1)]
    assert run_length([]) == []
    one = StreamState()
    one.choice(0).text.append("hi", 0)
    one.usage = {"prompt_tokens": 1, "completion_tokens": 2}
    two = StreamState()
    two.usage = {"input_tokens": 4, "output_tokens": 5, "cache_read_input_tokens": 1}
    rows = dict(usage_rows([one, two, None]))
    assert rows["input tokens (reported)"] == ["1", "4", "—"]
    assert rows["cached tokens (reported)"] == ["—", "1", "—"]
    assert rows["text chars (counted)"] == ["2", "0", "—"]
    call = ToolCallState(key=0, name="f")
    call.arguments.append('{"a": 1}', 3)
    bad = ToolCallState(key=1, name="g")
    bad.arguments.append('{"a": ', 4)
    one.tool_calls.extend([call, bad])
    assert tool_calls_of(one) == [
        {"name": "f", "arguments": {"a": 1}},
        {"name": "g", "arguments": '{"a": '},
    ]
    assert tool_calls_of(None) == []
