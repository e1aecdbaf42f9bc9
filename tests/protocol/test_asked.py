"""Checks that know what was asked: ``StreamDecoder(route, request=body)`` holds the answer to it.

PROTOCOL.md §0: a stream asked for but one body answered, ``include_usage`` asked but no usage
chunk (or a usage chunk of the other shape), fewer partial images than ``partial_images`` asked:
each a finding. An error envelope with an HTTP error status is the error, never ``json_body``.
"""

from __future__ import annotations

import base64
import io
import json
import wave
from typing import Any

import pytest
from protocol_helpers import sse

from playground.protocol.asked import NOTHING_ASKED, Asked, asked_from
from playground.protocol.stream import StreamDecoder


def _found(decoder: StreamDecoder) -> list[tuple[str, str, int | None]]:
    return [(f.severity, f.code, f.item) for f in decoder.state.findings]


def _run(
    route: str,
    body: bytes,
    request: dict[str, Any] | bytes | None,
    content_type: str | None = None,
    cut: int = 0,
) -> StreamDecoder:
    decoder = StreamDecoder(route, request=request)
    decoder.set_content_type(content_type)
    if cut:
        decoder.feed(body[:cut], 0.1)
    decoder.feed(body[cut:], 0.2)
    decoder.finish(0.3)
    return decoder


def _wav(frames: int = 2400) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24000)
        w.writeframes(b"\x01\x02" * frames)
    return out.getvalue()


SPEECH_SSE = {"model": "tts", "input": "hi", "voice": "alloy", "stream_format": "sse"}


# -- a stream asked for, one body answered ------------------------------------------------------


@pytest.mark.parametrize("ctype", ["audio/wav", None])
@pytest.mark.parametrize("cut", [0, 3, 50])
def test_speech_sse_answered_with_one_wav_body_is_a_warning_and_still_audio(
    ctype: str | None, cut: int
) -> None:
    wav = _wav()
    decoder = _run("speech", wav, SPEECH_SSE, ctype, cut)
    state = decoder.state
    assert state.status == "complete"
    assert _found(decoder) == [("warning", "audio_body", 0)]
    assert "asked for a stream, got one body" in state.findings[0].message
    # Still shown and playable: the frames behind the WAV header, at the header's rate.
    assert state.audio is not None and bytes(state.audio.data) == b"\x01\x02" * 2400
    assert (state.audio.format, state.audio.container, state.audio.sample_rate) == (
        "pcm",
        "wav",
        24000,
    )


@pytest.mark.parametrize(
    "request_body",
    [
        None,
        {"model": "tts", "input": "hi", "voice": "alloy"},
        {**SPEECH_SSE, "stream_format": "audio"},
    ],
    ids=["unknown", "default-audio", "audio"],
)
def test_one_audio_body_is_no_finding_when_no_stream_was_asked(
    request_body: dict[str, Any] | None,
) -> None:
    decoder = _run("speech", _wav(), request_body, "audio/wav")
    assert (decoder.state.status, _found(decoder)) == ("complete", [])


CHAT_WHOLE = json.dumps(
    {"choices": [{"index": 0, "message": {"content": "whole"}, "finish_reason": "stop"}]}
).encode()


@pytest.mark.parametrize(
    ("request_body", "expected"),
    [
        (None, [("warning", "json_body", 0)]),  # unknown: the playground always asks for a stream
        ({"model": "m", "stream": True}, [("warning", "json_body", 0)]),
        ({"model": "m", "stream": False}, []),
        ({"model": "m"}, []),
    ],
)
def test_json_body_warning_follows_the_request(
    request_body: dict[str, Any] | None, expected: list[tuple[str, str, int]]
) -> None:
    decoder = _run("chat", CHAT_WHOLE, request_body, "application/json")
    assert (decoder.state.status, decoder.state.text) == ("complete", "whole")
    assert _found(decoder) == expected


# -- error envelopes --------------------------------------------------------------------------

ERROR = b'{"error":{"message":"Slow down","type":"rate_limit_error","code":429}}'


@pytest.mark.parametrize("status", [400, 429, 500, 503])
def test_error_envelope_with_http_error_status_is_the_error(status: int) -> None:
    decoder = StreamDecoder("chat", request={"model": "m", "stream": True})
    decoder.fail_before_stream(status, ERROR, "application/json", "1")
    state = decoder.state
    assert state.status == "failed"
    assert state.error is not None and (state.error.message, state.error.status) == (
        "Slow down",
        status,
    )
    assert _found(decoder) == [("error", "http_error", 0)]
    assert decoder.bodies == {0}


@pytest.mark.parametrize("body", [ERROR, ERROR + b"\n", b"\n" + ERROR + b"\r\n"])
def test_error_envelope_body_without_status_is_an_error_not_json_body(body: bytes) -> None:
    decoder = _run("chat", body, {"model": "m", "stream": True})
    assert decoder.state.status == "failed"
    assert _found(decoder) == [("error", "error_body", 0)]


