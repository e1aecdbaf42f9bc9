"""The music route: an async job API (``POST /v1/music``), its ``music.job.*`` events, body."""

from __future__ import annotations

from typing import Any

from playground.protocol.params import RequestParams, put
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "prompt": p.prompt or ""}
    put(body, "duration", p.duration)
    body["stream"] = p.stream
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    take(rest, p, "prompt")
    take(rest, p, "duration")


# Seed: "a song can be heard while it renders, from its job's stream_url"; the job's progress
# stream ends with data: [DONE] (docs/simulator.md). The seeds name no final event.
ROUTE = Route(
    name="music",
    title="Music",
    path="/music",
    method="POST",
    sse=False,
    multipart=False,
    decoder="playground.protocol.decoders.music:MusicDecoder",
    build=build,
    read=read,
    terminator=None,
    done="ends_job",
    event_prefixes=("music.job.",),
    audio_body=True,
    other_paths=(("GET", "/music/{id}/stream"),),  # a job's stream_url: the WAV as it renders
)
