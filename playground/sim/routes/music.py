"""Music as an async job: create, poll, and a WAV `stream_url` heard while it renders."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from playground.sim import voice
from playground.sim.context import SimRequest, new_id
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, HEAD, TERMINATOR, Frame
from playground.sim.melody import RATE, Song
from playground.sim.pace import Pace

DEFAULT_SECONDS = 20.0
MAX_SECONDS = 300.0
RENDER_SPEED = 2.0  # at "realtime" pace a song renders twice as fast as it plays
QUEUED_SECONDS = 0.4
MAX_JOBS = 64


@dataclass(slots=True)
class Job:
    id: str
    prompt: str
    model: str
    seconds: float
    created: float  # time.monotonic() when the job was made
    created_at: int
    pace: Pace
    base: str  # the server's base URL, for stream_url and audio_url

    @property
    def song(self) -> Song:
        return Song(self.prompt, self.seconds)

    @property
    def render_seconds(self) -> float:
        return self.pace.scaled(self.seconds / RENDER_SPEED)

    def queued_seconds(self) -> float:
        return self.pace.scaled(QUEUED_SECONDS)

    def progress(self, now: float | None = None) -> float:
        elapsed = (now or time.monotonic()) - self.created - self.queued_seconds()
        if self.render_seconds <= 0:
            return 1.0 if elapsed >= 0 else 0.0
        return max(0.0, min(1.0, elapsed / self.render_seconds))

    def status(self) -> str:
        if time.monotonic() - self.created < self.queued_seconds():
            return "queued"
        return "completed" if self.progress() >= 1.0 else "rendering"

    def public(self) -> dict[str, Any]:
        status = self.status()
        return {
            "id": self.id,
            "object": "music.job",
            "model": self.model,
            "prompt": self.prompt,
            "status": status,
            "progress": round(self.progress(), 3),
            "duration_seconds": self.seconds,
            "created_at": self.created_at,
            "format": {
                "container": "wav",
                "encoding": "pcm_s16le",
                "sample_rate": RATE,
                "channels": 1,
            },
            "stream_url": f"{self.base}/v1/music/{self.id}/stream",
            "audio_url": f"{self.base}/v1/music/{self.id}/audio" if status == "completed" else None,
        }


def _jobs(request: Request) -> dict[str, Job]:
    jobs: dict[str, Job] = request.app.state.music_jobs
    return jobs


def _missing(job_id: str) -> JSONResponse:
    body = {
        "error": {
            "code": 404,
            "message": f"No music job {job_id}",
            "type": "not_found_error",
            "param": None,
        }
    }
    return JSONResponse(body, status_code=404)


async def _progress_frames(job: Job) -> AsyncIterator[Frame]:
    yield Frame(HEAD, {"type": "music.job.created", "job": job.public()}, event="music.job.created")
    last = -1.0
    while job.status() != "completed":
        await asyncio.sleep(max(0.05, job.render_seconds / 20))
        p = round(job.progress(), 2)
        if p > last and p < 1.0:
            last = p
            data = {"type": "music.job.progress", "id": job.id, "progress": p}
            yield Frame(CONTENT, data, event="music.job.progress")
    done = {"type": "music.job.completed", "job": job.public()}
    yield Frame(CONTENT, done, event="music.job.completed")
    yield Frame(TERMINATOR, "[DONE]")


def _progress_faults() -> RouteFaults:
    def error_tail() -> list[Frame]:
        err = {
            "type": "error",
            "error": {"type": "server_error", "code": "server_error", "message": MIDSTREAM_MESSAGE},
        }
        return [Frame(TERMINATOR, err, event="error"), Frame(TERMINATOR, "[DONE]")]

    def unknown(n: int) -> Frame:
        return Frame(
            CONTENT, {"type": "music.job.sim_annotation", "n": n}, event="music.job.sim_annotation"
        )

    return RouteFaults(error_tail, unknown, trigger_after=1)


async def handle_create(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    body = req.body
    raw = body.get("duration_seconds", body.get("duration", DEFAULT_SECONDS))
    seconds = float(raw) if isinstance(raw, int | float) and raw > 0 else DEFAULT_SECONDS
    jobs = _jobs(request)
    while len(jobs) >= MAX_JOBS:  # keep memory bounded: forget the oldest job
        jobs.pop(next(iter(jobs)))
    base = str(request.base_url).rstrip("/")
    job = Job(
        new_id("music_"),
        str(body.get("prompt") or ""),
        req.model if body.get("model") else "sim-music",
        min(seconds, MAX_SECONDS),
        time.monotonic(),
        int(time.time()),
        req.pace,
        base,
    )
    jobs[job.id] = job
    if req.stream and not req.wants_json_instead:
        return req.sse(_progress_frames(job), _progress_faults())
    return req.json(job.public(), status=200)


async def handle_status(request: Request) -> Response:
    job = _jobs(request).get(request.path_params["job_id"])
    return _missing(request.path_params["job_id"]) if job is None else JSONResponse(job.public())


async def _song_stream(job: Job) -> AsyncIterator[bytes]:
    song = job.song
    yield voice.wav_header(song.total_samples * 2, RATE)  # the header first, sizes known
    bars = song.bar_count()
    gen = song.chunks()
    for i in range(bars):
        ready_at = job.created + job.queued_seconds() + job.render_seconds * (i + 1) / bars
        wait = ready_at - time.monotonic()
        if wait > 0:  # a bar is sent when it has "rendered"
            await asyncio.sleep(wait)
        chunk = await run_in_threadpool(next, gen, b"")
        if chunk:
            yield chunk


async def handle_stream(request: Request) -> Response:
    job = _jobs(request).get(request.path_params["job_id"])
    if job is None:
        return _missing(request.path_params["job_id"])
    return StreamingResponse(
        _song_stream(job),
        media_type="audio/wav",
        headers={"Cache-Control": "no-cache", "X-Music-Job": job.id},
    )


async def handle_audio(request: Request) -> Response:
    job = _jobs(request).get(request.path_params["job_id"])
    if job is None:
        return _missing(request.path_params["job_id"])
    if job.status() != "completed":
        body = {
            "error": {
                "code": 409,
                "message": "The song is still rendering; use stream_url",
                "type": "invalid_request_error",
                "param": None,
            }
        }
        return JSONResponse(body, status_code=409)
    song = job.song
    pcm = await run_in_threadpool(lambda: b"".join(song.chunks()))
    return Response(voice.wav(pcm, RATE), media_type="audio/wav")
