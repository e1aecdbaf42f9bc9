"""Hypothesis properties over the SSE parser on random and SSE-like bytes cut anywhere: it never
raises, items are numbered in order, each item's raw bytes are its slice of the input, and the
chunking never changes what comes out."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.protocol.sse import SSEItem, SSEParser

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Pieces that make the parser's interesting paths likely: fields, line ends, BOM, comments.
_PIECES = st.sampled_from(
    [
        b"data: ",
        b"data:",
        b"event: x\n",
        b"id: 7\n",
        b"id: a\x00b\n",
        b"retry: 10\n",
        b"retry: x\n",
        b": comment\n",
        b"\n",
        b"\r",
        b"\r\n",
        b"\n\n",
        b"\xef\xbb\xbf",
        b"{}",
        b"[DONE]",
        b"\xff\xfe",
        b"x" * 70,
        b"data",
        b" ",
        b":",
    ]
)
SSE_LIKE = st.lists(st.one_of(_PIECES, st.binary(max_size=8)), max_size=60).map(b"".join)


def _parse(data: bytes, cuts: list[int]) -> list[SSEItem]:
    parser = SSEParser()
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    out: list[SSEItem] = []
    for n, (a, b) in enumerate(itertools.pairwise(points)):
        if b > a:
            out += parser.feed(data[a:b], float(n))
    out += parser.finish(float(len(points)))
    return out


def _key(item: SSEItem) -> tuple[object, ...]:
    # Everything but the arrival times, which depend on the chunking by design.
    fields = ("index", "event", "data", "id", "retry", "text", "raw", "start", "end")
    return (type(item).__name__, *(getattr(item, f, None) for f in fields))


def _check(data: bytes, items: list[SSEItem]) -> None:
    # Items come in the order they complete; a comment inside a pending event may lie within the
    # event's own range (it completes first), so ranges are checked one by one, not for overlap.
    for i, item in enumerate(items):
        assert item.index == i
        assert 0 <= item.start <= item.end <= len(data), item
        assert item.t_first <= item.t_last
        assert item.raw == data[item.start : item.end], item


@FUZZ
@given(data=st.one_of(SSE_LIKE, st.binary(max_size=2048)), cuts=st.lists(st.integers(0, 4096)))
def test_any_bytes_any_chunking(data: bytes, cuts: list[int]) -> None:
    whole = _parse(data, [])
    _check(data, whole)
    pieces = _parse(data, cuts)
    _check(data, pieces)
    assert [_key(i) for i in pieces] == [_key(i) for i in whole]


@FUZZ
@given(data=SSE_LIKE)
def test_byte_by_byte_equals_whole(data: bytes) -> None:
    whole = _parse(data, [])
    one_by_one = _parse(data, list(range(len(data))))
    assert [_key(i) for i in one_by_one] == [_key(i) for i in whole]
