"""StreamSession: one run in a panel: its task, generation, decoder, per-frame batching, signals."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from playground.runs.record import RunRecord
from playground.ui.runtime import idle, lazy
from playground.ui.runtime.frame_rate import FRAME_MS
from playground.ui.runtime.run_sink import RunSinkOfSession

if TYPE_CHECKING:
    import asyncio

    # Types only: the protocol state and its event classes load with the first run, not before
    # the window's first frame.
    from playground.protocol.capture import Capture
    from playground.protocol.sse import SSEItem
    from playground.protocol.state import AudioState, StreamState
    from playground.protocol.stream import StreamDecoder
    from playground.transport.decode_ahead import DecodeAhead
    from playground.transport.errors import TransportError
    from playground.transport.pipeline import FlushingSink, RunSink, ScrubbingSink
    from playground.transport.reader import ThreadedReader
    from playground.transport.spec import RequestSpec
    from playground.ui.runtime.replay import ReplayControl

__all__ = ["FINAL", "StreamSession"]

FINAL = ("complete", "incomplete", "failed", "truncated", "cancelled")
# A run read in frames (ui/runtime/frames.py) gets its update from each frame (update_now), after
# the frame's decoding and before its paint. Its own timer is only a fallback then: at FRAME_MS it
# fired in the frame's yields to Qt (a markdown step and a paint there take 5-20 ms each) and
# the update ran outside the frame, its timeline rows and repaint in the same block (35-50 ms
# under a flood on a 2-core AMD EPYC). Frames come at least every FRAME_MAX_S (50 ms).
FRAMED_FALLBACK_MS = 120
STALL_CHECK_MS = 250


def _has_output(state: StreamState) -> bool:
    from playground.runs.outcome import has_output  # loaded by then: the decoder ran

    return has_output(state)


def _make_decoder(route: str, request: object = None) -> StreamDecoder:
    """The run's decoder, holding the request body so its checks know what was asked."""
    from playground.protocol.stream import StreamDecoder

    return StreamDecoder(
        route, request=request if isinstance(request, dict | str | bytes) else None
    )


