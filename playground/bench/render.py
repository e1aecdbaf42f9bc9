"""Render growth: the cost of showing the 50,000th token over the cost of the 1,000th."""

from __future__ import annotations

import time
from typing import Any

from playground.bench.streams import chat_tokens
from playground.bench.timing import percentile

Value = float | str
_WINDOW = 200  # tokens measured at each mark (median): one slow paint is noise, not growth


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _filled(tokens: list[str], upto: int, app: Any) -> tuple[Any, Any]:
    """An answer widget (``LiveText`` following a ``TextBuffer``, as the chat panel has it)
    already showing ``tokens[:upto]``, taken 64 at a time as the window's frames would."""
    from playground.protocol.state import TextBuffer
    from playground.ui.views.live_text import LiveText

    widget = LiveText()
    widget.resize(800, 600)
    widget.show()
    buffer = TextBuffer()
    for i in range(upto):
        buffer.append(tokens[i], i)
        if i % 64 == 63:
            widget.sync(buffer)
            app.processEvents()
    widget.sync(buffer)
    app.processEvents()
    return widget, buffer


def render_figures(n_tokens: int) -> dict[str, Value]:
    """Two answer widgets, one showing about 1,000 tokens and one ``n_tokens`` (50,000 in a real
    run); one more token is appended to each in turn, synced and painted, 200 times. The figure
    is the late widget's median cost per token over the early one's (CPU time of the UI thread;
    taking turns means a burst of load elsewhere hits both alike)."""
    app = _app()
    tokens = chat_tokens(n_tokens + _WINDOW, seed=3)
    early_at = min(1_000, n_tokens // 4) - _WINDOW // 2
    late_at = n_tokens - _WINDOW
    early, early_buffer = _filled(tokens, early_at, app)
    late, late_buffer = _filled(tokens, late_at, app)
    clock = time.thread_time
    costs: dict[str, list[float]] = {"early": [], "late": []}
    for k in range(_WINDOW):
        for name, widget, buffer, at in (
            ("early", early, early_buffer, early_at),
            ("late", late, late_buffer, late_at),
        ):
            started = clock()
            buffer.append(tokens[at + k], at + k)
            widget.sync(buffer)
            widget.viewport().repaint()  # what a frame costs: lay out the change, paint it
            costs[name].append(clock() - started)
        app.processEvents()
    shown, expected = late.shown, len(late_buffer)
    early.close()
    late.close()
    if shown != expected:
        raise RuntimeError(f"the widget shows {shown} characters of {expected}")
    early_ms = percentile(costs["early"], 0.5) * 1e3
    late_ms = percentile(costs["late"], 0.5) * 1e3
    return {
        "render_growth": late_ms / early_ms,
        "render_token_ms_early": early_ms,
        "render_token_ms_late": late_ms,
        "render_tokens": float(late_at + _WINDOW),
    }