# -- include_usage ----------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({"choices": [choice], **extra})


USAGE = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
WITH_USAGE = {"model": "m", "stream": True, "stream_options": {"include_usage": True}}
WITHOUT_USAGE = {"model": "m", "stream": True}


def test_include_usage_asked_but_no_usage_chunk() -> None:
    body = sse(_chunk({"content": "Hi"}), _chunk({}, "stop"), "[DONE]")
    decoder = _run("chat", body, WITH_USAGE)
    assert decoder.state.status == "complete"
    assert _found(decoder) == [("warning", "no_usage", None)]
    # Not asked, or not known: no such finding.
    assert _found(_run("chat", body, WITHOUT_USAGE)) == []
    assert _found(_run("chat", body, None)) == []


def test_include_usage_chunk_of_the_seed_shape_is_no_finding() -> None:
    usage_chunk = json.dumps({"choices": [], "usage": USAGE})
    body = sse(_chunk({"content": "Hi"}), _chunk({}, "stop"), usage_chunk, "[DONE]")
    decoder = _run("chat", body, WITH_USAGE)
    assert (decoder.state.status, decoder.state.usage, _found(decoder)) == ("complete", USAGE, [])


def test_usage_chunk_with_choices_when_include_usage_was_asked() -> None:
    body = sse(_chunk({"content": "Hi"}), _chunk({}, "stop", usage=USAGE), "[DONE]")
    decoder = _run("chat", body, WITH_USAGE)
    assert decoder.state.status == "complete" and decoder.state.usage == USAGE
    assert _found(decoder) == [("warning", "usage_shape", 1)]
    # Without include_usage that is the seed's shape ("keeps one choice with an empty delta").
    assert _found(_run("chat", body, WITHOUT_USAGE)) == []


def test_usage_chunk_without_choices_when_include_usage_was_not_asked() -> None:
    usage_chunk = json.dumps({"choices": [], "usage": USAGE})
    body = sse(_chunk({"content": "Hi"}), _chunk({}, "stop"), usage_chunk, "[DONE]")
    assert _found(_run("chat", body, WITHOUT_USAGE)) == [("warning", "usage_shape", 2)]
    assert _found(_run("chat", body, None)) == []  # a raw file: no request, no such check


def test_truncated_stream_does_not_also_miss_its_usage() -> None:
    body = sse(_chunk({"content": "Hi"}))
    decoder = _run("chat", body, WITH_USAGE)
    assert decoder.state.status == "truncated"
    assert [code for _, code, _ in _found(decoder)] == ["no_terminator"]


# -- partial_images ---------------------------------------------------------------------------

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()


def _image_stream(partials: int) -> bytes:
    events = [
        "image_generation.partial_image|"
        + json.dumps(
            {"type": "image_generation.partial_image", "b64_json": PIXEL, "partial_image_index": i}
        )
        for i in range(partials)
    ]
    done = json.dumps({"type": "image_generation.completed", "b64_json": PIXEL})
    return sse(*events, f"image_generation.completed|{done}", "[DONE]")


def test_fewer_partial_images_than_asked() -> None:
    asked = {"model": "gpt-image-1", "prompt": "kite", "stream": True, "partial_images": 3}
    decoder = _run("images", _image_stream(1), asked)
    assert decoder.state.status == "complete"
    assert [i.final for i in decoder.state.images] == [False, True]
    assert _found(decoder) == [("info", "fewer_partials", None)]
    assert "1 partial image(s) came; the request asked for 3" in decoder.state.findings[0].message
    assert _found(_run("images", _image_stream(3), asked)) == []
    assert _found(_run("images", _image_stream(1), None)) == []


# -- reading the request ----------------------------------------------------------------------


def test_asked_from_reads_json_bytes_and_multipart_fields() -> None:
    assert asked_from("chat", json.dumps(WITH_USAGE).encode()) == Asked(
        known=True, stream=True, include_usage=True
    )
    # The transport's multipart view: form fields as text (transcription).
    assert asked_from("transcription", {"stream": "true", "file": "@hello.wav (9 bytes)"}) == Asked(
        known=True, stream=True
    )
    assert asked_from("speech", SPEECH_SSE).stream is True
    assert asked_from("images", {"stream": True, "partial_images": "2"}).partial_images == 2
    assert asked_from("chat", b"not json") is NOTHING_ASKED
    assert asked_from("chat", b"[1, 2]") is NOTHING_ASKED


def test_auto_route_reads_the_request_once_the_route_is_known() -> None:
    body = sse(_chunk({"content": "Hi"}), _chunk({}, "stop"), "[DONE]")
    decoder = _run("auto", body, WITH_USAGE)
    assert decoder.route == "chat"
    assert _found(decoder) == [("warning", "no_usage", None)]
