"""The timeline keeps a run of repeated unreadable items as one object, and loses none of them:
every item is still there by index, with its raw bytes, offsets, time and findings."""

from __future__ import annotations

import gc

from playground.protocol.findings import RANK
from playground.protocol.sse import SSEComment, SSEEvent, parse_all
from playground.protocol.stream import StreamDecoder
from playground.protocol.timeline_items import TimelineItems

READ = 65536


def _decode(data: bytes, times: list[float] | None = None) -> StreamDecoder:
    decoder = StreamDecoder("chat")
    decoder.set_content_type("text/event-stream")
    for n, at in enumerate(range(0, len(data), READ)):
        decoder.feed(data[at : at + READ], times[n] if times else 0.5)
    decoder.finish(1.0)
    return decoder


def _events_alive() -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if type(obj) is SSEEvent)


def test_a_million_unreadable_events_keep_a_few_objects() -> None:
    before = _events_alive()
    decoder = _decode(b"data:x\n\n" * 1_000_000)
    items = decoder.items
    assert len(items) == 1_000_000
    # One object for the whole run (the reads all arrived at one time), not one per event.
    assert items.runs == 1 and items.folded == 999_999
    assert _events_alive() - before <= 4


def test_every_folded_item_keeps_its_bytes_offsets_time_and_findings() -> None:
    data = b"data:x\n\n" * 20_000
    times = [0.1 * n for n in range(len(data) // READ + 1)]
    decoder = _decode(data, times)
    items = decoder.items
    assert items.folded > 0
    per_read = READ // 8
    for index in (0, 1, 2, 49, 50, 8191, 8192, 8193, 19_999, -1):
        item = items[index]
        row = index % len(items)
        assert type(item) is SSEEvent and item.index == row
        assert item.raw == b"data:x\n\n" and item.data == "x" and item.event == "message"
        assert (item.start, item.end) == (8 * row, 8 * row + 8)
        assert item.t_first == item.t_last == times[row // per_read]
        if row < 50:
            assert [f.code for f in decoder.findings_for(row)] == ["invalid_json"]
        else:
            assert decoder.omitted_rank(row) == RANK["error"]
    # The same items a list would hold, in order, whichever way they are read.
    assert list(items) == items[:] == parse_items(data, times)
    assert items[19_990:] == list(items)[19_990:]


def parse_items(data: bytes, times: list[float]) -> list[SSEEvent]:
    out = []
    for item in parse_all(data):
        assert type(item) is SSEEvent
        item.t_first = item.t_last = times[item.start // READ]
        out.append(item)
    return out


def test_repeats_fold_only_when_nothing_tells_them_apart() -> None:
    # A blank line between two events, an id line, other bytes: each starts a run anew.
    data = (
        b"data:x\n\n" * 3 + b"\n" + b"data:x\n\n" * 2 + b"id: 7\ndata:x\n\n" * 2 + b"data:y\n\n" * 2
    )
    decoder = _decode(data)
    items = decoder.items
    assert [it.raw for it in items] == [it.raw for it in parse_all(data)]
    assert [(it.start, it.end) for it in items] == [(it.start, it.end) for it in parse_all(data)]
    # the id carries on
    assert [getattr(it, "id", None) for it in items] == [
        getattr(it, "id", None) for it in parse_all(data)
    ]
    assert items.runs == 4 and items.folded == 5


def test_readable_events_are_never_folded() -> None:
    chunk = b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n'
    decoder = _decode(chunk * 500)
    assert decoder.items.folded == 0 and len(decoder.items) == 500
    assert decoder.items[499] is decoder.items[499]  # kept objects, not copies


def test_repeated_comments_fold_and_keep_their_text() -> None:
    decoder = _decode(b": keep-alive\n" * 5_000 + b"data: [DONE]\n\n")
    items = decoder.items
    assert decoder.state.comments == 5_000 and items.folded == 4_999
    last = items[4_999]
    assert type(last) is SSEComment and last.text == "keep-alive" and last.index == 4_999
    assert (last.start, last.end) == (13 * 4_999, 13 * 5_000)
    assert type(items[5_000]) is SSEEvent and items[5_000].data == "[DONE]"


def test_a_timeline_holds_its_folded_items_and_no_others() -> None:
    decoder = _decode(b"data:x\n\n" * 100)
    items = decoder.items
    other = _decode(b"data:x\n\n" * 100 + b"data:y\n\n").items
    assert all(items.holds(item) for item in list(items))
    assert not items.holds(other[100])
    assert isinstance(items, TimelineItems)
