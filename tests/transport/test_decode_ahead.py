"""transport.decode_ahead: reads decoded on the reader thread, taken in read order by the UI."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from playground.protocol.sse import SSEItem
from playground.protocol.stream import StreamDecoder
from playground.runs.outcome import has_output
from playground.transport.decode_ahead import DecodeAhead
from playground.transport.reader import ThreadedReader
from playground.transport.spec import RequestSpec


def chat_event(text: str) -> bytes:
    return (
        b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
        b'{"content":"%s"},"finish_reason":null}]}\n\n' % text.encode()
    )


def test_each_read_is_decoded_once_and_its_items_are_taken_in_read_order() -> None:
    reads = [b": hello\n\n", chat_event("Hel") + chat_event("lo"), b"data: [DONE]\n\n"]
    ahead = DecodeAhead(StreamDecoder("chat"), has_output)
    ahead.on_response(200, "text/event-stream")
    for k, data in enumerate(reads):
        ahead.on_chunk(float(k), data)

    reference = StreamDecoder("chat")
    reference.set_content_type("text/event-stream")
    expected = [list(reference.feed(data, float(k))) for k, data in enumerate(reads)]
    taken = [list(ahead.take()) for _ in reads]
    assert [[i.raw for i in items] for items in taken] == [[i.raw for i in e] for e in expected]
    assert [len(items) for items in taken] == [1, 2, 1]
    assert ahead.decoder.state.text == "Hello"
    assert ahead.t_first_token == 1.0  # the read that brought the first text
    assert list(ahead.take()) == []  # nothing more was read


def test_an_error_response_is_left_to_the_ui_thread() -> None:
    ahead = DecodeAhead(StreamDecoder("chat"), has_output)
    ahead.on_response(429, "application/json")
    ahead.on_chunk(0.0, b'{"error": {"message": "slow down"}}')
    assert not ahead.decoding
    assert list(ahead.take()) == []
    assert ahead.decoder.state.events == 0


def test_nothing_is_fed_once_closed() -> None:
    ahead = DecodeAhead(StreamDecoder("chat"), has_output)
    ahead.on_response(200, "text/event-stream")
    ahead.close()
    ahead.on_chunk(0.0, chat_event("late"))
    assert ahead.decoder.state.text == ""
    assert list(ahead.take()) == []


def test_hold_waits_for_the_read_being_decoded() -> None:
    decoder = StreamDecoder("chat")
    ahead = DecodeAhead(decoder, has_output)
    ahead.on_response(200, "text/event-stream")
    entered, release = threading.Event(), threading.Event()
    feed = decoder.feed

    def slow_feed(data: bytes, t: float) -> Sequence[SSEItem]:
        entered.set()
        release.wait(5)
        return feed(data, t)

    decoder.feed = slow_feed  # type: ignore[method-assign,assignment]
    reader = ThreadedReader(
        RequestSpec(provider_id="sim", method="POST", url="http://127.0.0.1:9/", headers={}),
        connect_timeout=1,
        first_byte_timeout=1,
        allow_insecure_key=False,
    )
    reader.ahead = ahead
    worker = threading.Thread(target=reader.on_chunk, args=(0.0, chat_event("x")))
    worker.start()
    assert entered.wait(5)
    held = threading.Event()

    def hold() -> None:
        reader.hold()
        held.set()

    frame = threading.Thread(target=hold)
    frame.start()
    time.sleep(0.05)
    assert not held.is_set()  # the frame waits: the state is being changed
    release.set()
    assert held.wait(5)
    assert decoder.state.text == "x"  # the frame sees the whole read
    frame.join()
    worker.join()
