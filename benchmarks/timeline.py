"""Inspector memory: a million events in the timeline model with its view attached (tracemalloc)."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

from benchmarks.streams import chat_stream, fixed_chunks

Value = float | str


def _rss() -> int:
    """Resident memory of this process in bytes (Qt's C++ side is invisible to tracemalloc)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            import os

            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def timeline_figures(n_events: int) -> dict[str, Value]:
    """``timeline_bytes_per_event``: Python memory the inspector holds per event beyond the event's
    raw bytes (the items themselves with their decoded ``data``, the model's columns and the view),
    with ``n_events`` chat chunks arriving in 4 KiB network reads as they would from a stream."""
    from PySide6.QtWidgets import QTableView

    from playground.protocol.sse import SSEParser
    from playground.ui.inspector.timeline_model import TimelineModel

    app = _app()
    chunks = fixed_chunks(chat_stream(n_events - 1), 4096)  # + [DONE]: n_events in all
    view = QTableView()
    view.resize(900, 600)
    view.show()
    app.processEvents()
    rss_before = _rss()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    model = TimelineModel()
    view.setModel(model)
    parser = SSEParser()
    raw_bytes = data_chars = events = 0
    started = time.perf_counter()
    for i, chunk in enumerate(chunks):
        items = parser.feed(chunk, i * 1e-4)
        if items:
            model.append_items(items, None)
            events += len(items)
            for item in items:
                raw_bytes += len(item.raw)
                data_chars += len(getattr(item, "data", "") or "")
        if i % 256 == 0:
            app.processEvents()  # the view follows along, as in the window
    tail = parser.finish(len(chunks) * 1e-4)
    if tail:
        model.append_items(tail, None)
        events += len(tail)
    app.processEvents()
    fill_s = time.perf_counter() - started
    traced = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    rss_delta = _rss() - rss_before
    # Scrolling to the end must stay instant: one scroll and one paint of the last rows.
    started = time.perf_counter()
    view.scrollToBottom()
    view.viewport().repaint()
    app.processEvents()
    scroll_ms = (time.perf_counter() - started) * 1e3
    rows = model.rowCount()
    view.close()
    if rows != events or events != n_events:
        raise RuntimeError(f"the model has {rows} rows for {events} events (wanted {n_events})")
    return {
        "timeline_bytes_per_event": (traced - raw_bytes) / events,
        "timeline_data_bytes_per_event": data_chars / events,
        "timeline_raw_bytes_per_event": raw_bytes / events,
        "timeline_rss_bytes_per_event": rss_delta / events,
        "timeline_events": float(events),
        "timeline_fill_s": fill_s,
        "timeline_scroll_end_ms": scroll_ms,
    }
