"""Incremental base64 and the image-string scanner: exactly what the event says, or nothing."""

from __future__ import annotations

import base64
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.b64_progress import B64Decoder, B64Error, ImageStringScanner
from playground.protocol.media import b64decode_lenient


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def _decode_in_pieces(text: bytes, cuts: list[int]) -> bytes:
    decoder = B64Decoder()
    out = b"".join(decoder.feed(piece) for piece in _pieces(text, cuts))
    return out + decoder.finish()


_TEXT = st.one_of(
    st.binary(max_size=300).map(base64.b64encode),
    st.binary(max_size=300).map(base64.urlsafe_b64encode),
    st.binary(max_size=300).map(lambda b: base64.b64encode(b).rstrip(b"=")),
    st.text(alphabet="ABCxyz019+/-_= \n.", max_size=60).map(str.encode),
)


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_pieces_decode_exactly_as_the_lenient_decoder_or_give_up(
    text: bytes, cuts: list[int]
) -> None:
    expected = b64decode_lenient(text.decode())
    try:
        got = _decode_in_pieces(text, cuts)
    except B64Error:
        # Giving up is always allowed (the caller decodes the whole text the usual way); it is
        # required where the lenient decoder fails.
        return
    assert expected is not None and got == expected


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000), st.lists(st.integers(min_value=0, max_value=3000), max_size=12))
def test_what_servers_send_always_decodes(data: bytes, cuts: list[int]) -> None:
    for text in (base64.b64encode(data), base64.b64encode(data).rstrip(b"=")):
        assert _decode_in_pieces(text, cuts) == data
    assert _decode_in_pieces(base64.urlsafe_b64encode(data), cuts) == data


def test_padding_in_the_middle_and_stray_letters_give_up() -> None:
    decoder = B64Decoder()
    decoder.feed(b"QUJD=")
    with pytest.raises(B64Error):
        decoder.feed(b"QUJD")
    with pytest.raises(B64Error):
        B64Decoder().feed(b"QU JD")
    assert _decode_in_pieces(b"QUJDRA==", [6, 7]) == b"ABCD"


class _Sink:
    """Records what the scanner hands on: finished strings, and how many were aborted."""

    def __init__(self) -> None:
        self.done: list[bytes] = []
        self.aborted = 0
        self.open: bytearray | None = None

    def begin(self) -> None:
        assert self.open is None
        self.open = bytearray()

    def text(self, piece: bytes) -> None:
        assert self.open is not None
        self.open += piece

    def end(self) -> None:
        assert self.open is not None
        self.done.append(bytes(self.open))
        self.open = None

    def abort(self) -> None:
        assert self.open is not None
        self.aborted += 1
        self.open = None


def _event(kind: str, field: str, b64: str, *, spaced: bool = False, slash: bool = False) -> bytes:
    payload = {"type": kind, field: b64, "partial_image_index": 0, "size": "1024x1024"}
    body = json.dumps(payload, separators=None if spaced else (",", ":"))
    if slash:
        body = body.replace("/", "\\/")  # what PHP's json_encode writes
    return f"event: {kind}\ndata: {body}\n\n".encode()


def _scan(stream: bytes, rng: random.Random, sizes: tuple[int, int] = (1, 70000)) -> _Sink:
    sink = _Sink()
    scanner = ImageStringScanner(sink)
    pos = 0
    while pos < len(stream):
        step = rng.randint(*sizes)
        scanner.feed(stream[pos : pos + step])
        pos += step
    return sink


def _b64(rng: random.Random, n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def test_scanner_finds_each_image_string_whatever_the_reads() -> None:
    rng = random.Random(7)
    texts = [_b64(rng, 60_000 + i * 977) for i in range(4)]
    stream = (
        b": keep-alive\n\n"
        + _event("image_generation.partial_image", "b64_json", texts[0])
        + _event("response.image_generation_call.partial_image", "partial_image_b64", texts[1])
        + _event("image_generation.completed", "b64_json", texts[2], spaced=True)
        + _event("image_generation.partial_image", "b64_json", texts[3], slash=True)
        + b'data: {"type":"image_generation.partial_image","b64_json":"QUJD"}\n\n'  # short
        + b"data: [DONE]\n\n"
    )
    for seed in range(25):
        sizes = (1, 64) if seed < 3 else (1, 70000)
        sink = _scan(stream, random.Random(seed), sizes)
        assert [t.decode() for t in sink.done] == texts
        assert sink.aborted == 0 and sink.open is None


def test_scanner_gives_up_on_line_ends_escapes_and_cut_streams() -> None:
    rng = random.Random(3)
    text = _b64(rng, 100_000)
    half = len(text) * 3 // 4  # past 64 KiB and a read: the scanner announced it
    cut = text[:half] + "\n" + text[half:]
    escaped = text[:half] + "\\u0041" + text[half:]
    whole = _event("image_generation.partial_image", "b64_json", text)
    stream = (
        f'data: {{"b64_json":"{cut}"}}\n\n'.encode()
        + f'data: {{"b64_json":"{escaped}"}}\n\n'.encode()
        + whole
    )
    for seed in range(10):
        sink = _scan(stream, random.Random(seed), (1, 9000))
        assert sink.done == [text.encode()]  # the broken ones never end; the good one does
        assert sink.aborted == 2
    sink = _Sink()
    scanner = ImageStringScanner(sink)
    scanner.feed(whole[: len(whole) // 2])  # the connection dropped mid-image
    assert sink.open is not None and not sink.done
    scanner.reset()
    assert sink.open is None and sink.aborted == 1 and not sink.done
