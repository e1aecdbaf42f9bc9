"""Live Markdown benchmark: a frame's cost at the 50,000th token over the 1,000th, and its ms."""

from __future__ import annotations

import re
import time
from typing import Any

from playground.bench.timing import percentile

Value = float | str
_WINDOW = 200  # frames measured at each mark (median)
_PER_FRAME = 4  # tokens per frame: a fast model at 60 frames a second
_WORD = re.compile(r"\s*\S+|\s+")


def _section(n: int) -> str:
    """One section of a long answer: a heading, a paragraph, a list, a table and code."""
    return (
        f"## Part {n}\n\n"
        f"The stream of **tokens** for part {n} goes on with `inline code`, a link to "
        f"https://example.org/{n} and ~~an old idea~~ that is no longer needed here.\n"
        "It keeps the moving parts small and measures before it tries to improve.\n\n"
        + "".join(f"- [ ] step {k} of part {n}: *check* the result early\n" for k in range(4))
        + "\n| route | events | note |\n| :--- | ---: | :---: |\n"
        + "".join(f"| chat {k} | {k * 37 + n} | fast |\n" for k in range(4))
        + "\n```python\n"
        + "".join(
            f"def step_{k}(x: int) -> int:\n    return x * {k} + {n}  # part\n" for k in range(3)
        )
        + "```\n\n"
    )


def markdown_tokens(n_tokens: int) -> list[str]:
    """Deterministic Markdown text with headings, lists, tables and code, cut like tokens."""
    tokens: list[str] = []
    part = 1
    while len(tokens) < n_tokens:
        tokens.extend(_WORD.findall(_section(part)))
        part += 1
    return tokens[:n_tokens]


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _filled(tokens: list[str], upto: int, app: Any) -> tuple[Any, Any]:
    """An answer view's text (live Markdown) already showing ``tokens[:upto]``, fed 64 tokens
    at a time as the window's frames would, and laid out to the end."""
    from playground.protocol.state import TextBuffer
    from playground.ui.views.live_text import LiveText

    widget = LiveText(markdown=True)
    widget.resize(800, 600)
    widget.show()
    buffer = TextBuffer()
    for i in range(upto):
        buffer.append(tokens[i], i)
        if i % 64 == 63:
            widget.sync(buffer)
    widget.sync(buffer)
    live = widget.live_markdown
    assert live is not None
    live.throttle = False  # every measured frame lays the open block out again: its full cost
    while live.step(1.0) is not None:
        pass
    app.processEvents()
    return widget, buffer


def markdown_figures(n_tokens: int) -> dict[str, Value]:
    """Two live-Markdown views, one at about 1,000 tokens and one at ``n_tokens`` (50,000 in a
    real run); each frame appends 4 tokens, syncs (closing blocks render, the open block is laid
    out again, unthrottled) and paints as the window's frame loop does (Qt's posted events, then
    ``ui.frames.paint_now``: what the change made dirty and the scroll uncovered; a forced
    repaint of the whole view, which no frame does, cost about twice as much and measured the
    view's size more than the renderer). ``markdown_growth`` is the late view's median frame over
    the early one's (UI thread CPU time, taking turns); ``markdown_frame_ms`` the late median."""
    from playground.ui.runtime.frames import paint_now

    app = _app()
    tokens = markdown_tokens(n_tokens + _WINDOW * _PER_FRAME)
    early_at = min(1_000, n_tokens // 4)
    late_at = n_tokens - _WINDOW * _PER_FRAME // 2
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
            for j in range(_PER_FRAME):
                n = at + k * _PER_FRAME + j
                buffer.append(tokens[n], n)
            widget.sync(buffer)
            # What the frame loop then lets Qt do (ui/runtime/frames.py): the text view's queued
            # scroll bar adjustment, then the paint of what the change made dirty and the scroll
            # uncovered, all measured.
            app.processEvents()
            paint_now()
            costs[name].append(clock() - started)
        app.processEvents()
    live = late.live_markdown
    blocks = float(len(live.closed)) if live is not None else 0.0
    shown, expected = late.shown, len(late_buffer)
    early.close()
    late.close()
    if shown != expected:
        raise RuntimeError(f"the widget shows {shown} characters of {expected}")
    early_ms = percentile(costs["early"], 0.5) * 1e3
    late_ms = percentile(costs["late"], 0.5) * 1e3
    return {
        "markdown_growth": late_ms / early_ms,
        "markdown_frame_ms": late_ms,
        "markdown_frame_ms_early": early_ms,
        "markdown_blocks": blocks,
        "markdown_tokens": float(late_at + _WINDOW * _PER_FRAME // 2),
    }