class StreamSession(QObject):
    """Runs one stream at a time for a panel and turns its bytes into state the widgets draw."""

    started = Signal()
    updated = Signal()
    finished = Signal(str)
    responded = Signal(int)  # the HTTP status arrived
    stalled = Signal(float)  # no bytes for this many seconds while streaming (the stream goes on)
    jobUpdated = Signal(object)  # a job's JSON (status, progress) as last reported

    def __init__(
        self,
        route: str,
        parent: QObject | None = None,
        *,
        stall_seconds: float = 10.0,
        first_byte_timeout: float = 60.0,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__(parent)
        self.route = route
        self.decoder: StreamDecoder | None = None
        self.run = RunRecord(route=route)
        self.stall_seconds = stall_seconds
        self.first_byte_timeout = first_byte_timeout
        self.connect_timeout = connect_timeout
        # Builds the history journal (a RunSink) for each live run; set by the window.
        self.recorder_factory: Callable[[RequestSpec], RunSink | None] | None = None
        # Gets every network read on the reader thread before the UI thread does (the images
        # view decodes an image while its event still arrives); never raises.
        self.chunk_tap: Callable[[bytes], None] | None = None
        self._next_sinks: list[Callable[[RequestSpec], RunSink | None]] = []
        self._recorders: list[ScrubbingSink] = []
        self._task: asyncio.Task[None] | None = None
        self._generation = 0
        self._pending: list[SSEItem] = []
        self._new: list[SSEItem] = []
        self._error_body = bytearray()
        self._final_emitted = False
        self._stall_reported = False
        self._t0 = 0.0  # perf_counter at the start of the run (for the watchdog)
        self._last_byte_clock = 0.0
        self.replay_control: ReplayControl | None = None
        self._secrets: tuple[str, ...] = ()
        self._flush_armed = False
        self._framed = False  # the live run is read in frames: they emit its updates
        self._counted = False  # this session's run counts in streams_running()
        self._external = False  # the current run is fed from outside (start_external)
        self._ahead: DecodeAhead | None = None  # the live run's decoding on its reader thread
        self._run_target: FlushingSink | None = None  # what the run's byte source feeds
        self._reader: ThreadedReader | None = None  # the live run's reader thread
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FRAME_MS)
        self._flush_timer.timeout.connect(self._flush)
        # The stall watchdog is a Qt timer, so a silent server never blocks the UI.
        self._watchdog = QTimer(self)
        self._watchdog.setInterval(STALL_CHECK_MS)
        self._watchdog.timeout.connect(self._check_stall)

    # ---- public API --------------------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        if self._external:
            return not self._final_emitted
        return self._task is not None and not self._task.done()

    @property
    def silent_seconds(self) -> float:
        """Seconds since the last byte (or the start) of the running stream; 0 when idle."""
        if not self.is_running:
            return 0.0
        return time.perf_counter() - self._last_byte_clock

    @property
    def state(self) -> StreamState | None:
        return self.decoder.state if self.decoder is not None else None

    def error_body(self) -> bytes:
        """The body of a non-2xx answer so far, with any echoed key replaced by [redacted]."""
        from playground.transport.pipeline import scrub_bytes

        return scrub_bytes(bytes(self._error_body), self._secrets)

    def new_items(self) -> list[SSEItem]:
        """Timeline items added since the previous ``updated`` (valid while handling it)."""
        return self._new

    def start(self, spec: RequestSpec, *, allow_insecure_key: bool = False) -> None:
        """Send ``spec``; a run still going is cancelled first (a new Send cancels the old one)."""
        # The run machinery loads with the first run, not with the window (ui/runtime/lazy.py).
        from playground.transport.music import source_for
        from playground.transport.pipeline import JOURNAL_MERGE_S, ScrubbingSink, TeeSink

        # The decoder holds the request, so its checks know what was asked (docs/protocol.md §0).
        sink = self._begin(
            spec.route, spec.json_body if spec.json_body is not None else spec.body_bytes()
        )
        extras: list[RunSink] = []
        # Taken before they run: a factory may ask for the run after this one too (the
        # --save-capture series journals every exchange of a conversation).
        factories, self._next_sinks = self._next_sinks, []
        for factory in (self.recorder_factory, *factories):
            try:
                extra = factory(spec) if factory is not None else None
            except Exception:
                extra = None  # history and captures are conveniences; they never block a run
            if extra is not None:
                extras.append(extra)
        secrets = tuple(spec.secrets())
        self._recorders = [ScrubbingSink(extra, secrets) for extra in extras]
        target: FlushingSink = (
            TeeSink(sink, *self._recorders, merge_s=JOURNAL_MERGE_S) if self._recorders else sink
        )
        # The key's value, to scrub from anything the server echoes back (no key in error
        # messages, the inspector or the history).
        self._secrets = secrets
        source = source_for(spec, self._stream, sink, allow_insecure_key)
        self._run_target = target
        coro = source(target)
        self._task = lazy.run_soon(self._guard(coro, sink.generation))
        if isinstance(target, TeeSink):
            # However the task ends (Stop, a new Send, closing the window), the run's journals
            # end with it: the tee sends its held reads and an end it has not sent yet.
            run = self.run
            self._task.add_done_callback(lambda _task: target.end_if_open(run.t_last_byte or 0.0))

    def add_sink_for_next_run(self, factory: Callable[[RequestSpec], RunSink | None]) -> None:
        """One more RunSink for the next live run only (e.g. the --save-capture journal)."""
        self._next_sinks.append(factory)

    async def _stream(
        self, spec: RequestSpec, sink: FlushingSink, allow_insecure_key: bool
    ) -> None:
        """Read ``spec`` on a reader thread; ``sink`` gets its calls here, once per frame."""
        from playground.transport.decode_ahead import DecodeAhead
        from playground.transport.reader import ThreadedReader
        from playground.ui.runtime.frames import read_in_frames

        decoder = self.decoder
        if decoder is not None and self._ahead is None and sink is self._run_target:
            # The reader thread decodes as it reads; frames only show (transport.decode_ahead).
            # Only the run's own stream: a music job's song is read into a sink of its own.
            self._ahead = DecodeAhead(decoder, _has_output)
        reader = ThreadedReader(
            spec,
            connect_timeout=self.connect_timeout,
            first_byte_timeout=self.first_byte_timeout,
            allow_insecure_key=allow_insecure_key,
        )
        reader.tap = self.chunk_tap
        reader.ahead = self._ahead
        self._reader = reader
        self._framed = True
        try:
            await read_in_frames(reader, sink, self)
        finally:
            self._framed = False

    def start_replay(self, capture: Capture, speed: float) -> ReplayControl:
        """Feed a capture through the same pipeline; speed 0 is instant."""
        from playground.ui.runtime.replay import ReplayControl, replay_capture

        route = capture.route if getattr(capture, "route", None) else "auto"
        sink = self._begin(route or "auto", (getattr(capture, "request", None) or {}).get("body"))
        self.run.replay = True
        self._secrets = ()
        control = ReplayControl(speed=speed)
        self.replay_control = control
        self._recorders = []
        self._task = lazy.run_soon(
            self._guard(replay_capture(capture, sink, control), sink.generation)
        )
        return control

    @property
    def secrets(self) -> tuple[str, ...]:
        """The key values of the live run, to scrub from anything kept of it."""
        return self._secrets

    def start_external(self, route: str, request: object = None) -> RunSink:
        """Begin a run whose bytes come from outside (a proxied exchange): the caller calls the
        returned RunSink on this, the Qt, thread in a reader's order (on_request ... on_end)."""
        sink = self._begin(route, request)
        self._secrets = ()
        self._recorders = []
        self._external = True
        return sink

    def stop(self) -> None:
        """The user stopped it: cancel the task (its finally closes the connection); say so now."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        ahead, reader, target = self._ahead, self._reader, self._run_target
        if ahead is not None and reader is not None and target is not None:
            # What the reader decoded already is in the state: its reads reach the timeline and
            # the journals too (closing first: no read is decoded after, each decoded one queued).
            ahead.close()
            reader.drain(target, None)
        self._stop_decoding_ahead()
        if self.decoder is not None and not self._final_emitted:
            self.decoder.cancel()
            self._finalize()

    async def aclose(self) -> None:
        """Stop and wait until the task has really ended (window closing: no pending tasks left)."""
        task = self._task
        self.stop()
        if task is not None and not task.done():
            await lazy.settle(task, 2.0, quiet=True)
        self._flush_timer.stop()
        self._flush_armed = False
        self._watchdog.stop()
        self._run_over()

    def _run_begins(self) -> None:
        # Until _run_over (from _finalize or aclose): idle-time work waits (ui.idle).
        if not self._counted:
            self._counted = True
            idle.run_started()

    def _run_over(self) -> None:
        if self._counted:
            self._counted = False
            idle.run_ended()

    async def wait(self) -> str:
        """Wait for the current run to end; returns its final status."""
        task = self._task
        if task is not None:
            await lazy.settle(task)
        return self.decoder.state.status if self.decoder is not None else "idle"

    # ---- run lifecycle -----------------------------------------------------------------------
    def _begin(self, route: str, request: object = None) -> RunSinkOfSession:
        old = self._task
        if old is not None and not old.done():
            old.cancel()  # its callbacks are ignored from here: the generation moves on
        self._generation += 1
        self._external = False
        self._stop_decoding_ahead()
        self._reader = None
        self.decoder = _make_decoder(route, request)
        self.run = RunRecord(route=route, started_at=time.time())
        self.replay_control = None
        self._pending = []
        self._new = []
        self._error_body = bytearray()
        self._final_emitted = False
        self._stall_reported = False
        self._t0 = time.perf_counter()
        self._last_byte_clock = self._t0
        self._run_begins()
        self._watchdog.start()
        self.started.emit()
        return RunSinkOfSession(self, self._generation)

    async def _guard(self, coro: Awaitable[None], generation: int) -> None:
        """Run the byte source; whatever escapes it becomes the run's error, never a traceback."""
        try:
            await coro
        except (
            Exception
        ) as exc:  # a bug below us must not take the window down (cancelling is no Exception)
            current = self._generation == generation
            if current:
                self._stop_decoding_ahead()
            if current and self.decoder is not None and not self._final_emitted:
                from playground.runs.outcome import fail_unexpectedly

                fail_unexpectedly(self.decoder.state, exc)
                self._finalize()

    # ---- RunSink (through RunSinkOfSession) ----------------------------------------------------
    def _on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.run.method, self.run.url, self.run.headers, self.run.body = method, url, headers, body
        self._t0 = time.perf_counter()
        self._last_byte_clock = self._t0
        self._schedule()

    def _on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.run.status = status
        if self._secrets:  # a key the server echoes in a header is not shown (Response tab)
            from playground.protocol.redaction import redact_pairs

            headers = redact_pairs(headers, self._secrets)
        self.run.response_headers = list(headers)
        self.run.t_headers = t
        if status < 400 and self.decoder is not None and self._ahead is None:
            self.decoder.set_content_type(self.run.header("content-type"))
        self.responded.emit(status)
        self._schedule()

    def _on_chunk(self, t: float, data: bytes) -> None:
        run = self.run
        run.chunks.append((t, data))
        if run.t_first_byte is None:
            run.t_first_byte = t
        run.t_last_byte = t
        self._last_byte_clock = time.perf_counter()
        if self._stall_reported:
            self._stall_reported = False
            self.stalled.emit(0.0)  # bytes again: the panel hides its stall banner
        if run.status is not None and run.status >= 400:
            self._error_body += data  # the error body is read whole, then parsed once at the end
            return
        decoder = self.decoder
        if decoder is None:
            return
        ahead = self._ahead
        if ahead is not None:
            self._pending.extend(ahead.take())  # decoded on the reader thread, in read order
            if run.t_first_token is None:
                run.t_first_token = ahead.t_first_token
        else:
            self._pending.extend(decoder.feed(data, t))
            if run.t_first_token is None and _has_output(decoder.state):
                from playground.protocol.figures import first_output_time

                # The arrival of the item that carried it, as the finished run's Timing says.
                run.t_first_token = first_output_time(decoder.items, decoder.state) or t
        self._schedule()

    def _audio_arrived(self, audio: AudioState | None, t: float) -> None:
        """Audio decoded beside the run (a job's song) becomes this run's audio."""
        decoder = self.decoder
        if decoder is None:
            return
        decoder.state.audio = audio
        if self.run.t_first_token is None and audio is not None:
            # ``t`` counts from the song's own request; the run's figures count from the job's.
            self.run.t_first_token = max(t, time.perf_counter() - self._t0)
        self._last_byte_clock = time.perf_counter()
        self._schedule()

    def _on_transport_error(self, error: TransportError, t: float) -> None:
        self.run.transport_error = error

    def _on_end(self, t: float) -> None:
        self.run.t_end = t
        decoder = self.decoder
        if decoder is None or self._final_emitted:
            return
        self._stop_decoding_ahead()  # the reader has ended: the UI thread finishes the state
        from playground.runs.outcome import end_run

        self._pending.extend(end_run(self.run, decoder, self.error_body(), t))
        self._finalize()

    def reading(self) -> contextlib.AbstractContextManager[object]:
        """Hold while reading the state outside a frame (a timer, a diff): a live run's reader
        thread changes it, and a dict it grows must not change while it is iterated."""
        ahead = self._ahead
        return ahead.lock if ahead is not None else contextlib.nullcontext()

    def _stop_decoding_ahead(self) -> None:
        """From here on the UI thread alone changes the state (waits for a read being decoded)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.close()

    # ---- batching ------------------------------------------------------------------------------
    def _schedule(self) -> None:
        # A Python flag, not QTimer.isActive(): this runs per chunk, and every call into Qt may
        # hand the GIL to the reader thread (the UI thread then waits to get it back).
        if not self._flush_armed:
            self._flush_armed = True
            self._flush_timer.start(FRAMED_FALLBACK_MS if self._framed else FRAME_MS)

    def update_pending(self) -> bool:
        """Whether an ``updated`` waits for the frame timer (frames.Frames)."""
        return self._flush_armed

    def update_now(self) -> bool:
        """Emit a pending ``updated`` now (the reader's frame is done) rather than on the timer."""
        if not self._flush_armed:
            return False
        self._flush_timer.stop()
        self._flush()
        return True

    def _flush(self) -> None:
        self._flush_armed = False
        self._new = self._pending
        self._pending = []
        self.updated.emit()

    def _finalize(self) -> None:
        self._final_emitted = True
        state = self.decoder.state if self.decoder is not None else None
        if state is not None and state.error is not None and self._secrets:
            from playground.protocol.redaction import scrub

            state.error.message = scrub(state.error.message, *self._secrets)
        self._watchdog.stop()
        self._flush_timer.stop()
        self._flush()
        status = self.decoder.state.status if self.decoder is not None else "failed"
        state = self.decoder.state if self.decoder is not None else None
        for recorder in self._recorders:
            if state is not None:
                with contextlib.suppress(Exception):  # the journal never breaks the run
                    recorder.finish(
                        status,
                        preview=state.text[:200],
                        error=state.error.message if state.error else None,
                        ttft=self.run.t_first_token,
                    )
        self._recorders = []
        self._run_over()
        self.finished.emit(status)

    def _check_stall(self) -> None:
        if self._final_emitted or not self.is_running:
            return
        if self.run.replay and self.replay_control is not None and self.replay_control.paused:
            return
        silent = time.perf_counter() - self._last_byte_clock
        if self.stall_seconds > 0 and silent >= self.stall_seconds:
            self._stall_reported = True
            self.stalled.emit(silent)
