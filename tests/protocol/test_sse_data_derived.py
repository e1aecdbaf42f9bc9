"""SSEEvent.data derived from raw (for memory and speed) equals the data the spec gives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import sse_like_streams as streams

from playground.protocol.sse import SSEEvent, SSEItem, SSEParser, data_of_raw

_LINE_END = re.compile(rb"\r\n|\r|\n")


def reference_data(stream: bytes) -> list[str]:
    """Every dispatched event's data, WHATWG over the whole input, decoded per line."""
    pos = 3 if stream.startswith(b"\xef\xbb\xbf") else 0
    out: list[str] = []
    data: list[str] = []
    for match in _LINE_END.finditer(stream, pos):
        line = stream[pos : match.start()]
        pos = match.end()
        if not line:
            if data:
                out.append("\n".join(data))
            data = []
        elif line[:1] != b":":
            name, colon, value = line.partition(b":")
            if colon and value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                data.append(value.decode("utf-8", "replace"))
    return out


def parse(stream: bytes, cuts: list[int]) -> list[SSEEvent]:
    parser = SSEParser()
    items: list[SSEItem] = []
    last = 0
    for cut in [*sorted(c % (len(stream) + 1) for c in cuts), len(stream)]:
        items += parser.feed(stream[last:cut], 0.0)
        last = cut
    items += parser.finish(0.0)
    return [item for item in items if isinstance(item, SSEEvent)]


@settings(max_examples=400, deadline=None)
@given(streams, st.lists(st.integers(0, 400), max_size=6))
def test_derived_data_is_the_spec_data(stream: bytes, cuts: list[int]) -> None:
    events = parse(stream, cuts)
    assert [ev.data for ev in events] == reference_data(stream)
    for ev in events:
        assert ev.data_is_derived  # the parser keeps no str
        assert data_of_raw(ev.raw) == ev.data


@settings(max_examples=400, deadline=None)
@given(streams)
def test_released_then_rederived_equals_the_original(stream: bytes) -> None:
    for ev in parse(stream, []):
        original = ev.data
        kept = SSEEvent.make(
            ev.index, ev.event, original, ev.id, ev.retry, ev.raw, ev.start, ev.end, 0.0, 0.0
        )
        assert not kept.data_is_derived
        kept.release_data()
        assert kept.data_is_derived  # raw gives the same text, so the str was dropped
        assert kept.data == original
        assert (kept.event, kept.id, kept.retry) == (ev.event, ev.id, ev.retry)


def test_data_that_raw_cannot_give_is_kept() -> None:
    # A non-SSE body (an HTTP error page) carried as an event keeps its own data.
    ev = SSEEvent.make(0, "error", "Bad gateway", None, None, b"Bad gateway", 0, 11, 0.0, 0.0)
    ev.release_data()
    assert not ev.data_is_derived
    assert ev.data == "Bad gateway"
    assert ev == SSEEvent.make(
        0, "error", "Bad gateway", None, None, b"Bad gateway", 0, 11, 0.0, 0.0
    )


def test_fields_can_be_set_and_compare_like_the_dataclass() -> None:
    ev = SSEParser().feed(b"data: a\n\n", 1.0)[0]
    assert isinstance(ev, SSEEvent)
    assert (ev.event, ev.data, ev.id, ev.retry) == ("message", "a", None, None)
    ev.event, ev.id, ev.retry = "x", "7", 3
    assert (ev.event, ev.data, ev.id, ev.retry) == ("x", "a", "7", 3)
    ev.event, ev.id, ev.retry = "message", None, None
    assert ev.data_is_derived
    assert ev == SSEEvent.make(0, "message", "a", None, None, b"data: a\n\n", 0, 9, 1.0, 1.0)
    assert "data='a'" in repr(ev)


@settings(max_examples=300, deadline=None)
@given(streams, st.lists(st.integers(0, 400), max_size=6))
def test_start_is_derived_from_end_and_raw_and_is_the_first_byte(
    stream: bytes, cuts: list[int]
) -> None:
    body = stream[3:] if stream.startswith(b"\xef\xbb\xbf") else stream
    offset = len(stream) - len(body)
    for ev in parse(stream, cuts):
        assert ev.start == ev.end - len(ev.raw)
        assert stream[ev.start : ev.end] == ev.raw
        assert ev.start >= offset
        assert ev._meta is None or ev._meta[4] is None  # nothing stored for it


def test_a_start_that_raw_does_not_span_is_kept() -> None:
    # A raw audio chunk keeps its bytes elsewhere: its item has empty raw but a real span.
    ev = SSEEvent.make(3, "audio", "", None, None, b"", 100, 4900, 1.0, 1.0)
    assert (ev.start, ev.end) == (100, 4900)
    ev.event = "audio2"  # changing another field keeps it
    assert ev.start == 100


def test_a_start_set_by_hand_stays_when_end_moves() -> None:
    ev = SSEParser().feed(b"data: a\n\n", 1.0)[0]
    assert isinstance(ev, SSEEvent)
    assert (ev.start, ev.end) == (0, 9)
    ev.start = 500  # the inspector re-parses one row's bytes and puts them back in place
    ev.end = 509
    assert (ev.start, ev.end) == (500, 509)
    assert ev == SSEEvent.make(0, "message", "a", None, None, b"data: a\n\n", 500, 509, 1.0, 1.0)
    assert ev.data_is_derived
