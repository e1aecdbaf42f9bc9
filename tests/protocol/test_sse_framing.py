"""WHATWG event-stream framing case by case (PROTOCOL.md §1): line ends, BOM, fields, dispatch."""

from __future__ import annotations

import time

import pytest

from playground.protocol.sse import (
    SSEComment,
    SSEEvent,
    SSEItem,
    SSEParser,
    SSEUnterminated,
    parse_all,
)


def feed_all(*chunks: bytes, finish: bool = True) -> list[SSEItem]:
    """Feed each chunk at t = 1, 2, 3...; finish at t = len(chunks) + 1."""
    parser = SSEParser()
    items: list[SSEItem] = []
    for i, chunk in enumerate(chunks, start=1):
        items.extend(parser.feed(chunk, float(i)))
    if finish:
        items.extend(parser.finish(float(len(chunks) + 1)))
    return items


def events(*chunks: bytes) -> list[SSEEvent]:
    return [item for item in feed_all(*chunks) if isinstance(item, SSEEvent)]


def datas(*chunks: bytes) -> list[str]:
    return [e.data for e in events(*chunks)]


# -- line ends -------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r", b"\r\n"])
def test_each_line_end_alone(eol: bytes) -> None:
    stream = b"data: a" + eol + b"data: b" + eol + eol + b"data: c" + eol + eol
    items = feed_all(stream)
    assert [(e.data, e.raw) for e in items if isinstance(e, SSEEvent)] == [
        ("a\nb", b"data: a" + eol + b"data: b" + eol + eol),
        ("c", b"data: c" + eol + eol),
    ]
    assert not any(isinstance(i, SSEUnterminated) for i in items)


def test_mixed_line_ends_in_one_stream() -> None:
    assert datas(b"data: a\rdata: b\ndata: c\r\n\rdata: d\n\r\n") == ["a\nb\nc", "d"]


def test_cr_at_end_of_chunk_then_lf_is_one_crlf() -> None:
    items = feed_all(b"data: a\r\n\r", b"\ndata: b\r\n\r\n")
    evs = [i for i in items if isinstance(i, SSEEvent)]
    assert [e.data for e in evs] == ["a", "b"]  # the LF did not make an extra blank line
    assert evs[0].raw == b"data: a\r\n\r\n"
    assert (evs[0].start, evs[0].end) == (0, 11)
    assert evs[1].start == 11


def test_cr_at_end_of_chunk_waits_for_the_next_byte() -> None:
    parser = SSEParser()
    assert not parser.feed(b"data: a\r\r", 1.0)  # second CR may be half of a CRLF
    items = parser.feed(b"data: b", 2.0)
    assert [(i.data, i.raw, i.t_last) for i in items if isinstance(i, SSEEvent)] == [
        ("a", b"data: a\r\r", 2.0)
    ]


def test_lone_cr_at_eof_ends_its_line() -> None:
    items = feed_all(b"data: a\r\r")
    assert [(type(i).__name__, i.raw) for i in items] == [("SSEEvent", b"data: a\r\r")]


def test_cr_then_lf_split_across_three_chunks() -> None:
    assert datas(b"data: a\r", b"\n", b"\r", b"\n") == ["a"]
    assert datas(b"data: a\r", b"\r", b"\n") == ["a"]  # CR (line), CR LF (blank line)


# -- BOM -------------------------------------------------------------------------------------


def test_bom_at_start_is_stripped_but_counted_in_offsets() -> None:
    (ev,) = events(b"\xef\xbb\xbfdata: a\n\n")
    assert ev.data == "a"
    assert (ev.start, ev.end, ev.raw) == (3, 12, b"data: a\n\n")


def test_bom_split_across_chunks() -> None:
    (ev,) = events(b"\xef", b"\xbb", b"\xbfdata: a\n\n")
    assert (ev.data, ev.start) == ("a", 3)


