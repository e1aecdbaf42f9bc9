"""The timing view and the compare diff's colouring on their own (no window, no network)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from timing_helpers import stalled_timing

from playground.ui.compare.diff import (
    text_diff_html,
)
from playground.ui.docks.timing import TimingView
from playground.ui.views.timing_chart import ArrivalChart

_timing = stalled_timing


@pytest.mark.parametrize("dark", [False, True])
def test_timing_view_draws_in_both_palettes(qtbot: Any, dark: bool) -> None:
    from PySide6.QtWidgets import QApplication

    from playground.ui.kit.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
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
