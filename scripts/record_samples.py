"""Record resources/captures/<route>.capture.jsonl: one sample run per route from the simulator.

Each run goes through the program's own pieces: the request body from the editor's builder
(``build_body``), the request from ``build_spec``, the blocking transport, and the capture journal
the window writes runs with (``CaptureJournal``), its final status from the route's decoder. The
simulator runs in-process on 127.0.0.1 at the "fast" pace, so replaying a sample at 1x takes a
few seconds. Re-run after a change to the simulator or the capture format:

    python3 scripts/record_samples.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from playground.assets import SAMPLE_CAPTURES, sample_wav
from playground.protocol.requests import SAMPLE_TOOL, RequestParams, build_body
from playground.protocol.stream import StreamDecoder
from playground.runs.journal import CaptureJournal
from playground.sim.server import SimServer
from playground.transport.blocking import stream_request_blocking
from playground.transport.client import RequestSpec, TeeSink, build_spec
from playground.transport.errors import TransportError
from playground.transport.providers import PROVIDERS

CAPTURES = Path(__file__).resolve().parents[1] / "resources" / "captures"
PACE = {"X-Sim-Pace": "fast"}
SIMULATOR = next(p for p in PROVIDERS if p.builtin)

# What each sample asks for: enough that every widget of its panel has something to show.
PARAMS: dict[str, RequestParams] = {
    "chat": RequestParams(
        model="sim-reasoner",
        prompt="What is the weather like in Paris today?",
        reasoning_effort="medium",
        tools=[SAMPLE_TOOL],
        tool_choice="auto",
        include_usage=True,
    ),
    "responses": RequestParams(
        model="sim-reasoner",
        prompt="Write a haiku about streaming tokens.",
        reasoning_effort="low",
    ),
    "messages": RequestParams(
        model="sim-reasoner",
        prompt="What is the weather like in Paris today?",
        thinking_budget=1024,
        tools=[SAMPLE_TOOL],
    ),
    "images": RequestParams(
        model="sim-image",
        prompt="A lighthouse on a rocky coast at sunset",
        size="256x256",
        partial_images=2,
    ),
    "speech": RequestParams(
        model="sim-tts", input="Hello! This is the playground's built-in simulator speaking."
    ),
    "transcription": RequestParams(model="sim-transcribe"),
    "music": RequestParams(model="sim-music", prompt="A calm piano loop", duration=4.0),
}


class _Decoding:
    """A RunSink feeding the route's decoder, so the journal's end record carries its verdict."""

    def __init__(self, route: str) -> None:
        self.decoder = StreamDecoder(route)
        self.body = bytearray()
        self.status: int | None = None

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        pass

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.status = status
        self.decoder.set_content_type(dict((k.lower(), v) for k, v in headers).get("content-type"))

    def on_chunk(self, t: float, data: bytes) -> None:
        self.body += data
        self.decoder.feed(data, t)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        pass

    def on_end(self, t: float) -> None:
        self.decoder.finish(t)


def _record(spec: RequestSpec, route: str, target: Path) -> _Decoding:
    decoding = _Decoding(route)
    journal = CaptureJournal(target, route, status_source=lambda: decoding.decoder.state.status)
    stream_request_blocking(spec, TeeSink(decoding, journal), cancelled=lambda: False)
    if journal.write_error:
        raise SystemExit(journal.write_error)
    return decoding


def _music_spec(base_url: str, params: RequestParams) -> RequestSpec:
    """The song's own stream: the job is created (no SSE), then its ``stream_url`` is read, as
    the music panel plays a song while it renders (the job's progress alone shows no audio)."""
    body = build_body("music", params)
    body["stream"] = False
    with tempfile.TemporaryDirectory() as scratch:
        job = _record(
            build_spec(SIMULATOR, "music", body, None, base_url=base_url, extra_headers=PACE),
            "music",
            Path(scratch) / "job.capture.jsonl",
        )
    answer: dict[str, Any] = json.loads(bytes(job.body))
    url = answer.get("stream_url") or (answer.get("job") or {}).get("stream_url")
    if not isinstance(url, str):
        raise SystemExit(f"the music job has no stream_url: {answer}")
    headers = {"Accept": "audio/wav, audio/*", **PACE}
    return RequestSpec(SIMULATOR.id, "GET", url, headers, route="music", stream=True)


def main() -> int:
    CAPTURES.mkdir(parents=True, exist_ok=True)
    with SimServer("127.0.0.1", 0) as sim:
        for route in SAMPLE_CAPTURES:
            params = PARAMS[route]
            if route == "music":
                spec = _music_spec(sim.base_url, params)
            else:
                files = None
                if route == "transcription":
                    audio = sample_wav()
                    files = [("file", (audio.name, audio.read_bytes(), "audio/wav"))]
                spec = build_spec(
                    SIMULATOR,
                    route,
                    build_body(route, params),
                    None,
                    base_url=sim.base_url,
                    files=files,
                    extra_headers=PACE,
                )
            target = CAPTURES / f"{route}.capture.jsonl"
            decoding = _record(spec, route, target)
            state = decoding.decoder.state
            print(f"{target.name}: {state.status}, {target.stat().st_size} bytes")
            if state.status != "complete":
                print(f"{route}: the sample did not complete ({state.status})", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
