"""The incremental SSE parser against an obviously-correct whole-input WHATWG reference."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from playground.protocol.sse import SSEComment, SSEEvent, SSEItem, SSEParser

_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")


# -- the reference ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RefEvent:
    event: str
    data: str
    id: str | None
    retry: int | None
    raw: bytes
    start: int
    end: int


@dataclass(frozen=True)
class RefComment:
    text: str
    raw: bytes
    start: int
    end: int


@dataclass(frozen=True)
class RefUnterminated:
    raw: bytes
    start: int
    end: int


RefItem = RefEvent | RefComment | RefUnterminated


def reference_parse(stream: bytes) -> list[RefItem]:
    """WHATWG "event stream interpretation" over the whole input at once, as literally as possible.

    Lines are cut with one regular expression over the complete bytes (so no chunk boundary can
    matter); a line that is not followed by a terminator is never processed (EOF is not a line
    end, W3C bug 16866). Field values are decoded per line, which equals decoding the whole stream
    first: every delimiter (CR, LF, ':', ' ') is ASCII and "replace" works on maximal subparts.
    """
    pos = 3 if stream.startswith(_BOM) else 0
    items: list[RefItem] = []
    data: list[str] = []
    event_type = ""
    last_id: str | None = None
    retry: int | None = None
    event_start: int | None = None
    for match in _LINE_END.finditer(stream, pos):
        line_start, after = pos, match.end()
        line = stream[line_start : match.start()]
        pos = after
        if not line:
            if event_start is not None and data:
                raw = stream[event_start:after]
                text = "\n".join(data)
                items.append(
                    RefEvent(event_type or "message", text, last_id, retry, raw, event_start, after)
                )
            data, event_type, retry, event_start = [], "", None, None
            continue
        if line.startswith(b":"):
            comment = line[1:]
            if comment.startswith(b" "):
                comment = comment[1:]
            items.append(
                RefComment(
                    comment.decode("utf-8", "replace"), stream[line_start:after], line_start, after
                )
            )
            continue
        if event_start is None:
            event_start = line_start
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        field = name.decode("utf-8", "replace")
        text_value = value.decode("utf-8", "replace")
        if field == "data":
            data.append(text_value)
        elif field == "event":
            event_type = text_value
        elif field == "id":
            if "\0" not in text_value:
                last_id = text_value
        elif field == "retry" and text_value and all(c in "0123456789" for c in text_value):
            retry = int(text_value)
    tail_start = event_start if event_start is not None else pos
    if tail_start < len(stream) and (event_start is not None or pos < len(stream)):
        items.append(RefUnterminated(stream[tail_start:], tail_start, len(stream)))
    return items


def whatwg_text_events(stream: bytes) -> list[tuple[str, str, str | None, int | None]]:
    """The spec's steps word for word on decoded text: (type, data, last id, retry) per dispatch."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split("\r\n|\r|\n", text)
    lines.pop()  # whatever follows the last line end is not a line (EOF is no terminator)
    out: list[tuple[str, str, str | None, int | None]] = []
    data_buffer, type_buffer, last_id, retry = "", "", None, None
    for line in lines:
        if line == "":
            if data_buffer == "":
                data_buffer, type_buffer, retry = "", "", None
                continue
            if data_buffer.endswith("\n"):
                data_buffer = data_buffer[:-1]
            out.append((type_buffer or "message", data_buffer, last_id, retry))
            data_buffer, type_buffer, retry = "", "", None
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            type_buffer = value
        elif name == "data":
            data_buffer += value + "\n"
        elif name == "id":
            if "\0" not in value:
                last_id = value
        elif name == "retry" and value != "" and all(c in "0123456789" for c in value):
            retry = int(value)
    return out


# -- helpers ---------------------------------------------------------------------------------


def as_ref(item: SSEItem) -> RefItem:
    if isinstance(item, SSEEvent):
        return RefEvent(item.event, item.data, item.id, item.retry, item.raw, item.start, item.end)
    if isinstance(item, SSEComment):
        return RefComment(item.text, item.raw, item.start, item.end)
    return RefUnterminated(item.raw, item.start, item.end)


def parse_chunked(stream: bytes, cuts: list[int]) -> list[SSEItem]:
    """Feed ``stream`` cut at the given offsets (any order, duplicates allowed), then finish.

    Chunk ``i`` arrives at t = i and the stream ends at t = 1000; every item's times are checked
    against the chunk that held its first byte and the one that completed it.
    """
    parser = SSEParser()
    items: list[SSEItem] = []
    prev = 0
    arrival = [0.0] * len(stream)  # time of the chunk each byte came in
    for i, cut in enumerate([*sorted(set(cuts)), len(stream)]):
        arrival[prev:cut] = [float(i)] * (cut - prev)
        new = parser.feed(stream[prev:cut], float(i))
        for item in new:
            assert item.t_first == arrival[item.start]
            # completed by this chunk: its last byte, or the byte after a CR that ended it
            assert item.t_last == float(i)
            assert item.end <= cut
            assert arrival[item.end - 1] == float(i) or item.raw.endswith(b"\r")
        items.extend(new)
        prev = cut
    end = parser.finish(1000.0)
    for item in end:
        assert item.t_last == 1000.0
        assert item.t_first == arrival[item.start]
    items.extend(end)
    return items


