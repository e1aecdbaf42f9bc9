"""The StreamDecoder contract: pre-stream errors, cancel, content types, raw audio, payload()."""

from __future__ import annotations

import io
import json
import struct
import wave

import pytest
from protocol_helpers import sse

from playground.protocol.sse import SSEItem
from playground.protocol.stream import StreamDecoder


@pytest.mark.parametrize(
    ("body", "message", "etype", "code"),
    [
        (
            b'{"error":{"message":"Bad key","type":"invalid_request_error","param":null,'
            b'"code":"invalid_api_key"}}',
            "Bad key",
            "invalid_request_error",
            "invalid_api_key",
        ),
        (
            b'{"error":{"code":402,"message":"Insufficient credits",'
            b'"metadata":{"error_type":"payment_required"}}}',
            "Insufficient credits",
            "payment_required",
            402,
        ),
        (
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}',
            "Overloaded",
            "overloaded_error",
            None,
        ),
        (b'{"message":"No API key provided"}', "No API key provided", None, None),
        (
            b'{"type":"error","code":"rate_limit","message":"Slow down"}',
            "Slow down",
            None,
            "rate_limit",
        ),
        (b"<html>Bad Gateway</html>", "HTTP 502: <html>Bad Gateway</html>", None, None),
        (b"", "HTTP 502 (empty body)", None, None),
    ],
)
def test_fail_before_stream_reads_every_envelope(
    body: bytes, message: str, etype: str | None, code: str | int | None
) -> None:
    decoder = StreamDecoder("chat")
    decoder.fail_before_stream(502, body, "application/json", retry_after="7")
    state = decoder.state
    assert state.status == "failed"
    assert state.error is not None
    assert (state.error.message, state.error.type, state.error.code) == (message, etype, code)
    assert (state.error.status, state.error.retry_after) == (502, "7")
    assert [f.code for f in decoder.findings_for(0)] == ["http_error"]


def test_cancel_keeps_text_and_wins_over_truncated() -> None:
    decoder = StreamDecoder()
    decoder.feed(sse(json.dumps({"choices": [{"index": 0, "delta": {"content": "Hi"}}]})), 0.0)
    decoder.cancel()
    decoder.finish(1.0)
    assert (decoder.state.status, decoder.state.text) == ("cancelled", "Hi")
    assert "no_terminator" not in {f.code for f in decoder.state.findings}


def test_cancel_after_the_end_changes_nothing() -> None:
    decoder = StreamDecoder()
    decoder.feed(
        sse(json.dumps({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}), "[DONE]"), 0.0
    )
    decoder.finish(1.0)
    decoder.cancel()
    assert decoder.state.status == "complete"


def test_cancel_after_the_terminator_but_before_the_end_keeps_complete() -> None:
    # What a client that closes on [DONE] (the openai SDK) leaves: the terminator, no body end.
    decoder = StreamDecoder()
    decoder.feed(
        sse(json.dumps({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}), "[DONE]"), 0.0
    )
    decoder.cancel()
    decoder.finish(1.0)
    assert (decoder.state.status, decoder.state.text) == ("complete", "Hi")


def test_items_are_the_timeline_and_payload_is_cached() -> None:
    decoder = StreamDecoder()
    body = sse(": hi", json.dumps({"choices": [{"index": 0, "delta": {"content": "x"}}]}), "[DONE]")
    returned: list[SSEItem] = []
    for i in range(len(body)):
        returned += decoder.feed(body[i : i + 1], i / 1000)
    returned += decoder.finish(1.0)
    assert returned == decoder.items
    assert [item.index for item in decoder.items] == [0, 1, 2]
    assert decoder.payload(0) is None and decoder.payload(2) is None and decoder.payload(99) is None
    first = decoder.payload(1)
    assert first == {"choices": [{"index": 0, "delta": {"content": "x"}}]}
    assert decoder.payload(1) is first


def _wav(frames: bytes, rate: int = 44100, channels: int = 2) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return buf.getvalue()


@pytest.mark.parametrize("piece", [1, 7, 44, 4096])
def test_music_wav_body_goes_through_the_audio_path(piece: int) -> None:
    frames = b"".join(struct.pack("<hh", i, -i) for i in range(4410))
    data = _wav(frames)
    decoder = StreamDecoder("music")
    decoder.set_content_type("audio/wav")
    for i in range(0, len(data), piece):
        decoder.feed(data[i : i + piece], 0.0)
    decoder.finish(0.0)
    audio = decoder.state.audio
    assert audio is not None
    assert (audio.format, audio.container) == ("pcm", "wav")
    assert (audio.sample_rate, audio.channels, audio.sample_width) == (44100, 2, 2)
    assert bytes(audio.data) == frames  # header stripped, PCM kept
    assert audio.seconds == pytest.approx(0.1)
    assert decoder.state.status == "complete"


