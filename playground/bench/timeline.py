"""Inspector memory: a million events in the timeline model with its view attached (tracemalloc)."""

from __future__ import annotations

import sys
import time
import tracemalloc
from typing import Any

from playground.bench.streams import chat_stream

Value = float | str

_READ = 4096  # a socket read under load


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _kept_data(item: Any) -> int:
    """Bytes of the data str an item keeps (an event derives it from ``raw`` when read)."""
    if getattr(item, "data_is_derived", False):
        return 0
    return sys.getsizeof(getattr(item, "data", None) or getattr(item, "text", ""))


def timeline_figures(n_events: int) -> dict[str, Value]:
    """``timeline_bytes_per_event``: Python memory held per event beyond its raw bytes, with
    ``n_events`` chat chunks arriving in 4 KiB reads into the window's pipeline: a
    ``StreamDecoder`` (whose ``items`` the inspector's ``TimelineModel`` shares) and the real
    ``Inspector`` (its filter, view and detail pane) following along, one ``append`` per frame."""
    from playground.protocol.stream import StreamDecoder
    from playground.ui.inspector.inspector import Inspector

    app = _app()
    stream = chat_stream(n_events - 1)  # + [DONE]: n_events in all
    reads = range(0, len(stream), _READ)
    inspector = Inspector()
    inspector.resize(700, 900)
    inspector.show()
    app.processEvents()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    decoder = StreamDecoder("chat")
    decoder.set_content_type("text/event-stream")
    inspector.attach(decoder)
    pending: list[Any] = []
    started = time.perf_counter()
    for i, at in enumerate(reads):
        # Each read made here, as the network hands it over: the events keep the reads they
        # were cut from (SSEEvent), so what they keep of them is traced, and nothing else is.
        pending.extend(decoder.feed(stream[at : at + _READ], i * 1e-4))
        if i % 64 == 63:  # a frame's worth of reads (about 1,000 events)
            inspector.append(pending)
            pending = []
            app.processEvents()  # the view follows along, as in the window
    pending.extend(decoder.finish(len(reads) * 1e-4))
    inspector.append(pending)
    app.processEvents()
    fill_s = time.perf_counter() - started
    traced = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    items = decoder.items
    events = len(items)
    raw_bytes = sum(len(item.raw) for item in items)
    # What the items alone cost beyond their raw bytes (object, any data kept, bytes header).
    item_bytes = sum(sys.getsizeof(item) + _kept_data(item) + sys.getsizeof(b"") for item in items)
    # Scrolling to the end must stay instant: from the top, one scroll and one paint.
    view = inspector.view
    view.scrollToTop()
    app.processEvents()
    started = time.perf_counter()
    view.scrollToBottom()
    view.viewport().repaint()
    app.processEvents()
    scroll_ms = (time.perf_counter() - started) * 1e3
    rows = inspector.model.rowCount()
    inspector.close()
    if rows != events or events != n_events:
        raise RuntimeError(f"the model has {rows} rows for {events} events (wanted {n_events})")
    return {
        "timeline_bytes_per_event": (traced - raw_bytes) / events,
        "timeline_item_bytes_per_event": item_bytes / events,
        "timeline_raw_bytes_per_event": raw_bytes / events,
        "timeline_events": float(events),
        "timeline_fill_s": fill_s,
        "timeline_scroll_end_ms": scroll_ms,
    }
