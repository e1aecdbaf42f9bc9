"""Byte sources by request: one stream, or music's job and the song it names (ordinary sink calls).

Music is an async job (seed: "heard from its job's stream_url while it renders"). The job is
created with the editor's body (``stream: true`` gives the simulator's SSE progress events): that
answer is the run the timeline shows, so its errors fail the run like any route's. Once the job
names its ``stream_url``, the song's WAV streams beside it, decoded on its own, and each new
piece of its audio goes to the listener; the run's ``on_end`` waits until both have ended. The
session that consumes the run sees RunSink calls and a listener's calls, never a route.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from playground.protocol import safe_json
from playground.transport.errors import TransportError
from playground.transport.pipeline import EndGate, FlushingSink
from playground.transport.spec import RequestSpec

if TYPE_CHECKING:
    import asyncio

    from playground.protocol.state import AudioState
    from playground.protocol.stream import StreamDecoder

__all__ = ["ByteSource", "JobListener", "Read", "is_job", "source_for"]

# Reads ``spec`` into ``sink`` (the session's reader and frame loop); the bool: send a key over
# plain http anyway (the user agreed).
Read = Callable[[RequestSpec, FlushingSink, bool], Awaitable[None]]
# Feeds one run's RunSink calls into the sink it is given, then returns.
ByteSource = Callable[[FlushingSink], Awaitable[None]]
_JSON_MAX = 1_000_000  # a whole JSON job answer is small; anything bigger is not one


class JobListener(Protocol):
    """What a job reports beside its run's bytes (the session of the run that started it)."""

    def on_job(self, job: dict[str, object]) -> None:
        """The job's JSON (status, progress) as it was last reported."""

    def on_audio(self, audio: AudioState | None, t: float) -> None:
        """The song's audio so far (``t``: seconds since the song's own request)."""

    def run_failed(self) -> bool:
        """Whether the job's run has failed (then the song is not waited for)."""


def is_job(spec: RequestSpec) -> bool:
    """Whether ``spec`` creates a job whose result streams from a second URL."""
    return spec.route == "music" and spec.method == "POST"


def source_for(
    spec: RequestSpec, read: Read, listener: JobListener, allow_insecure_key: bool
) -> ByteSource:
    """The byte source of ``spec``: the request itself, or a job and its song."""
    if is_job(spec):
        return _MusicJob(spec, read, listener, allow_insecure_key).run

    async def stream(sink: FlushingSink) -> None:
        await read(spec, sink, allow_insecure_key)

    return stream


class _MusicJob:
    """One music job: its own stream into the run's sink, the song into the listener."""

    def __init__(
        self, spec: RequestSpec, read: Read, listener: JobListener, allow_insecure_key: bool
    ) -> None:
        self.spec = spec
        self.read = read
        self.listener = listener
        self.allow_insecure_key = allow_insecure_key
        self.audio_task: asyncio.Task[None] | None = None
        headers = {
            k: v
            for k, v in spec.headers.items()
            if k.lower() not in ("content-type", "x-sim-fault")
        }
        headers["Accept"] = "audio/wav, audio/*"
        self.song_headers = headers

    async def run(self, sink: FlushingSink) -> None:
        import asyncio  # here, not at the top: the first frame imports this module

        gate = EndGate(sink)
        watcher = _JobWatcher(gate, self.job_seen)
        try:
            await self.read(self.spec, watcher, self.allow_insecure_key)
            job = watcher.whole_json() if self.audio_task is None and watcher.ok else None
            if isinstance(job, dict):
                self.start_song(job)  # a job answered as JSON
            audio = self.audio_task
            if audio is not None and not self.listener.run_failed():
                await asyncio.shield(audio)
        finally:
            audio = self.audio_task
            if audio is not None and not audio.done():
                audio.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await audio
            gate.release()

    def job_seen(self, payload: object) -> None:
        """A job event: report status and progress, start the song's stream once it is named."""
        if not isinstance(payload, dict):
            return
        job = payload.get("job")
        if isinstance(job, dict):
            self.listener.on_job(job)
            self.start_song(job)
        elif isinstance(payload.get("progress"), int | float):
            self.listener.on_job({"status": "rendering", "progress": payload["progress"]})

    def start_song(self, job: dict[str, object]) -> None:
        if self.audio_task is not None:
            return
        url = job.get("stream_url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return
        spec = RequestSpec(
            self.spec.provider_id, "GET", url, dict(self.song_headers), route="music", stream=True
        )
        import asyncio

        self.audio_task = asyncio.ensure_future(self._song(spec))

    async def _song(self, spec: RequestSpec) -> None:
        from playground.protocol.stream import StreamDecoder

        feed = _SongFeed(StreamDecoder("music"), self.listener)
        with contextlib.suppress(Exception):  # a broken song stream leaves the job's run standing
            await self.read(spec, feed, self.allow_insecure_key)


class _JobWatcher:
    """Forwards the job's RunSink calls and reads its events' JSON for the job's own fields."""

    def __init__(self, sink: EndGate, seen: Callable[[object], None]) -> None:
        self.sink = sink
        self.seen = seen
        self.ok = True  # the answer's status is below 400
        self._parser: object | None = None
        self._body = bytearray()

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.sink.on_request(method, url, headers, body)

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.ok = status < 400
        self.sink.on_response(status, headers, t)

    def on_chunk(self, t: float, data: bytes) -> None:
        self.sink.on_chunk(t, data)
        if not self.ok:
            return
        if len(self._body) <= _JSON_MAX:
            self._body += data
        from playground.protocol.sse import SSEEvent, SSEParser

        parser = self._parser
        if not isinstance(parser, SSEParser):
            parser = self._parser = SSEParser()
        for item in parser.feed(data, t):
            if type(item) is SSEEvent:
                try:
                    payload = safe_json.loads(item.data)
                except ValueError:
                    continue
                self.seen(payload)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.ok = False
        self.sink.on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        self.sink.on_end(t)

    def flush(self) -> None:
        self.sink.flush()

    def whole_json(self) -> object:
        """The answer as one JSON value (a job created without SSE); None when it is not one."""
        if not self._body or len(self._body) > _JSON_MAX:
            return None
        try:
            value: object = safe_json.loads(bytes(self._body))
        except ValueError:
            return None
        return value


class _SongFeed:
    """The RunSink of the song's stream: its bytes become audio for the listener."""

    def __init__(self, decoder: StreamDecoder, listener: JobListener) -> None:
        self.decoder = decoder
        self.listener = listener
        self.ok = False

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        pass

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.ok = status < 400
        ctype = next((v for k, v in headers if k.lower() == "content-type"), None)
        self.decoder.set_content_type(ctype)

    def on_chunk(self, t: float, data: bytes) -> None:
        if self.ok:
            self.decoder.feed(data, t)
            self._arrived(t)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        pass

    def on_end(self, t: float) -> None:
        if self.ok:
            self.decoder.finish(t)
            self._arrived(t)

    def flush(self) -> None:
        pass

    def _arrived(self, t: float) -> None:
        self.listener.on_audio(self.decoder.state.audio, t)