def test_second_bom_is_data() -> None:
    # Only one leading BOM is stripped; a second one makes the field name "\ufeffdata" (ignored).
    assert events(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n") == []
    assert datas(b"\xef\xbb\xbfdata: \xef\xbb\xbfa\n\n") == ["\ufeffa"]


def test_bom_not_at_start_is_not_stripped() -> None:
    (ev,) = events(b"data: a\n\n\xef\xbb\xbfdata: b\n\n")
    assert ev.data == "a"  # "\ufeffdata" is an unknown field: nothing dispatched for it


def test_partial_bom_that_is_not_a_bom() -> None:
    assert datas(b"\xef\xbb", b"data: a\n\n") == []  # field name "\ufffddata"
    items = feed_all(b"\xef")
    assert [(type(i).__name__, i.raw) for i in items] == [("SSEUnterminated", b"\xef")]


# -- UTF-8 -----------------------------------------------------------------------------------


def test_utf8_characters_split_across_chunks() -> None:
    stream = "data: héllo €😀\n\n".encode()
    for cut in range(1, len(stream)):
        assert datas(stream[:cut], stream[cut:]) == ["héllo €😀"]
    assert datas(*[stream[i : i + 1] for i in range(len(stream))]) == ["héllo €😀"]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert datas(b"data: a\xffb\xe2\x82\n\n") == ["a\ufffdb\ufffd"]


# -- comments --------------------------------------------------------------------------------


def test_comments_are_their_own_items_in_order() -> None:
    items = feed_all(b": OPENROUTER PROCESSING\n\ndata: a\n:keep\ndata: b\n\n")
    assert [type(i).__name__ for i in items] == ["SSEComment", "SSEComment", "SSEEvent"]
    first, second, ev = items
    assert isinstance(first, SSEComment) and isinstance(second, SSEComment)
    assert (first.text, first.raw, first.start, first.end) == (
        "OPENROUTER PROCESSING",
        b": OPENROUTER PROCESSING\n",
        0,
        24,
    )
    assert (second.text, second.raw) == ("keep", b":keep\n")
    assert isinstance(ev, SSEEvent)
    assert ev.data == "a\nb"
    assert ev.raw == b"data: a\n:keep\ndata: b\n\n"  # the event's bytes span its comment line
    assert [i.index for i in items] == [0, 1, 2]


def test_comment_strips_one_space_only() -> None:
    (c,) = feed_all(b":  two\n")
    assert isinstance(c, SSEComment) and c.text == " two"


# -- fields ----------------------------------------------------------------------------------


def test_multi_line_data_joined_with_lf() -> None:
    assert datas(b"data: a\ndata:\ndata: c\n\n") == ["a\n\nc"]


def test_data_with_and_without_space() -> None:
    assert datas(b"data:a\n\ndata: a\n\ndata:  a\n\n") == ["a", "a", " a"]


def test_empty_data_yields_an_event_with_empty_data() -> None:
    assert datas(b"data:\n\n") == [""]
    assert datas(b"data\n\n") == [""]  # no colon: the whole line is the name, value ""


def test_lone_id_then_blank_dispatches_nothing() -> None:
    # The SDK decoders (openai, httpx-sse) dispatch an empty event here; WHATWG does not.
    items = feed_all(b"id: 1\n\n")
    assert items == []
    assert feed_all(b"event: ping\n\n") == []
    assert feed_all(b"retry: 10\n\n") == []


def test_id_persists_across_events_and_resets_only_when_set() -> None:
    evs = events(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\n\ndata: d\n\n")
    assert [(e.data, e.id) for e in evs] == [("a", "1"), ("b", "1"), ("c", ""), ("d", "2")]


def test_id_with_nul_is_ignored() -> None:
    evs = events(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")
    assert [e.id for e in evs] == ["1", "1"]


def test_no_id_is_none() -> None:
    (ev,) = events(b"data: a\n\n")
    assert ev.id is None


def test_retry_only_all_digits() -> None:
    stream = b"retry: 100\ndata: a\n\nretry: 1x\ndata: b\n\nretry: -5\ndata: c\n\n"
    stream += b"retry:\ndata: d\n\nretry: 1 \ndata: e\n\nretry:007\ndata: f\n\n"
    assert [e.retry for e in events(stream)] == [100, None, None, None, None, 7]


def test_unicode_digits_are_not_retry_digits() -> None:
    assert [e.retry for e in events("retry: ١٢\ndata: a\n\n".encode())] == [None]


def test_unknown_fields_ignored() -> None:
    (ev,) = events(b"foo: bar\nDATA: x\ndata: a\nEvent: y\n\n")
    assert (ev.event, ev.data) == ("message", "a")


def test_field_name_with_trailing_space_is_ignored() -> None:
    assert events(b"data : a\n\n") == []
    (ev,) = events(b"event : e\ndata: a\n\n")
    assert ev.event == "message"


def test_event_type_defaults_to_message_and_resets() -> None:
    evs = events(b"event: delta\ndata: a\n\ndata: b\n\nevent:\ndata: c\n\n")
    assert [e.event for e in evs] == ["delta", "message", "message"]


def test_event_type_without_data_does_not_leak_into_next_event() -> None:
    (ev,) = events(b"event: ping\n\ndata: a\n\n")
    assert ev.event == "message"


def test_value_keeps_later_colons() -> None:
    assert datas(b'data: {"a": "b:c"}\n\n') == ['{"a": "b:c"}']


def test_blank_lines_alone_dispatch_nothing() -> None:
    assert feed_all(b"\n\n\r\n\r\r") == []


# -- EOF -------------------------------------------------------------------------------------


def test_eof_without_blank_line_is_unterminated_and_not_dispatched() -> None:
    stream = b"data: a\n\nevent: last\ndata: b\n"
    items = feed_all(stream[:9], stream[9:])  # the first chunk ends exactly at a line end
    assert [type(i).__name__ for i in items] == ["SSEEvent", "SSEUnterminated"]
    tail = items[1]
    assert isinstance(tail, SSEUnterminated)
    assert (tail.raw, tail.start, tail.end) == (b"event: last\ndata: b\n", 9, len(stream))
    assert (tail.event, tail.data, tail.fields) == ("last", "b", ["event", "data"])
    assert (tail.t_first, tail.t_last, tail.index) == (2.0, 3.0, 1)


def test_eof_in_the_middle_of_a_line() -> None:
    items = feed_all(b"data: a\n\ndata: par", b"tial")
    tail = items[-1]
    assert isinstance(tail, SSEUnterminated)
    assert (tail.raw, tail.start, tail.end, tail.data) == (b"data: partial", 9, 22, None)
    assert (tail.t_first, tail.t_last) == (1.0, 3.0)


def test_clean_eof_has_no_unterminated_item() -> None:
    assert [type(i).__name__ for i in feed_all(b"data: a\n\n")] == ["SSEEvent"]
    assert feed_all(b"") == []


def test_feed_after_finish_and_finish_twice_are_ignored() -> None:
    parser = SSEParser()
    parser.feed(b"data: a\n", 1.0)
    parser.feed(b"data: b", 1.5)
    assert parser.offset == 15
    assert len(parser.finish(2.0)) == 1
    assert parser.offset == 15
    assert parser.finish(3.0) == []
    assert not parser.feed(b"\n", 4.0)
    assert not parser.feed(b"more", 5.0)
    assert parser.offset == 15


# -- raw bytes, offsets and times ------------------------------------------------------------


def test_offsets_times_and_raw_exact() -> None:
    parser = SSEParser()
    out: list[SSEItem] = []
    out += parser.feed(b": c\nda", 1.0)
    assert [type(i).__name__ for i in out] == ["SSEComment"]
    out += parser.feed(b"ta: a", 2.0)
    out += parser.feed(b"\n", 3.0)
    out += parser.feed(b"\nid: 9\ndata: b\n\n", 4.0)
    out += parser.finish(5.0)
    comment, first, second = out
    assert isinstance(comment, SSEComment)
    assert (comment.start, comment.end, comment.t_first, comment.t_last) == (0, 4, 1.0, 1.0)
    assert isinstance(first, SSEEvent)
    assert (first.raw, first.start, first.end) == (b"data: a\n\n", 4, 13)
    assert (first.t_first, first.t_last, first.index) == (1.0, 4.0, 1)
    assert isinstance(second, SSEEvent)
    assert (second.raw, second.start, second.end) == (b"id: 9\ndata: b\n\n", 13, 28)
    assert (second.t_first, second.t_last, second.id) == (4.0, 4.0, "9")
    assert parser.offset == 28
    assert parser.last_event_id == "9"


def test_t_first_is_the_chunk_holding_the_first_byte_after_a_bom() -> None:
    parser = SSEParser()
    assert not parser.feed(b"\xef\xbb", 1.0)
    (ev,) = parser.feed(b"\xbfdata: a\n\n", 2.0)
    assert isinstance(ev, SSEEvent)
    assert (ev.t_first, ev.start) == (2.0, 3)


def test_parse_all_with_and_without_pieces() -> None:
    stream = b"data: a\r\n\r\n: c\r\ndata: b"
    whole = parse_all(stream)
    pieces = parse_all(stream, chunk_size=1)
    assert [(type(i), i.raw, i.start, i.end) for i in whole] == [
        (type(i), i.raw, i.start, i.end) for i in pieces
    ]
    assert [type(i).__name__ for i in whole] == ["SSEEvent", "SSEComment", "SSEUnterminated"]


# -- no re-scanning --------------------------------------------------------------------------


def _feed_long_line(pieces: int) -> float:
    """CPU seconds to feed one ``data:`` line of ``pieces`` x 4 KiB, then its blank line."""
    parser = SSEParser()
    piece = b"x" * 4096
    start = time.process_time()
    parser.feed(b"data: ", 0.0)
    for i in range(pieces):
        assert not parser.feed(piece, float(i))
    (ev,) = parser.feed(b"\n\n", 1.0)
    elapsed = time.process_time() - start
    assert isinstance(ev, SSEEvent)
    assert len(ev.data) == pieces * 4096
    return elapsed


def test_a_10_mb_line_in_4k_pieces_is_never_rescanned() -> None:
    # Checked by structure: while no line end has arrived, every piece is only kept, unjoined and
    # unsearched (the pieces are joined and cut once, when the line end comes).
    parser = SSEParser()
    parser.feed(b"data: ", 0.0)
    piece = b"x" * 4096
    for i in range(2560):  # 10 MiB
        assert not parser.feed(piece, float(i))
        assert len(parser._parts) == i + 2  # the invariant under test
    assert parser.offset == 6 + 2560 * 4096
    (ev,) = parser.feed(b"\n\n", 1.0)
    assert isinstance(ev, SSEEvent)
    assert (len(ev.data), ev.end, ev.t_first) == (2560 * 4096, 6 + 2560 * 4096 + 2, 0.0)


def test_a_long_line_costs_linear_time() -> None:
    # A generous bound on CPU time, not wall time: 8x the bytes must cost far less than the 64x a
    # rescanning parser would pay (best of three against noise from other processes).
    small = min(_feed_long_line(320) for _ in range(3))
    large = min(_feed_long_line(2560) for _ in range(3))
    assert large < 24 * small + 0.05
