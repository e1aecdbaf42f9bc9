"""The music job as a byte source: job events to the listener, the song beside it, one end."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from playground.transport.music import ByteSource, is_job, source_for
from playground.transport.spec import RequestSpec

JOB = {"id": "m1", "object": "music.job", "status": "queued", "progress": 0.0}
SONG_URL = "http://127.0.0.1:9/v1/music/m1/stream"


class Listener:
    def __init__(self) -> None:
        self.jobs: list[dict[str, object]] = []
        self.audio: list[float] = []

    def on_job(self, job: dict[str, object]) -> None:
        self.jobs.append(job)

    def on_audio(self, audio: Any, t: float) -> None:
        self.audio.append(t)

    def run_failed(self) -> bool:
        return False


class Sink:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_request(self, method: str, url: str, headers: Any, body: Any) -> None:
        self.calls.append("request")

    def on_response(self, status: int, headers: Any, t: float) -> None:
        self.calls.append(f"response {status}")

    def on_chunk(self, t: float, data: bytes) -> None:
        self.calls.append("chunk")

    def on_transport_error(self, error: Any, t: float) -> None:
        self.calls.append("error")

    def on_end(self, t: float) -> None:
        self.calls.append("end")

    def flush(self) -> None:
        pass


def _event(name: str, payload: dict[str, object]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()


async def _drain(source: ByteSource, sink: Any) -> None:
    """Run a byte source into ``sink`` (asyncio.run takes a coroutine, a source gives an
    awaitable)."""
    await source(sink)


def _fake_read(order: list[str]) -> Any:
    async def read(spec: RequestSpec, sink: Any, insecure: bool) -> None:
        sink.on_request(spec.method, spec.url, {}, None)
        if spec.method == "POST":
            sink.on_response(200, [("content-type", "text/event-stream")], 0.01)
            sink.on_chunk(0.02, _event("music.job.created", {"job": JOB}))
            sink.on_chunk(0.03, _event("music.job.progress", {"progress": 0.5}))
            done = {**JOB, "status": "completed", "stream_url": SONG_URL}
            sink.on_chunk(0.04, _event("music.job.completed", {"job": done}))
            order.append("job ended")
        else:
            order.append(f"song {spec.url} accept={spec.headers.get('Accept')}")
            await asyncio.sleep(0.05)
            sink.on_response(200, [("content-type", "audio/wav")], 0.01)
            order.append("song ended")
        sink.on_end(0.05)

    return read


def test_the_job_reports_its_progress_streams_its_song_and_ends_after_both() -> None:
    spec = RequestSpec(
        "simulator",
        "POST",
        "http://127.0.0.1:9/v1/music",
        {"X-Sim-Fault": "none"},
        {"stream": True},
        route="music",
    )
    assert is_job(spec) and not is_job(RequestSpec("simulator", "GET", SONG_URL, {}))
    order: list[str] = []
    listener, sink = Listener(), Sink()
    asyncio.run(_drain(source_for(spec, _fake_read(order), listener, False), sink))
    assert [j.get("status") for j in listener.jobs] == ["queued", "rendering", "completed"]
    assert order == ["job ended", f"song {SONG_URL} accept=audio/wav, audio/*", "song ended"]
    # The song's request carries no simulator fault; the run's end waited for the song.
    assert sink.calls == ["request", "response 200", "chunk", "chunk", "chunk", "end"]


def test_any_other_request_is_read_as_it_is() -> None:
    spec = RequestSpec("simulator", "POST", "http://127.0.0.1:9/v1/chat/completions", {})
    order: list[str] = []
    sink = Sink()
    asyncio.run(_drain(source_for(spec, _fake_read(order), Listener(), False), sink))
    assert sink.calls[0] == "request" and sink.calls[-1] == "end"
