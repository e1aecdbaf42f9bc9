"""Large images fold without decoding their base64 (off the UI thread); the result is the same."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.media import b64_size, b64decode_lenient
from playground.protocol.stream import StreamDecoder


def _png(width: int, height: int, extra: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes(range(256)) * 3 for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"tEXt", b"c\x00" + bytes(extra))
        + chunk(b"IDAT", zlib.compress(rows[: width * 3 * height + height]))
        + chunk(b"IEND", b"")
    )


def _stream(b64: str) -> bytes:
    body = {"type": "image_generation.partial_image", "b64_json": b64, "partial_image_index": 0}
    return b"event: image_generation.partial_image\ndata: " + json.dumps(body).encode() + b"\n\n"


@settings(max_examples=1000)
@given(st.text(alphabet="AZaz09+/-_= \n\t\x0b\x1c\xa0\xe9*", max_size=40))
def test_b64_size_is_the_decoded_length_or_none(text: str) -> None:
    data = b64decode_lenient(text)
    assert b64_size(text) == (None if data is None else len(data))


@pytest.mark.parametrize(
    "where", ["none", "bad letter in the second piece", "padding mid-text", "url-safe", "cut"]
)
def test_b64_size_of_a_multi_piece_text_is_the_decoded_length_or_none(where: str) -> None:
    """Texts longer than one piece of the check (it hands the GIL over between pieces)."""
    text = base64.b64encode(bytes(range(256)) * 2100 + b"xy").decode()  # 716,804 characters
    assert len(text) > 2 * (1 << 18) and text.endswith("=")
    if where == "bad letter in the second piece":
        text = text[: (1 << 18) + 5] + "*" + text[(1 << 18) + 6 :]
    elif where == "padding mid-text":
        text = text[: 1 << 18] + "==" + text[(1 << 18) :]
    elif where == "url-safe":
        text = text.replace("+", "-").replace("/", "_")
    elif where == "cut":
        text = text[:-3]
    data = b64decode_lenient(text)
    assert b64_size(text) == (None if data is None else len(data))
    if where in ("none", "url-safe"):
        assert data is not None and len(data) == 256 * 2100 + 2


def test_a_large_image_is_decoded_on_first_read_with_the_same_result() -> None:
    png = _png(256, 64, 200_000)
    b64 = base64.b64encode(png).decode()
    decoder = StreamDecoder("images")
    decoder.set_content_type("text/event-stream")
    decoder.feed(_stream(b64), 0.5)
    image = decoder.state.images[0]
    assert not image.decoded  # folded from the header; the base64 waits for a reader
    assert (image.width, image.height, image.output_format, image.nbytes) == (
        256,
        64,
        "png",
        len(png),
    )
    assert image.data == png
    assert image.decoded
    assert decoder.findings == []


def test_bad_large_base64_is_reported_when_folded() -> None:
    png = _png(256, 64, 200_000)
    b64 = base64.b64encode(png).decode()
    broken = b64[:100_000] + "!!" + b64[100_000:]
    decoder = StreamDecoder("images")
    decoder.set_content_type("text/event-stream")
    decoder.feed(_stream(broken), 0.5)
    assert [f.code for f in decoder.findings] == ["bad_base64"]
    image = decoder.state.images[0]
    assert image.decoded and image.data == png[: len(image.data)] and image.width == 256
