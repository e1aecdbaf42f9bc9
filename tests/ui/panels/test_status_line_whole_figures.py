"""The status line shows each figure whole or not at all, at every width of the row."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

WIDE_FIGURES: dict[str, Any] = {
    "http_status": 200,
    "ttfb": 754.2,  # "TTFB 12 min 34 s": far more than the label's usual room
    "ttft": 9.9994,
    "tokens_per_s": 84544.4,  # "84544.4 tok/s"
    "elapsed": 123.456,
    "usage": {"prompt_tokens": 123456, "completion_tokens": 654321},
}


def _line(qtbot: Any, width: int) -> Any:
    from playground.ui.panels.status_line import StatusLine

    line = StatusLine()
    qtbot.addWidget(line)
    line.resize(width, line.sizeHint().height())
    line.show()
    line.set_status("complete", warnings=3)
    line.set_figures(**WIDE_FIGURES)
    return line


@pytest.mark.parametrize("width", [140, 200, 260, 320, 400, 480, 560, 640, 760, 900, 1200])
def test_every_visible_figure_is_whole(qtbot: Any, width: int) -> None:
    line = _line(qtbot, width)
    whole = line.text()
    for name, (text, need, shown) in line.shown_figures().items():
        assert need <= shown, f"{name} {text!r} needs {need} px, shown at {shown}"
        if name == "usage":  # whole parts of it, the rest said by "…"
            parts = [p for p in text.split(" · ") if p != "…"]
            assert parts and all(p in whole.split(" · ") for p in parts), text
        else:
            assert text in whole.split(" · "), text
    visible = [c for c in line.children() if c.isWidgetType() and c.isVisibleTo(line)]
    for child in visible:  # nothing spills past the row's right edge
        assert child.geometry().right() < line.width() + 1 or child is line.status


def test_a_wide_figure_shows_when_there_is_room_and_nothing_overlaps(qtbot: Any) -> None:
    line = _line(qtbot, 1400)
    shown = line.shown_figures()
    assert shown["ttfb"][0] == "TTFB 12 min 34 s"
    assert shown["rate"][0] == "84544.4 tok/s"
    placed = sorted(
        (label.geometry() for label in (line.status, line.http, line.ttfb, line.ttft, line.rate)),
        key=lambda rect: rect.x(),
    )
    for left, right in itertools.pairwise(placed):
        assert left.right() < right.left()


def test_a_new_run_starts_at_the_usual_widths(qtbot: Any) -> None:
    line = _line(qtbot, 1400)
    hint = line.sizeHint()
    wide = line.ttfb.width()
    line.clear()
    line.set_figures(
        http_status=200, ttfb=0.05, ttft=0.1, tokens_per_s=30.0, elapsed=1.0, usage=None
    )
    assert line.ttfb.width() < wide
    assert line.sizeHint() == hint  # the row's hint never moves with its values
