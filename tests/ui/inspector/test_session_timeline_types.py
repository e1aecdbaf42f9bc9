"""The inspector's per-event type at full speed: the shared-prefix shortcut gives the same types."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from playground.protocol.sse import SSEParser
from playground.protocol.timeline import raw_type as _raw_type
from playground.protocol.timeline import raw_type_at as _raw_type_at
from playground.ui.inspector.timeline_filter import TimelineFilter
from playground.ui.inspector.timeline_model import COL_TYPE, TimelineModel

_PARTS = [
    'data: {"type":"',
    "data: ",
    "a.b",
    "x",
    '"',
    "\n",
    "\r",
    "é",
    ": c",
    "event: x",
    ' "chat.completion.chunk"',
    '{"id":"c1","object":"chat.completion.chunk"}',
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=10), st.lists(st.sampled_from(_PARTS)))
def test_bytes_sharing_the_deciding_prefix_get_the_same_type(
    head: list[str], tail: list[str]
) -> None:
    raw = "".join(head).encode() + b"\n\n"
    typed = _raw_type_at(raw)
    if typed is None:
        return
    name, decided = typed
    assert _raw_type(raw) == name
    other = raw[:decided] + "".join(tail).encode() + b"\n\n"
    assert _raw_type(other) == name


def _stream(events: list[bytes]) -> bytes:
    return b"".join(b"data: " + e + b"\n\n" for e in events)


def test_types_follow_each_event_when_the_stream_changes_type(qtbot: QtBot) -> None:
    events = [
        b'{"id":"c1","object":"chat.completion.chunk","choices":[]}',
        b'{"id":"c1","object":"chat.completion.chunk","choices":[1]}',
        b'{"type":"response.output_text.delta","delta":"a"}',
        b'{"type":"response.output_text.delta","delta":"b"}',
        b'{"type":"response.output_text.done","text":"ab"}',
        b'{"id":"c1","object":"chat.completion.chunk","choices":[2]}',
        b'{"id":"c1","object":"other"}',
        b"[DONE]",
    ]
    model = TimelineModel()
    parser = SSEParser()
    for data in (_stream(events[:3]), _stream(events[3:6]), _stream(events[6:])):
        model.append_items(parser.feed(data, 0.0), None)
    view = TimelineFilter(model)
    shown = [
        view.data(view.index(row, COL_TYPE), Qt.ItemDataRole.DisplayRole)
        for row in range(view.rowCount())
    ]
    assert shown[:6] == [
        "chunk",
        "chunk",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "chunk",
    ]
    assert shown[6] != "chunk" and shown[7] != "chunk"
    # A fresh model given one event at a time (no shortcut carried over) agrees row by row.
    for row, event in enumerate(events):
        alone = TimelineModel()
        alone.append_items(SSEParser().feed(_stream([event]), 0.0), None)
        assert alone.data(alone.index(0, COL_TYPE), Qt.ItemDataRole.DisplayRole) == shown[row]
