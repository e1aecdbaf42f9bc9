"""The status line during a stream: figures change every frame, its minimum width never does."""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

from playground.ui.panels.status_line import StatusLine


def _figures(n: int) -> dict[str, Any]:
    return {
        "http_status": 200,
        "ttfb": 0.001 * n,
        "ttft": 0.002 * n,
        "tokens_per_s": 1.5 * 10**n,
        "elapsed": 0.37 * 10**n,
        "usage": {"prompt_tokens": 12, "completion_tokens": 10**n},
    }


def test_growing_figures_never_change_the_minimum_width(qtbot: QtBot) -> None:
    line = StatusLine()
    qtbot.addWidget(line)
    line.set_status("streaming")
    line.set_figures(**_figures(1))
    first = line.minimumSizeHint().width()
    for n in range(2, 7):
        line.set_figures(**_figures(n))
        # A wider minimum would force the panel (and the answer beside it) wider mid-stream,
        # and the answer would lay its whole document out again.
        assert line.minimumSizeHint().width() == first
    for status in ("complete", "incomplete", "cancelled", "failed"):
        line.set_status(status)
        assert line.minimumSizeHint().width() == first
    # What is shown is still every figure, in full.
    assert line.rate.text() == "1500000.0 tok/s"
    assert line.elapsed.text() == "370000.00 s"
    assert line.status.text() == "● failed"


def test_the_same_status_is_not_applied_twice(qtbot: QtBot) -> None:
    line = StatusLine()
    qtbot.addWidget(line)
    line.set_status("streaming")
    sheet = line.status.styleSheet()
    line.status.setStyleSheet("")  # would come back if set_status re-applied the same status
    line.set_status("streaming")
    assert line.status.styleSheet() == ""
    line.set_status("complete")
    assert line.status.styleSheet() not in ("", sheet)


def test_usual_figures_show_whole_not_cut(qtbot: QtBot) -> None:
    from PySide6.QtGui import QFontMetrics

    line = StatusLine()
    qtbot.addWidget(line)
    line.show()
    line.set_figures(
        http_status=200,
        ttfb=0.412,
        ttft=2.345,
        tokens_per_s=1234.5,
        elapsed=12.34,
        usage={"prompt_tokens": 12, "completion_tokens": 345},
    )
    metrics = QFontMetrics(line.http.font())
    for label in (line.http, line.ttfb, line.ttft, line.rate, line.elapsed):
        assert label.text()
        assert metrics.horizontalAdvance(label.text()) <= label.width(), label.text()


def test_a_figure_the_route_lacks_leaves_no_gap(qtbot: QtBot) -> None:
    line = StatusLine()
    qtbot.addWidget(line)
    line.show()
    assert not line.rate.isVisible() and not line.http.isVisible()  # nothing yet
    line.set_figures(
        http_status=200, ttfb=0.2, ttft=0.3, tokens_per_s=None, elapsed=0.5, usage=None
    )
    assert line.http.isVisible() and line.elapsed.isVisible()
    assert not line.rate.isVisible()  # images: no tokens per second, no empty slot
    line.clear()
    assert not line.http.isVisible()
