"""Long events (partial images) are parsed from their bytes, and read exactly as short ones."""

from __future__ import annotations

import base64
import json

import pytest
from protocol_helpers import decode

from playground.protocol.event_json import LONG_EVENT as _LONG_EVENT

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400).decode()


def image_event(prompt: bytes, *, named: bool) -> bytes:
    body = json.dumps({"type": "image_generation.partial_image", "b64_json": PNG}).encode()
    body = body[:-1] + b',"revised_prompt":"' + prompt + b'","partial_image_index":0}'
    name = b"event: image_generation.partial_image\n" if named else b""
    return name + b"data: " + body + b"\n\n"


@pytest.mark.parametrize("named", [True, False])
@pytest.mark.parametrize("read", [65536, 4096, 1000])
def test_a_long_event_reads_as_its_text_does(named: bool, read: int) -> None:
    event = image_event("caf\u00e9 \U0001f600".encode(), named=named)
    assert len(event) > _LONG_EVENT
    decoder = decode(event, "images", cuts=list(range(read, len(event), read)))
    (image,) = decoder.state.images
    assert decoder.payload(0) == json.loads(event.split(b"data: ", 1)[1])
    assert image.b64 is None or image.b64 == PNG
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [f for f in decoder.findings if f.code == "invalid_json"]


def test_invalid_utf8_in_a_long_event_reads_as_replacement_characters() -> None:
    event = image_event(b"bad \xff byte", named=True)
    decoder = decode(event, "images", cuts=[70_000])
    (image,) = decoder.state.images
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"  # parsed despite the bad byte, as text is
    assert [f.code for f in decoder.findings if f.code == "invalid_utf8"] == ["invalid_utf8"]


def test_a_long_event_that_is_not_json_is_reported() -> None:
    event = b"data: {" + b"x" * (_LONG_EVENT + 10) + b"\n\n"
    decoder = decode(event, "images", cuts=[5000])
    assert [f.code for f in decoder.findings if f.code == "invalid_json"] == ["invalid_json"]
