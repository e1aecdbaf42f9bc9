"""protocol/timeline.py ItemTypes: a batch's ids in bulk are the ids one at a time, every time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import CAPTURES, all_captures

from playground.protocol.sse import SSEItem
from playground.protocol.stream import StreamDecoder
from playground.protocol.timeline import ItemTypes


def _items(route: str, body: bytes) -> list[SSEItem]:
    decoder = StreamDecoder(route)
    decoder.set_content_type("text/event-stream")
    items = list(decoder.feed(body, 0.0))
    return items + list(decoder.finish(1.0))


def _chat_flood(n: int, odd: dict[int, bytes]) -> bytes:
    parts = []
    for i in range(n):
        delta = {"content": f" w{i}"}
        chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
        parts.append(odd.get(i, b"data: " + json.dumps(chunk).encode() + b"\n\n"))
    return b"".join(parts)


def _check(items: list[SSEItem], cuts: list[int]) -> None:
    one, bulk = ItemTypes(), ItemTypes()
    expected = [one.id_of(item) for item in items]
    got: list[int] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(items)]:
        got.extend(bulk.ids_of(items[start:cut]))
        start = max(start, cut)
    assert got == expected
    assert bulk.names == one.names


_ODD = {
    "comment": b": keep-alive\n\n",
    "named event": b"event: ping\ndata: {}\n\n",
    "another shape": b'data: {"type":"response.output_text.delta","delta":"x"}\n\n',
    "not json": b"data: {oops\n\n",
    "done": b"data: [DONE]\n\n",
}


@settings(max_examples=200, deadline=None)
@given(
    odd=st.dictionaries(st.integers(0, 199), st.sampled_from(sorted(_ODD)), max_size=6),
    cuts=st.lists(st.integers(0, 200), max_size=6),
)
def test_ids_in_bulk_are_the_ids_one_at_a_time(odd: dict[int, str], cuts: list[int]) -> None:
    items = _items("chat", _chat_flood(200, {i: _ODD[k] for i, k in odd.items()}))
    _check(items, cuts)


@pytest.mark.parametrize("path", all_captures(CAPTURES), ids=lambda p: Path(p).stem)
def test_ids_in_bulk_match_on_every_capture(path: Path) -> None:
    items = _items(Path(path).parent.name, Path(path).read_bytes())
    _check(items, [1, 17, 40])
