"""SteadyLabel: a label whose new text never sends a layout request up to the window (a QLabel
does, on every setText, and a QTabWidget above repaints everything it holds on each)."""

from __future__ import annotations

import itertools
from typing import Any

from panel_helpers import EventCounter
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from playground.ui.kit.steady_label import SteadyLabel
from playground.ui.panels.status_line import StatusLine


def _requests_after_set_text(qapp: Any, label: QLabel | SteadyLabel, page: QWidget) -> int:
    qapp.processEvents()
    requests = EventCounter(QEvent.Type.LayoutRequest)
    page.installEventFilter(requests)
    for n in range(5):
        label.setText(f"{n * 1000:,} rows")
        qapp.processEvents()
    page.removeEventFilter(requests)
    return int(requests.count)


def test_steady_label_new_text_lays_nothing_out_again(qapp: Any) -> None:
    page = QWidget()
    layout = QVBoxLayout(page)
    plain, steady = QLabel("0 rows"), SteadyLabel("0 rows", muted=True)
    layout.addWidget(plain)
    layout.addWidget(steady)
    page.resize(300, 80)
    page.show()
    try:
        assert _requests_after_set_text(qapp, plain, page) > 0  # what the steady label avoids
        assert _requests_after_set_text(qapp, steady, page) == 0
        assert steady.text() == "4,000 rows"
        hint = steady.sizeHint()
        steady.setText("a far longer text than any row count would ever say " * 3)
        assert steady.sizeHint() == hint
        assert steady.elided().endswith("…")  # cut to its width, never widening the page
    finally:
        page.close()


def _status_line_on_a_page() -> tuple[QWidget, StatusLine]:
    """A status line in a page's layout, shown: what a panel holds it in."""
    page = QWidget()
    layout = QVBoxLayout(page)
    line = StatusLine()
    layout.addWidget(line)
    page.resize(900, 60)
    page.show()
    return page, line


def test_status_line_figures_lay_nothing_out_again(qapp: Any) -> None:
    page, line = _status_line_on_a_page()
    line.set_figures(
        http_status=200, ttfb=0.01, ttft=0.02, tokens_per_s=1.0, elapsed=0.1, usage=None
    )
    qapp.processEvents()
    requests = EventCounter(QEvent.Type.LayoutRequest)
    page.installEventFilter(requests)
    try:
        for n in range(2, 7):  # the figures of a streaming run, frame after frame
            line.set_figures(
                http_status=200,
                ttfb=0.01,
                ttft=0.02,
                tokens_per_s=n * 37.5,
                elapsed=n * 0.25,
                usage=None,
            )
            qapp.processEvents()
        assert requests.count == 0
        assert "225.0 tok/s · 1.50 s" in line.text()  # the last frame's figures
    finally:
        page.removeEventFilter(requests)
        page.close()


def test_a_runs_first_figures_and_status_words_lay_nothing_out_above_the_line(
    qapp: Any,
) -> None:
    # Each figure appears once per run, in its first frames, and the status word changes with
    # the run: in a layout, each sent a layout request up to the window, which repainted most of
    # it. The row places its labels itself, so nothing above it is laid out again.
    page, line = _status_line_on_a_page()
    qapp.processEvents()
    requests = EventCounter(QEvent.Type.LayoutRequest)
    page.installEventFilter(requests)
    try:
        line.set_status("connecting")
        qapp.processEvents()
        line.set_figures(
            http_status=200, ttfb=0.01, ttft=None, tokens_per_s=None, elapsed=0.1, usage=None
        )
        line.set_status("streaming")
        qapp.processEvents()
        line.set_figures(
            http_status=200, ttfb=0.01, ttft=0.02, tokens_per_s=50.0, elapsed=0.2, usage=None
        )
        qapp.processEvents()
        line.set_figures(
            http_status=200,
            ttfb=0.01,
            ttft=0.02,
            tokens_per_s=50.0,
            elapsed=0.3,
            usage={"prompt_tokens": 9, "completion_tokens": 181},
        )
        line.set_status("complete", warnings=2)
        qapp.processEvents()
        assert requests.count == 0
        shown = [line.status, line.http, line.ttfb, line.ttft, line.rate, line.elapsed, line.usage]
        assert all(label.isVisible() for label in shown)
        edges = [(label.x(), label.x() + label.width()) for label in shown]
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(edges))  # in a row
        assert edges[-1][1] <= line.width() and edges[0][0] >= 0
        assert "complete · 2 warnings · HTTP 200" in line.text()
    finally:
        page.removeEventFilter(requests)
        page.close()
