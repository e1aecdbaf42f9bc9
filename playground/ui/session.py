"""StreamSession: the Qt seam per panel; owns the asyncio task, feeds the decoder, batches."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from playground.runs.record import RunRecord
from playground.transport.music import source_for
from playground.transport.pipeline import (
    JOURNAL_MERGE_S,
    FlushingSink,
    RunSink,
    ScrubbingSink,
    TeeSink,
    ThreadedReader,
    scrub_bytes,
)
from playground.ui import gc_defer

if TYPE_CHECKING:
    # Types only: the protocol state and its event classes load with the first run, not before
    # the window's first frame (issue 7: startup).
    from playground.protocol.capture import Capture
    from playground.protocol.sse import SSEItem
    from playground.protocol.state import AudioState, StreamState
    from playground.protocol.stream import StreamDecoder
    from playground.transport.errors import TransportError
    from playground.transport.spec import RequestSpec
    from playground.ui.replay import ReplayControl

__all__ = [
    "FRAME_MS",
    "QUIET_S",
    "StreamSession",
    "has_output",
    "idle_now",
    "streams_running",
    "when_idle",
]

FRAME_MS = 16  # coalesce widget updates to about one per frame (DESIGN.md "Seams and habits")
FRAME_PACE = 2.0  # under a flood, the wait before the next frame over this frame's work
FRAME_MAX_S = 0.05  # ... up to this (20 frames a second at the least)
# The longest the UI thread spends feeding a backlog before it lets Qt paint and run timers
# (issue 7: ui_stall_p99_ms <= 50 with a 5 ms probe timer).
DRAIN_BUDGET_S = 0.004
FINAL = ("complete", "incomplete", "failed", "truncated", "cancelled")


_live_runs = 0  # runs (of any session) between their start and their end; UI thread only
_last_end = 0.0  # time.monotonic() when the last run ended
# After a run ends the window is not idle yet: its last frames, the Markdown render and the
# reader's eyes are on the answer. Deferred work (hidden panels, docks, the full garbage
# collection) waits this long after the last end, so it never lands on a stream's last frames.
QUIET_S = 1.0


def streams_running() -> int:
    """How many runs stream now, in any panel: idle-time work should wait while any does."""
    return _live_runs


def idle_now() -> bool:
    """True when no run streams and none ended within ``QUIET_S``: time for deferred work."""
    return _live_runs == 0 and time.monotonic() - _last_end >= QUIET_S


def when_idle(context: QObject, work: Callable[[], None], delay_ms: int) -> None:
    """Run ``work`` on the UI thread ``delay_ms`` from now, or later: as soon after that as
    ``idle_now()`` (a stream and its last moments are no idle time; issue 7: stalls). Nothing
    runs once ``context`` is gone."""

    def run() -> None:
        if idle_now():
            work()
        else:
            QTimer.singleShot(delay_ms, context, run)

    QTimer.singleShot(delay_ms, context, run)


def has_output(state: StreamState) -> bool:
    """Whether anything a person would call "the answer" has arrived (for time to first token)."""
    choice = state.choices.get(0)
    if choice is not None and (choice.text or choice.reasoning or choice.refusal):
        return True
    if any(c.text or c.reasoning for c in state.choices.values()):
        return True
    return bool(
        state.tool_calls
        or state.images
        or (state.audio is not None and state.audio.data)
        or state.segments
        or state.done_text
    )


def _make_decoder(route: str) -> StreamDecoder:
    from playground.protocol.stream import StreamDecoder

    return StreamDecoder(route)


class _RunSink:
    """The RunSink of one run: the session forwards only while this run is its current one."""

    def __init__(self, session: StreamSession, generation: int) -> None:
        self.session = session
        self.generation = generation

    def _live(self) -> bool:
        return self.session._generation == self.generation

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        if self._live():
            self.session._on_request(method, url, headers, body)

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        if self._live():
            self.session._on_response(status, headers, t)

    def on_chunk(self, t: float, data: bytes) -> None:
        if self._live():
            self.session._on_chunk(t, data)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        if self._live():
            self.session._on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        if self._live():
            self.session._on_end(t)

    def flush(self) -> None:
        """Nothing is held here: the session batches its own updates per frame."""

    # ---- JobListener: what a job reports beside its bytes ------------------------------------
    def on_job(self, job: dict[str, object]) -> None:
        if self._live():
            self.session.jobUpdated.emit(job)

    def on_audio(self, audio: AudioState | None, t: float) -> None:
        if self._live():
            self.session._audio_arrived(audio, t)

    def run_failed(self) -> bool:
        session = self.session
        state = session.state
        return state is None or state.error is not None or session.run.transport_error is not None


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
        # view decodes an image while its event still arrives, issue 7); never raises.
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
        self._counted = False  # this session's run counts in streams_running()
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FRAME_MS)
        self._flush_timer.timeout.connect(self._flush)
        # The stall watchdog is a Qt timer, so a silent server never blocks the UI (issue 5).
        self._watchdog = QTimer(self)
        self._watchdog.setInterval(250)
        self._watchdog.timeout.connect(self._check_stall)

    # ---- public API --------------------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def state(self) -> StreamState | None:
        return self.decoder.state if self.decoder is not None else None

    def error_body(self) -> bytes:
        """The body of a non-2xx answer so far, with any echoed key replaced by [redacted]."""
        return scrub_bytes(bytes(self._error_body), self._secrets)

    def new_items(self) -> list[SSEItem]:
        """Timeline items added since the previous ``updated`` (valid while handling it)."""
        return self._new

    def start(self, spec: RequestSpec, *, allow_insecure_key: bool = False) -> None:
        """Send ``spec``; a run still going is cancelled first (issue 5: a new Send cancels)."""
        sink = self._begin(spec.route)
        extras: list[RunSink] = []
        for factory in (self.recorder_factory, *self._next_sinks):
            try:
                extra = factory(spec) if factory is not None else None
            except Exception:
                extra = None  # history and captures are conveniences; they never block a run
            if extra is not None:
                extras.append(extra)
        self._next_sinks = []
        secrets = tuple(spec.secrets())
        self._recorders = [ScrubbingSink(extra, secrets) for extra in extras]
        target: FlushingSink = (
            TeeSink(sink, *self._recorders, merge_s=JOURNAL_MERGE_S) if self._recorders else sink
        )
        # The key's value, to scrub from anything the server echoes back (issue 5: no key in
        # error messages, the inspector or the history).
        self._secrets = tuple(spec.secrets())
        source = source_for(spec, self._stream, sink, allow_insecure_key)
        coro = source(target)
        self._task = asyncio.ensure_future(self._guard(coro, sink.generation))

    def add_sink_for_next_run(self, factory: Callable[[RequestSpec], RunSink | None]) -> None:
        """One more RunSink for the next live run only (e.g. the --save-capture journal)."""
        self._next_sinks.append(factory)

    async def _stream(
        self, spec: RequestSpec, sink: FlushingSink, allow_insecure_key: bool
    ) -> None:
        """Read ``spec`` off the UI thread; hand what arrived to ``sink`` here, once per frame.

        Issue 7: a socket read costs about twice the CPU under qasync's loop as under plain
        asyncio, so the bytes are read by a reader thread (httpx's blocking client, one entry per
        socket read) and the UI thread takes them in batches. ``sink`` still gets every RunSink
        call, in order, on this thread.
        """
        reader = ThreadedReader(
            spec,
            connect_timeout=self.connect_timeout,
            first_byte_timeout=self.first_byte_timeout,
            allow_insecure_key=allow_insecure_key,
        )
        reader.tap = self.chunk_tap
        loop = asyncio.get_running_loop()
        reader.start(loop)
        frame = FRAME_MS / 1000
        wait = frame
        clock = time.perf_counter
        try:
            while True:
                ended = await reader.wait(wait)
                began = clock()
                # The frame's work runs with the reader paused: otherwise every call between
                # Python and Qt (a model's data() per cell painted, a file flush) hands the GIL
                # to the busy reader and waits up to the switch interval to get it back.
                reader.hold()
                try:
                    while reader.drain(sink, DRAIN_BUDGET_S):
                        # More than a slice's worth waited: let Qt paint and run timers first.
                        await asyncio.sleep(0)
                    sink.flush()
                    if self._flush_armed:
                        await asyncio.sleep(0)  # Qt's timers between the decoding and the widgets
                    if self._flush_now():
                        # Paint now, while the reader is paused: painting a widget subclassed in
                        # Python (and a model's data() per cell) enters Python many times, and
                        # each entry would wait for the GIL behind a busy reader. Two rounds of
                        # Qt's loop first: a text view adjusts its scroll bars from a queued call
                        # and a zero timer, and fewer repaints come after the reader resumed.
                        # Each round also lets Qt run its timers (issue 7: ui_stall_p99_ms counts
                        # every block longer than 5 ms).
                        await asyncio.sleep(0)
                        await asyncio.sleep(0)
                        _paint_now()
                finally:
                    reader.resume()
                if ended and reader.empty():
                    break
                # A flood costs 10-20 ms of UI thread per frame, half of it painting: the next
                # frame waits FRAME_PACE times as long as this one took, so frames take at most
                # about a third of the UI thread (input, timers and the reader get the rest).
                # A stream at reading speed keeps one frame per FRAME_MS.
                wait = min(max(frame, (clock() - began) * FRAME_PACE), FRAME_MAX_S)
        except BaseException:
            # Stopped, replaced by a new Send, or the sink failed: close the connection now and
            # hand over what the transport says on its way out (on_end), but no more bytes.
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader.wait(1.0)
            reader.drain(sink, None, chunks=False)
            sink.flush()
            raise
        if reader.error is not None:
            raise reader.error

    def start_replay(self, capture: Capture, speed: float) -> ReplayControl:
        """Feed a capture through the same pipeline; speed 0 is instant."""
        from playground.ui.replay import ReplayControl, replay_capture

        route = capture.route if getattr(capture, "route", None) else "auto"
        sink = self._begin(route or "auto")
        self.run.replay = True
        self._secrets = ()
        control = ReplayControl(speed=speed)
        self.replay_control = control
        self._recorders = []
        self._task = asyncio.ensure_future(
            self._guard(replay_capture(capture, sink, control), sink.generation)
        )
        return control

    def stop(self) -> None:
        """The user stopped it: cancel the task (its finally closes the connection); say so now."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        if self.decoder is not None and not self._final_emitted:
            self.decoder.cancel()
            self._finalize()

    async def aclose(self) -> None:
        """Stop and wait until the task has really ended (window closing: no pending tasks left)."""
        task = self._task
        self.stop()
        if task is not None and not task.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 2.0)
        self._flush_timer.stop()
        self._flush_armed = False
        self._watchdog.stop()
        self._run_over()

    def _run_begins(self) -> None:
        # Until _run_over (from _finalize or aclose): no full garbage collection mid-stream (an
        # 80 ms pause, gc_defer.py), and streams_running() tells idle-time work to wait.
        global _live_runs
        if not self._counted:
            self._counted = True
            _live_runs += 1
            gc_defer.hold()

    def _run_over(self) -> None:
        global _live_runs, _last_end
        if self._counted:
            self._counted = False
            _live_runs -= 1
            _last_end = time.monotonic()
            # The full collection waits out the quiet time too (a new run holds it again first).
            QTimer.singleShot(int(QUIET_S * 1000), gc_defer.release)

    async def wait(self) -> str:
        """Wait for the current run to end; returns its final status."""
        task = self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(task)
        return self.decoder.state.status if self.decoder is not None else "idle"

    # ---- run lifecycle -----------------------------------------------------------------------
    def _begin(self, route: str) -> _RunSink:
        old = self._task
        if old is not None and not old.done():
            old.cancel()  # its callbacks are ignored from here: the generation moves on
        self._generation += 1
        self.decoder = _make_decoder(route)
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
        return _RunSink(self, self._generation)

    async def _guard(self, coro: Any, generation: int) -> None:
        """Run the byte source; whatever escapes it becomes the run's error, never a traceback."""
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug below us must not take the window down
            current = self._generation == generation and self.decoder is not None
            if current and self.decoder is not None and not self._final_emitted:
                from playground.protocol.state import ErrorInfo

                self.decoder.state.error = ErrorInfo(
                    message=f"The run failed unexpectedly ({type(exc).__name__}).",
                    type="internal",
                )
                self.decoder.state.status = "failed"
                self._finalize()

    # ---- RunSink (through _RunSink) -------------------------------------------------------------
    def _on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.run.method, self.run.url, self.run.headers, self.run.body = method, url, headers, body
        self._t0 = time.perf_counter()
        self._last_byte_clock = self._t0
        self._schedule()

    def _on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.run.status = status
        self.run.response_headers = list(headers)
        self.run.t_headers = t
        if status < 400 and self.decoder is not None:
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
        items = decoder.feed(data, t)
        self._pending.extend(items)
        if run.t_first_token is None and has_output(decoder.state):
            run.t_first_token = t
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
        run = self.run
        run.t_end = t
        decoder = self.decoder
        if decoder is None or self._final_emitted:
            return
        if run.status is not None and run.status >= 400:
            from playground.transport.errors import describe_http_error

            ctype = run.header("content-type")
            run.retry_after = run.header("retry-after")
            body = self.error_body()
            shown = len(decoder.items)
            decoder.fail_before_stream(run.status, body, ctype, run.retry_after)
            self._pending.extend(decoder.items[shown:])  # the error body's own timeline row
            run.http_error = describe_http_error(run.status, body, ctype, run.retry_after)
        else:
            self._pending.extend(decoder.finish(t))
            error = run.transport_error
            if error is not None:
                state = decoder.state
                if state.error is None:
                    from playground.protocol.state import ErrorInfo

                    state.error = ErrorInfo(message=error.message, type=error.kind)
                # A connection dropped mid-stream stays "truncated" (the decoder decided that at
                # finish, PROTOCOL.md §0); anything else that broke the request failed it.
                if not (error.kind == "dropped" and run.t_first_byte is not None):
                    state.status = "failed"
            if run.t_first_token is None and has_output(decoder.state):
                run.t_first_token = t
        self._finalize()

    # ---- batching ------------------------------------------------------------------------------
    def _schedule(self) -> None:
        # A Python flag, not QTimer.isActive(): this runs per chunk, and every call into Qt may
        # hand the GIL to the reader thread (issue 7: the UI thread then waits to get it back).
        if not self._flush_armed:
            self._flush_armed = True
            self._flush_timer.start()

    def _flush_now(self) -> bool:
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
            from playground.transport.redact import scrub

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


def _paint_now() -> None:
    """Deliver the paint requests the widgets have posted (QEvent.UpdateRequest) right away."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateRequest)
