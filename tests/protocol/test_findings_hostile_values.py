"""Values of the right field but the wrong kind are findings: a sequence_number that is no
integer, an image whose base64 decodes to something that is no image."""

from __future__ import annotations

import base64
import json

import pytest
from protocol_helpers import decode, sse

from playground.protocol.stream import StreamDecoder

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 40
WEBP = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 40
GIF = b"GIF89a" + b"\x00" * 40


def _responses(seq: object) -> bytes:
    def ev(kind: str, n: object) -> str:
        return f"{kind}|" + json.dumps({"type": kind, "sequence_number": n, "response": {}})

    return sse(
        ev("response.created", 0), ev("response.in_progress", seq), ev("response.completed", 2)
    )


@pytest.mark.parametrize("seq", ["1", 1.5, True, None, [1], {"n": 1}])
def test_a_sequence_number_that_is_not_an_integer_is_a_finding(seq: object) -> None:
    decoder = decode(_responses(seq), "responses")
    found = [f for f in decoder.findings if f.code == "unexpected_shape"]
    assert [f.item for f in found] == [1]
    assert "sequence_number" in found[0].message and "not an integer" in found[0].message
    assert decoder.state.status == "complete"


def test_an_integer_sequence_number_is_no_finding() -> None:
    assert decode(_responses(1), "responses").findings == []


def _image_stream(payload: bytes, kind: str = "image_generation.completed") -> bytes:
    b64 = base64.b64encode(payload).decode()
    return sse(f"{kind}|" + json.dumps({"type": kind, "b64_json": b64, "output_format": "png"}))


@pytest.mark.parametrize(
    "payload",
    [b"hello, this is plain text and no image", b"\x00" * 64, b"<html>not png</html>", b"ab"],
)
@pytest.mark.parametrize("kind", ["image_generation.completed", "image_edit.partial_image"])
def test_base64_that_decodes_to_no_image_is_a_finding(payload: bytes, kind: str) -> None:
    decoder = decode(_image_stream(payload, kind), "images")
    found = [f for f in decoder.findings if f.code == "not_an_image"]
    assert [(f.severity, f.item) for f in found] == [("warning", 0)]
    assert "bad_base64" not in {f.code for f in decoder.findings}


@pytest.mark.parametrize("payload", [PNG, JPEG, WEBP, GIF])
def test_an_image_of_a_known_format_is_no_finding(payload: bytes) -> None:
    decoder = decode(_image_stream(payload), "images")
    assert "not_an_image" not in {f.code for f in decoder.findings}


def test_base64_that_does_not_decode_is_bad_base64_only() -> None:
    body = sse(
        "image_generation.completed|"
        + json.dumps({"type": "image_generation.completed", "b64_json": "!!!not base64!!!"})
    )
    codes = {f.code for f in decode(body, "images").findings}
    assert "bad_base64" in codes and "not_an_image" not in codes


def test_a_whole_images_body_that_is_no_image_is_a_finding() -> None:
    body = json.dumps({"data": [{"b64_json": base64.b64encode(b"plain text body").decode()}]})
    decoder = StreamDecoder("images", stream_requested=False)
    decoder.set_content_type("application/json")
    decoder.feed(body.encode(), 0.0)
    decoder.finish(0.1)
    assert "not_an_image" in {f.code for f in decoder.findings}
