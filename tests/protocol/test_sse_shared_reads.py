"""SSEEvent keeps the read it was cut from, not a copy: raw reads back exactly, memory bounded."""

from __future__ import annotations

from types import ModuleType

import pytest

import playground.protocol as protocol
from playground.protocol import sse as installed

# The same rules in the build the install made and in the source run by the interpreter.
PARSERS = [installed, protocol.load_source_parser("_sse_shared_from_source")]


def _chat_event(i: int) -> bytes:
    return b'data: {"choices":[{"index":0,"delta":{"content":"token %d"}}]}\n\n' % i


@pytest.fixture(params=PARSERS, ids=["installed", "source"])
def sse(request: pytest.FixtureRequest) -> ModuleType:
    module: ModuleType = request.param
    return module


def test_the_events_of_one_read_share_it_and_give_back_their_own_bytes(sse: ModuleType) -> None:
    stream = b"".join(_chat_event(i) for i in range(40))
    read = stream[:4096]
    events = sse.SSEParser().feed(read, 1.0)
    assert len(events) > 10
    assert all(event._buf is read for event in events)  # no copy of any event's bytes
    for event in events:
        assert event.raw == stream[event.start : event.end]
        assert event.size == len(event.raw) == event.end - event.start
        assert event.raw_startswith(b'data: {"choices"') and not event.raw_startswith(b"id:")
        assert event.data == event.raw[6:-2].decode()
    assert sse.all_start_with(events, b"data: {") and not sse.all_start_with(events, b"data: [")


def test_a_few_small_events_do_not_hold_a_large_read(sse: ModuleType) -> None:
    # A read that is mostly the start of a long line (a partial image arriving): its one small
    # event keeps bytes of its own, so the 60 KiB are not held twice (the parser keeps a copy).
    read = _chat_event(1) + b'data: {"b64_json":"' + b"A" * 60_000
    parser = sse.SSEParser()
    (event,) = parser.feed(read, 1.0)
    assert len(event._buf) == event.size == len(_chat_event(1))
    assert event.raw == _chat_event(1)
    (image,) = parser.feed(b'"}\n\n', 2.0)
    assert image.raw == read[len(_chat_event(1)) :] + b'"}\n\n'


def test_a_long_event_keeps_bytes_of_its_own_unless_it_is_the_whole_read(sse: ModuleType) -> None:
    long = b'data: {"b64_json":"' + b"A" * 20_000 + b'"}\n\n'
    events = sse.SSEParser().feed(long + _chat_event(2), 1.0)
    assert [event.raw for event in events] == [long, _chat_event(2)]
    assert events[0].raw is events[0].raw  # its own bytes: each read of raw is not a new copy
    (alone,) = sse.SSEParser().feed(long, 1.0)
    assert alone.raw is alone._buf  # the whole read is the event: shared, never sliced
    assert alone.start == 0 and alone.end == len(long)


@pytest.mark.parametrize("first", [b"", b": hi\n"])
def test_a_read_given_as_a_bytearray_is_not_shared(first: bytes) -> None:
    # A caller may reuse its buffer: events keep bytes, never the caller's mutable object. (Only
    # the source takes a bytearray: the build refuses anything but bytes at the call.)
    sse = PARSERS[1]
    parser = sse.SSEParser()
    parser.feed(first, 0.5)
    read = bytearray(_chat_event(1) + _chat_event(2))
    events = parser.feed(read, 1.0)
    read[:] = b"x" * len(read)
    assert [event.raw for event in events] == [_chat_event(1), _chat_event(2)]
    assert all(type(event.raw) is bytes for event in events)


def test_events_made_by_field_or_given_raw_own_their_bytes(sse: ModuleType) -> None:
    event = sse.SSEEvent.make(0, "message", None, None, None, b"data: x\n\n", 10, 19, 0.0, 0.0)
    assert event.raw is event._buf and event.size == 9 and event.start == 10
    event.raw = b"data: yz\n\n"
    assert event.raw == b"data: yz\n\n" and event.size == 10 and event.data == "yz"
