"""The bytes a stream ends inside an event with: kept in the pieces they came in, read whole."""

from __future__ import annotations

import tracemalloc
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from playground.protocol.sse import SSEItem, SSEParser, SSEUnterminated, parse_all

_LINE = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))


@given(
    st.lists(st.sampled_from([b"data: a\n\n", b": c\n", b"event: e\n", b"data: x\n"]), max_size=4),
    _LINE,
    st.lists(st.integers(0, 200), max_size=8),
    st.integers(-1, 300),
)
def test_the_unterminated_item_reads_the_bytes_received_under_any_chunking(
    before: list[bytes], line: bytes, cuts: list[int], limit: int
) -> None:
    stream = b"".join(before) + b"data: " + line  # ends inside an event
    parser = SSEParser()
    items: list[SSEItem] = []
    last = 0
    for cut in [*sorted({min(c, len(stream)) for c in cuts}), len(stream)]:
        items.extend(parser.feed(stream[last:cut], 0.0))
        last = max(last, cut)
    items.extend(parser.finish(0.0))  # the times parse_all gives
    whole = parse_all(stream)
    tail = items[-1]
    assert isinstance(tail, SSEUnterminated) and tail == whole[-1]
    assert tail.raw == stream[tail.start : tail.end] == whole[-1].raw
    assert tail.size == len(tail.raw) and tail.head(limit) == tail.raw[: max(0, limit)]
    assert repr(tail) == repr(whole[-1])


def test_an_endless_line_is_not_copied_at_the_end_of_the_stream() -> None:
    """8 MB of one line in 64 KiB reads: the reader keeps the reads (a capture, a run's record),
    and the item points at them instead of joining a second copy."""
    reads = [b"data: " + b"x" * 65530] + [b"x" * 65536] * 121
    parser = SSEParser()
    for read in reads:
        parser.feed(read, 0.0)
    tracemalloc.start()
    try:
        (tail,) = parser.finish(1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(tail, SSEUnterminated)
    assert peak < 65536 * 4
    assert tail.size == tail.end - tail.start == sum(map(len, reads))
    assert tail.raw == b"".join(reads)  # read whole, it is every byte received


def test_bytes_given_in_any_buffer_are_kept_as_bytes_of_their_own() -> None:
    given_raw = bytearray(b"data: par")
    reused = bytearray(b"par")
    pieces: list[Any] = [memoryview(b"data: "), b"", reused, b"tial"]
    one = SSEUnterminated(0, None, None, given_raw, 0, 9, 0.0, 0.0)
    many = SSEUnterminated(0, None, None, pieces, 0, 13, 0.0, 0.0)
    given_raw[:] = b"xxxxxxxxx"  # the caller reuses its buffers
    reused[:] = b"xxx"
    assert (one.raw, many.raw) == (b"data: par", b"data: partial")
    assert type(one.raw) is bytes and type(many.raw) is bytes
    assert (one.size, many.size, many.head(8)) == (9, 13, b"data: pa")
