"""Labels are as wide as their text needs: Compare's timing labels inside their column, the
Settings dialog's key fields at one width."""

from __future__ import annotations

import itertools
from typing import Any

import pytest


def _timing(duration: float) -> Any:
    from playground.protocol.stream import StreamDecoder
    from playground.protocol.timing import compute_timing

    body = b"".join(
        b'data: {"choices":[{"index":0,"delta":{"content":"w "}}]}\n\n' for _ in range(40)
    )
    decoder = StreamDecoder("chat")
    for i in range(40):
        part = body[i * len(body) // 40 : (i + 1) * len(body) // 40]
        decoder.feed(part, 0.12 + duration * i / 40)
    decoder.finish(duration)
    return compute_timing(decoder, 0.1, 0.12, t_end=duration)


@pytest.mark.parametrize("width", [220, 306, 330, 472, 609, 640])
@pytest.mark.parametrize("duration", [0.647, 0.613, 1.93, 12.4])
def test_the_charts_axis_labels_are_whole_inside_the_chart(
    qtbot: Any, width: int, duration: float
) -> None:
    from playground.ui.views.timing_chart import ArrivalChart

    chart = ArrivalChart()
    qtbot.addWidget(chart)
    chart.set_timing(_timing(duration))
    chart.resize(width, 160)
    chart.show()
    fm = chart.fontMetrics()
    shown = [(box, label) for _x, (box, label) in chart.axis_labels(fm, 120) if label]
    assert shown  # at least the zero is labelled
    for box, label in shown:
        assert fm.horizontalAdvance(label) <= box.width(), label
        assert box.left() >= 0 and box.right() <= chart.width(), (label, box, chart.width())
    for (left, _a), (right, _b) in itertools.pairwise(shown):
        assert left.right() < right.left()  # no label over its neighbour
    for label, x in chart.milestone_labels(fm):  # "headers … · first byte … · first event …"
        assert x >= 0 and x + fm.horizontalAdvance(label) <= chart.width(), label


def test_compare_columns_keep_their_timing_labels_inside(window: Any, qloop: Any, sim: Any) -> None:
    from playground.ui.compare.window import ColumnConfig, CompareWindow

    compare = CompareWindow(
        [ColumnConfig(route, "simulator") for route in ("chat", "messages", "responses")],
        default_base_url=sim.base_url,
        sim_headers={"X-Sim-Pace": "fast"},
    )
    compare.resize(1024, 700)  # three columns of about 300 px
    compare.show()
    compare.prompt.setPlainText("Tell me about rivers.")
    finished: list[bool] = []
    compare.allFinished.connect(lambda: finished.append(True))
    compare.send_all()
    qloop.wait_until(lambda: bool(finished), 30)
    qloop.sleep(0.1)
    for column in compare.columns:
        chart = column.chart
        fm = chart.fontMetrics()
        for _x, (box, label) in chart.axis_labels(fm, 100):
            if label:
                assert fm.horizontalAdvance(label) <= box.width()
                assert box.right() <= chart.width(), (label, box.right(), chart.width())
        for label, left in chart.milestone_labels(fm):
            assert left + fm.horizontalAdvance(label) <= chart.width(), label
        figures = column.figures  # the figures wrap: all of their lines are shown
        assert figures.height() >= figures.heightForWidth(figures.width())
    compare.close()


def test_the_settings_key_fields_are_one_width(window: Any, qtbot: Any) -> None:
    from playground.ui.window.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window.settings, window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    widths = {row.edit.width() for row in dialog.rows.values()}
    assert len(widths) == 1, {p: r.edit.width() for p, r in dialog.rows.items()}
    for row in dialog.rows.values():
        note = row.note
        if not note.wordWrap():  # a one-line note is whole
            assert note.fontMetrics().horizontalAdvance(note.text()) <= note.width(), note.text()
    dialog.close()
