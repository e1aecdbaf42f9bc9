"""Music: the job's SSE progress (``POST /v1/music`` with ``stream: true``) and stray JSON events.

The seed pages document no SSE for music (docs/protocol.md §7, Vultr, "Music": a song is
heard while it renders, from its job's ``stream_url``). That audio (WAV PCM) is read on the
stream decoder's raw-audio path, which feeds ``StreamState.add_audio``. The job itself may report
its progress as SSE (docs/simulator.md, "Music"): ``music.job.created`` (the job),
``music.job.progress`` (``{id, progress}``), ``music.job.completed`` (the job with ``audio_url``),
then ``data: [DONE]``. Those fill ``state.job`` / ``progress`` / ``job_status``; a job that
completes ends the stream (``[DONE]`` after it is documented). A ``failed`` job, or an error
event, is the run's error.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.decoders.base import RouteDecoder, as_str
from playground.protocol.errors import payload_error
from playground.protocol.events import AudioChunk, Finished, JobUpdate, StreamError, StreamEvent
from playground.protocol.sse import SSEEvent

__all__ = ["MusicDecoder", "job_update"]

_DONE: Final = frozenset({"completed", "succeeded", "done"})
_FAILED: Final = frozenset({"failed", "error", "cancelled", "canceled"})


def _progress(value: Any) -> float | None:
    if type(value) in (int, float) and value == value:  # not NaN
        return min(1.0, max(0.0, float(value)))
    return None


def job_update(payload: dict[str, Any]) -> JobUpdate | None:
    """The job news in a music event or body: ``{"job": {...}}``, a bare job, or ``{progress}``."""
    job = payload.get("job")
    if type(job) is not dict:
        job = payload if payload.get("object") == "music.job" else None
    source = job if job is not None else payload
    progress = _progress(source.get("progress"))
    status = as_str(source.get("status"))
    if job is None and progress is None and status is None:
        return None
    if status in _DONE and progress is None:
        progress = 1.0
    return JobUpdate(job=job, progress=progress, status=status)


class MusicDecoder(RouteDecoder):
    route: ClassVar[str] = "music"

    def __init__(self, sink: Any, asked: Asked = NOTHING_ASKED) -> None:
        super().__init__(sink, asked)
        self._last_progress: float | None = None

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        err = payload_error(payload)
        if err is not None:
            self.error(ev, err, out)
            return
        if type(payload) is not dict:
            self.sink.report("unexpected_shape", "event is not a JSON object", ev.index)
            return
        kind = as_str(payload.get("type")) or (ev.event if ev.event != "message" else None)
        audio = as_str(payload.get("audio")) or as_str(payload.get("delta"))
        if audio is not None:
            out.append(AudioChunk(audio))
        update = job_update(payload)
        if update is not None:
            self._check_progress(ev, update.progress)
            out.append(update)
            status = update.status
            # A named event says what it is (a job created already complete is not the end:
            # `music.job.completed` follows); an unnamed one goes by the job's status.
            named = kind is not None and kind.startswith("music.job.")
            if kind == "music.job.completed" or (not named and status in _DONE):
                out.append(Finished(status or "completed", terminal=True))
            elif kind == "music.job.failed" or (not named and status in _FAILED):
                message = "the music job failed"
                job = update.job or {}
                detail = job.get("error") if isinstance(job.get("error"), dict) else None
                if detail is not None and isinstance(detail.get("message"), str):
                    message = detail["message"]
                self.error(ev, StreamError(message, type="job_failed"), out, final=status)
            return
        if audio is None:
            self.unknown(ev, kind or ev.event)

    def _check_progress(self, ev: SSEEvent, progress: float | None) -> None:
        if progress is None:
            return
        last = self._last_progress
        if last is not None and progress < last:
            self.sink.once(
                "progress_back",
                "out_of_order",
                f"the job's progress went back from {last:g} to {progress:g}",
                ev.index,
            )
        self._last_progress = progress
