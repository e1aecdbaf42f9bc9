"""The transcription route: path, multipart upload, its ``transcript.text.*`` events, its body."""

from __future__ import annotations

from typing import Any

from playground.protocol.params import RequestParams, put
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    # Multipart form fields; the file goes beside them (params.form_fields).
    body: dict[str, Any] = {"model": p.model}
    put(body, "language", p.language)
    put(body, "response_format", p.response_format)
    put(body, "temperature", p.temperature)
    put(body, "prompt", p.prompt)
    body["stream"] = p.stream
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    for key in ("language", "response_format", "temperature", "prompt"):
        take(rest, p, key)


# docs/protocol.md §6: stream=true gives transcript.text.delta events ending with
# transcript.text.done.
ROUTE = Route(
    name="transcription",
    title="Transcription",
    path="/audio/transcriptions",
    method="POST",
    sse=True,
    multipart=True,
    decoder="playground.protocol.decoders.transcription:TranscriptionDecoder",
    build=build,
    read=read,
    terminator="transcript.text.done",
    done="after",
    event_prefixes=("transcript.text.",),
)
