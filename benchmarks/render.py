"""Render growth: the cost of showing the 50,000th token over the cost of the 1,000th."""

from __future__ import annotations

import time
from typing import Any

from benchmarks.streams import chat_tokens
from benchmarks.timing import percentile

Value = float | str
_WINDOW = 200  # tokens measured around each mark (median): one slow paint is noise, not growth


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def render_figures(n_tokens: int) -> dict[str, Value]:
    """Append ``n_tokens`` one at a time to the answer widget (``LiveText`` following a
    ``TextBuffer``, as the chat panel does) and paint after each; compare the median cost per
    token around token 1,000 with the median around the last one (50,000th in a real run)."""
    from playground.protocol.state import TextBuffer
    from playground.ui.widgets.live_text import LiveText

    app = _app()
    widget = LiveText()
    widget.resize(800, 600)
    widget.show()
    app.processEvents()
    buffer = TextBuffer()
    tokens = chat_tokens(n_tokens, seed=3)
    early_mark = min(1_000, n_tokens // 4)
    early = range(max(0, early_mark - _WINDOW // 2), early_mark + _WINDOW // 2)
    late = range(n_tokens - _WINDOW, n_tokens)
    early_costs: list[float] = []
    late_costs: list[float] = []
    # CPU time of the UI thread: two shared cores make wall time swing 3x with other jobs' load.
    clock = time.thread_time
    viewport = widget.viewport()
    for i, token in enumerate(tokens):
        measured = i in early or i in late
        started = clock() if measured else 0.0
        buffer.append(token, i)
        if measured:
            widget.sync(buffer)
            viewport.repaint()  # what a frame costs: lay out the change and paint what shows
            cost = clock() - started
            (early_costs if i in early else late_costs).append(cost)
        elif i % 64 == 0:
            # Between the marks only the document's size matters: take tokens 64 at a time.
            widget.sync(buffer)
            app.processEvents()
    widget.sync(buffer)
    app.processEvents()
    text = widget.toPlainText()
    expected = buffer.value
    widget.close()
    if len(text) != len(expected):
        raise RuntimeError(f"the widget shows {len(text)} characters of {len(expected)}")
    early_ms = percentile(early_costs, 0.5) * 1e3
    late_ms = percentile(late_costs, 0.5) * 1e3
    return {
        "render_growth": late_ms / early_ms,
        "render_token_ms_early": early_ms,
        "render_token_ms_late": late_ms,
        "render_tokens": float(n_tokens),
    }