def check_items(items: list[SSEItem], stream: bytes) -> None:
    assert [item.index for item in items] == list(range(len(items)))
    assert [as_ref(item) for item in items] == reference_parse(stream)
    for item in items:
        assert stream[item.start : item.end] == item.raw
        assert item.t_first <= item.t_last


# -- strategies ------------------------------------------------------------------------------

_TOKENS = [
    b"data",
    b"event",
    b"id",
    b"retry",
    b"data ",
    b"Data",
    b"foo",
    b":",
    b": ",
    b" ",
    b"  ",
    b"\r",
    b"\n",
    b"\r\n",
    b"\n\n",
    b"\r\n\r\n",
    b"\r\r",
    _BOM,
    b"\x00",
    b"0",
    b"123",
    b"-1",
    b"x",
    b"[DONE]",
    b'{"a":1}',
    "é".encode(),
    "€".encode(),
    "😀".encode(),
    b"\xff",
    b"\xe2\x82",
]
sse_tokens = st.one_of(st.sampled_from(_TOKENS), st.binary(max_size=3))
sse_streams = st.lists(sse_tokens, max_size=60).map(b"".join)


def cuts_for(stream: bytes) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(stream)), max_size=12)


# -- properties ------------------------------------------------------------------------------


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), stream=sse_streams)
@example(data=None, stream=b"data: a\r\n\r\n")
def test_any_chunking_matches_reference(data: st.DataObject | None, stream: bytes) -> None:
    cuts = data.draw(cuts_for(stream)) if data is not None else [8]
    check_items(parse_chunked(stream, cuts), stream)


@settings(max_examples=800, deadline=None)
@given(stream=sse_streams)
def test_events_match_the_spec_on_decoded_text(stream: bytes) -> None:
    items = parse_chunked(stream, [])
    events = [(i.event, i.data, i.id, i.retry) for i in items if isinstance(i, SSEEvent)]
    assert events == whatwg_text_events(stream)


@settings(max_examples=500, deadline=None)
@given(stream=sse_streams, size=st.integers(1, 7))
def test_byte_at_a_time_and_fixed_pieces(stream: bytes, size: int) -> None:
    check_items(parse_chunked(stream, list(range(0, len(stream), size))), stream)


@settings(max_examples=500, deadline=None)
@given(data=st.data(), stream=st.binary(max_size=300))
def test_random_bytes_never_raise(data: st.DataObject, stream: bytes) -> None:
    check_items(parse_chunked(stream, data.draw(cuts_for(stream))), stream)


def test_reference_agrees_with_itself_on_a_known_stream() -> None:
    # Guards the referee: a hand-checked stream in both references.
    stream = b"\xef\xbb\xbfid: 7\r\n: hi\ndata:a\ndata: b\r\rdata\nevent: e\n\ndata: tail"
    ref = reference_parse(stream)
    assert ref == [
        RefComment("hi", b": hi\n", 10, 15),
        RefEvent("message", "a\nb", "7", None, stream[3:31], 3, 31),
        RefEvent("e", "", "7", None, b"data\nevent: e\n\n", 31, 46),
        RefUnterminated(b"data: tail", 46, 56),
    ]
    assert whatwg_text_events(stream) == [("message", "a\nb", "7", None), ("e", "", "7", None)]


# -- captures --------------------------------------------------------------------------------


def _sse_files(captures_dir: Path) -> list[Path]:
    files = sorted(captures_dir.glob("*/*.sse"))
    assert len(files) >= 30, f"expected the recorded streams in {captures_dir}"
    return files


def test_captures_match_the_reference_in_fixed_chunkings(captures_dir: Path) -> None:
    for path in _sse_files(captures_dir):
        stream = path.read_bytes()
        whole = parse_chunked(stream, [])
        check_items(whole, stream)
        assert any(isinstance(i, SSEEvent) for i in whole), path.name
        for size in (1, 2, 3, 7, 30, 4096):
            items = parse_chunked(stream, list(range(0, len(stream), size)))
            assert [as_ref(i) for i in items] == [as_ref(i) for i in whole], (path.name, size)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_capture_any_split_gives_identical_items(captures_dir: Path, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_sse_files(captures_dir)))
    stream = path.read_bytes()
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=200))
    items = parse_chunked(stream, cuts)
    assert [as_ref(i) for i in items] == reference_parse(stream)