def test_pcm_hint_is_kept_unless_a_riff_header_says_otherwise() -> None:
    decoder = StreamDecoder("speech", audio_format="pcm")
    decoder.set_content_type("audio/pcm")
    decoder.feed(b"\xff\xfb\x90\x00" * 8, 0.0)  # looks like an MP3 frame sync, is PCM
    decoder.finish(0.0)
    assert decoder.state.audio is not None and decoder.state.audio.format == "pcm"
    assert len(decoder.state.audio.data) == 32

    wav = StreamDecoder("speech", audio_format="pcm")
    wav.set_content_type("audio/wav")
    wav.feed(_wav(b"\x01\x00" * 10, rate=24000, channels=1), 0.0)
    wav.finish(0.0)
    assert wav.state.audio is not None
    assert (wav.state.audio.container, bytes(wav.state.audio.data)) == ("wav", b"\x01\x00" * 10)


def test_speech_audio_body_mp3_guessed() -> None:
    decoder = StreamDecoder("speech")
    decoder.set_content_type("application/octet-stream")
    decoder.feed(b"\xff\xf3\xc4\xc4" + b"\0" * 100, 0.0)
    decoder.finish(0.0)
    assert decoder.state.audio is not None and decoder.state.audio.format == "mp3"


def test_route_is_auto_until_recognised() -> None:
    decoder = StreamDecoder()
    assert decoder.route == "auto"
    decoder.feed(b": keep-alive\n\n", 0.0)
    assert decoder.route == "auto"
    decoder.feed(b'event: message_start\ndata: {"type":"message_start","message":{}}\n\n', 0.0)
    assert decoder.route == "messages" and decoder.state.route == "messages"


def test_unknown_route_name_is_refused() -> None:
    with pytest.raises(ValueError):
        StreamDecoder("nope")


def test_music_without_content_type_sniffs_the_body() -> None:
    wav = StreamDecoder("music")
    wav.feed(_wav(b"\x02\x00" * 8, rate=32000, channels=1), 0.0)
    wav.finish(0.0)
    assert wav.state.audio is not None and wav.state.audio.sample_rate == 32000
    assert bytes(wav.state.audio.data) == b"\x02\x00" * 8

    events = StreamDecoder("music")
    events.feed(b'data: {"error": {"message": "job failed"}}\n\n', 0.0)
    events.finish(0.0)
    assert events.state.audio is None
    assert events.state.error is not None and events.state.error.message == "job failed"


@pytest.mark.parametrize("cut", [0, 1, 3, 10])
def test_json_error_body_without_content_type_is_sniffed(cut: int) -> None:
    # e.g. `playground inspect` on a saved error body, or a server that forgot its content type.
    body = b'\n{"error": {"message": "model not found", "code": 404}}'
    decoder = StreamDecoder()
    if cut:
        decoder.feed(body[:cut], 0.0)
    decoder.feed(body[cut:], 0.0)
    decoder.finish(0.0)
    state = decoder.state
    assert state.status == "failed"
    assert state.error is not None and (state.error.message, state.error.code) == (
        "model not found",
        404,
    )
    # The envelope is the error, not an answer in the wrong shape: no json_body (PROTOCOL.md §0).
    assert [(f.severity, f.code) for f in state.findings] == [("error", "error_body")]


@pytest.mark.parametrize("body", [b"", b"\n\n", b"   "])
def test_empty_or_blank_body_is_truncated(body: bytes) -> None:
    decoder = StreamDecoder()
    decoder.feed(body, 0.0)
    decoder.finish(0.0)
    assert decoder.state.status == "truncated"
    codes = {f.code for f in decoder.state.findings}
    assert "no_terminator" in codes
    assert ("empty_stream" in codes) == (body == b"")


def test_chat_fast_path_folds_exactly_like_decode_and_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from protocol_helpers import CAPTURES, decode, snapshot

    from playground.protocol.decoders.chat import ChatDecoder

    paths = sorted((CAPTURES / "chat").glob("*.sse"))
    fast = [snapshot(decode(p.read_bytes())) for p in paths]
    monkeypatch.setattr(ChatDecoder, "plain_text", lambda self, ev, payload: None)
    slow = [snapshot(decode(p.read_bytes())) for p in paths]
    assert len(paths) >= 16
    assert fast == slow
