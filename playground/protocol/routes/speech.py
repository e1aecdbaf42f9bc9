"""The speech route: path, its ``speech.audio.*`` events (or raw audio bytes), its body."""

from __future__ import annotations

from typing import Any

from playground.protocol.params import RequestParams, put
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "input": p.input or p.prompt or ""}
    put(body, "voice", p.voice)
    stream_format = p.stream_format or ("sse" if p.stream else None)
    response_format = p.response_format
    if stream_format == "sse" and response_format is None:
        # Seed "Streaming": only pcm is streamed as it is made.
        response_format = "pcm"
    put(body, "response_format", response_format)
    put(body, "speed", p.speed)
    put(body, "stream_format", stream_format)
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    take(rest, p, "input")
    for key in ("voice", "response_format", "speed", "stream_format"):
        take(rest, p, key)
    p.stream = p.stream_format == "sse"


# docs/protocol.md §6: stream_format "sse" gives speech.audio.delta events ending with
# speech.audio.done; otherwise the answer is the audio file itself.
ROUTE = Route(
    name="speech",
    title="Speech",
    path="/audio/speech",
    method="POST",
    sse=True,
    multipart=False,
    decoder="playground.protocol.decoders.speech:SpeechDecoder",
    build=build,
    read=read,
    terminator="speech.audio.done",
    done="after",
    event_prefixes=("speech.audio.",),
    audio_body=True,
    stream_key=False,
)
