"""The run pipeline: the one RunSink protocol and the sinks built on it (tee, scrub, gate, reader).

A run's calls, in this order (DESIGN.md: the network layer only moves bytes and timings):

1. ``on_request`` once, with the headers already redacted.
2. ``on_response(status, headers, t)`` when the headers arrive. For a status >= 400 the body is
   still delivered through ``on_chunk``.
3. ``on_chunk(t, data)`` per network read, ``t`` in seconds since the request was sent.
4. ``on_transport_error`` at most once, when the request fails below HTTP.
5. ``on_end(t)`` always, last: after success, errors and cancellation alike.

Every byte source (the async client, the blocking client on a reader thread, a replayed capture,
the music job) makes these calls; every consumer (a panel's session, the history, a capture
journal) takes them. The sinks here sit between the two.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from playground.transport.errors import TransportError
from playground.transport.redact import (
    StreamScrubber,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
    scrub_bytes,
)
from playground.transport.thread_priority import READER_NICE, lower_priority

if TYPE_CHECKING:
    import asyncio

    from playground.transport.decode_ahead import DecodeAhead
    from playground.transport.spec import RequestSpec

__all__ = [
    "JOURNAL_MERGE_S",
    "READER_HOLD_MAX_S",
    "EndGate",
    "FlushingSink",
    "Recorder",
    "RunSink",
    "ScrubbingSink",
    "TeeSink",
    "ThreadedReader",
    "scrub_bytes",
]

# Reads that arrive within this many seconds of each other reach the journals (history,
# --save-capture) as one chunk: the same bytes, each chunk's time within 2 ms, but one JSON line
# and one flush per group instead of per read (100,000 reads a second at full speed).
# The decoder still gets every read with its own time.
JOURNAL_MERGE_S = 0.002
READER_HOLD_MAX_S = 0.25  # the longest the reader waits for the UI thread's frame to end


class RunSink(Protocol):
    """Receives one run's request, response, bytes and end (the UI and the history)."""

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None: ...
    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None: ...
    def on_chunk(self, t: float, data: bytes) -> None: ...
    def on_transport_error(self, error: TransportError, t: float) -> None: ...
    def on_end(self, t: float) -> None: ...


class FlushingSink(RunSink, Protocol):
    """A RunSink that may hold calls back; ``flush`` hands on what it holds (once per frame)."""

    def flush(self) -> None: ...


@runtime_checkable
class Recorder(RunSink, Protocol):
    """A journal that also hears the panel's verdict at the end (the history's list entry)."""

    def finish(
        self, status: str | None = None, preview: str | None = None, error: str | None = None
    ) -> None: ...


class TeeSink:
    """A run's sinks in order: the first gets every call as it comes; the others get every call
    too, but with ``merge_s`` set, reads that arrived within ``merge_s`` of each other reach them
    as one chunk (``flush`` sends a pending group; every other call flushes first, so the order
    of calls is kept). ``on_end`` reaches every sink once: ``end_if_open`` ends a run whose byte
    source stopped without saying so (a cancelled task skips its ``on_end``), so its journals are
    closed and kept, never left open for the collector."""

    def __init__(self, first: RunSink, *others: RunSink, merge_s: float | None = None) -> None:
        self.first = first
        self.others = others
        self.merge_s = merge_s
        self.ended = False
        self._parts: list[bytes] = []
        self._t_group = 0.0  # the first read's time in the pending group
        self._t_last = 0.0

    @property
    def sinks(self) -> tuple[RunSink, ...]:
        return (self.first, *self.others)

    def flush(self) -> None:
        parts = self._parts
        if not parts:
            return
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        self._parts = []
        for sink in self.others:
            sink.on_chunk(self._t_last, data)

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.flush()
        self.first.on_request(method, url, headers, body)
        for sink in self.others:
            sink.on_request(method, url, headers, body)

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.flush()
        self.first.on_response(status, headers, t)
        for sink in self.others:
            sink.on_response(status, headers, t)

    def on_chunk(self, t: float, data: bytes) -> None:
        self.first.on_chunk(t, data)
        if self.merge_s is None:
            for sink in self.others:
                sink.on_chunk(t, data)
            return
        parts = self._parts
        if parts and t - self._t_group > self.merge_s:
            self.flush()
            parts = self._parts
        if not parts:
            self._t_group = t
        parts.append(data)
        self._t_last = t

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.flush()
        self.first.on_transport_error(error, t)
        for sink in self.others:
            sink.on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        if self.ended:
            return
        self.ended = True
        self.flush()
        self.first.on_end(t)
        for sink in self.others:
            sink.on_end(t)

    def end_if_open(self, t: float) -> None:
        """The run is over whatever its source said: end it now unless ``on_end`` came."""
        self.on_end(t)


class ScrubbingSink:
    """Passes a run to a journal with any echoed key replaced by [redacted] (no key in the
    history, a capture or an export, whatever the server sends back): in the URL, the request
    body, every header by the redaction rule, and the response bytes, a key split across reads
    included (the tail of each read that could start one waits for the next)."""

    def __init__(self, sink: RunSink, secrets: Sequence[str]) -> None:
        self.sink = sink
        self.secrets = tuple(secrets)
        self._bytes = StreamScrubber(self.secrets)
        self._t_last = 0.0

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.sink.on_request(
            method,
            redact_url(scrub(url, *self.secrets)),
            redact_headers(headers, self.secrets),
            None if body is None else scrub_bytes(body, self.secrets),
        )

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.sink.on_response(status, redact_pairs(headers, self.secrets), t)

    def on_chunk(self, t: float, data: bytes) -> None:
        self._t_last = t
        passed = self._bytes.feed(data)
        if passed:
            self.sink.on_chunk(t, passed)

    def _release(self) -> None:
        """What was held back as a key's possible start, now that no more bytes come."""
        held = self._bytes.flush()
        if held:
            self.sink.on_chunk(self._t_last, held)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self._release()
        message = scrub(error.message, *self.secrets)
        if message != error.message:
            error = TransportError(error.kind, message)
        self.sink.on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        self._release()
        self.sink.on_end(t)

    def finish(
        self, status: str | None = None, preview: str | None = None, error: str | None = None
    ) -> None:
        """The panel's verdict, scrubbed, for a journal that takes one (a history entry)."""
        if isinstance(self.sink, Recorder):
            self.sink.finish(
                status,
                preview=scrub(preview, *self.secrets) if preview else preview,
                error=scrub(error, *self.secrets) if error else error,
            )


class EndGate:
    """Forwards a RunSink's calls but holds ``on_end`` until ``release`` (a job whose run ends
    only when a second stream it started has ended too)."""

    def __init__(self, sink: FlushingSink) -> None:
        self.sink = sink
        self.t_end: float | None = None
        self._t0 = time.perf_counter()

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self._t0 = time.perf_counter()
        self.sink.on_request(method, url, headers, body)

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.sink.on_response(status, headers, t)

    def on_chunk(self, t: float, data: bytes) -> None:
        self.sink.on_chunk(t, data)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.sink.on_transport_error(error, t)

    def on_end(self, t: float) -> None:
        self.t_end = t

    def flush(self) -> None:
        self.sink.flush()

    def release(self) -> None:
        """Hand on the held end, at the later of its own time and now (since the request)."""
        if self.t_end is not None:
            self.sink.on_end(max(self.t_end, time.perf_counter() - self._t0))


# What the reader thread queues for the UI thread: (kind, *arguments) in RunSink order.
_REQUEST, _RESPONSE, _CHUNK, _ERROR, _END = range(5)


class ThreadedReader:
    """One request read by a daemon thread with httpx's blocking client (transport.blocking).

    A socket read costs about twice the CPU under qasync's loop as under plain asyncio, so the
    bytes are read here and the UI thread takes them in batches. This is the transport's RunSink
    on the reader thread: each call becomes one entry in a deque (append and popleft are atomic,
    so no lock per chunk); the UI thread replays the entries to the real sink with ``drain``.
    ``cancel`` may come from the UI thread at any time: the reader sees the flag within
    ``blocking.POLL_S`` and closes the connection. ``hold``/``resume`` pause the reader at its
    next piece of a read while the UI thread does a frame's work. With ``ahead`` set, the reader
    also decodes each read as it arrives (``transport.decode_ahead``), and ``hold`` waits for a
    decode under way, so the UI thread's frame reads a state no thread is changing.
    """

    def __init__(
        self,
        spec: RequestSpec,
        *,
        connect_timeout: float,
        first_byte_timeout: float,
        allow_insecure_key: bool,
    ) -> None:
        self.spec = spec
        self.connect_timeout = connect_timeout
        self.first_byte_timeout = first_byte_timeout
        self.allow_insecure_key = allow_insecure_key
        self.error: BaseException | None = None  # a bug below us, re-raised on the UI thread
        self._queue: deque[tuple[object, ...]] = deque()
        # Gets every network read on the reader thread before the UI thread does; never raises.
        self.tap: Callable[[bytes], None] | None = None
        self.ahead: DecodeAhead | None = None  # decodes each read on this thread (set before start)
        self._holding = False
        self._cancelled = False
        self._go = threading.Event()  # cleared while the UI thread does a frame's work
        self._go.set()
        self._ui_loop: asyncio.AbstractEventLoop | None = None
        self._ended: asyncio.Future[None] | None = None
        self._thread = threading.Thread(target=self._main, name="playground-reader", daemon=True)

    # ---- UI thread -------------------------------------------------------------------------
    def start(self, ui_loop: asyncio.AbstractEventLoop) -> None:
        self._ui_loop = ui_loop
        self._ended = ui_loop.create_future()
        self._thread.start()

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the thread to end; True once it has."""
        ended = self._ended
        assert ended is not None
        if not ended.done():
            import asyncio  # here, not at the top: the first frame imports this module

            await asyncio.wait((ended,), timeout=timeout)
        return ended.done()

    def empty(self) -> bool:
        return not self._queue

    def hold(self) -> None:
        """Pause the reader at its next piece of a read (it waits with the GIL released), and
        wait for the decode of a read under way (at most one read's worth, about 1 ms)."""
        self._go.clear()
        ahead = self.ahead
        if ahead is not None and not self._holding:
            ahead.lock.acquire()
            self._holding = True

    def resume(self) -> None:
        if self._holding:
            self._holding = False
            assert self.ahead is not None
            self.ahead.lock.release()
        self._go.set()

    def cancel(self) -> None:
        """Stop the request: the reader's next wait on the socket raises, and it closes."""
        self._cancelled = True
        self._go.set()

    def cancelled(self) -> bool:
        return self._cancelled

    def drain(self, sink: RunSink, budget: float | None, *, chunks: bool = True) -> bool:
        """Replay queued calls to ``sink``; True when the time budget ran out with more left."""
        queue = self._queue
        popleft = queue.popleft
        deadline = time.perf_counter() + budget if budget is not None else None
        clock = time.perf_counter
        # The entries were built by this class's RunSink methods below: their types are known.
        while queue:
            entry: tuple[Any, ...] = popleft()
            kind = entry[0]
            if kind == _CHUNK:
                if chunks:
                    sink.on_chunk(entry[1], entry[2])
            elif kind == _RESPONSE:
                sink.on_response(entry[1], entry[2], entry[3])
            elif kind == _REQUEST:
                sink.on_request(entry[1], entry[2], entry[3], entry[4])
            elif kind == _ERROR:
                sink.on_transport_error(entry[1], entry[2])
            else:
                sink.on_end(entry[1])
            # Every entry: one socket read may hold hundreds of events (transport.blocking).
            if deadline is not None and clock() > deadline:
                return bool(queue)
        return False

    # ---- reader thread ---------------------------------------------------------------------
    def _main(self) -> None:
        # Below the UI thread: it gets a CPU first, the reader reads in its idle time.
        lower_priority(threading.get_native_id(), READER_NICE)
        try:
            self._read()
        except BaseException as exc:  # handed to the UI thread, where the session reports it
            self.error = exc
        finally:
            ui_loop, ended = self._ui_loop, self._ended
            if ui_loop is not None and ended is not None:
                with contextlib.suppress(RuntimeError):  # the UI loop is gone (shutdown)
                    ui_loop.call_soon_threadsafe(_resolve, ended)

    def _read(self) -> None:
        if self._cancelled:
            return  # stopped before it began: nothing was sent
        from playground.transport.blocking import stream_request_blocking

        stream_request_blocking(
            self.spec,
            self,
            cancelled=self.cancelled,
            connect_timeout=self.connect_timeout,
            first_byte_timeout=self.first_byte_timeout,
            allow_insecure_key=self.allow_insecure_key,
            gate=self._go,
            gate_max_s=READER_HOLD_MAX_S,
        )

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self._queue.append((_REQUEST, method, url, headers, body))

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        ahead = self.ahead
        if ahead is not None:
            content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
            ahead.on_response(status, content_type)
        self._queue.append((_RESPONSE, status, headers, t))

    def on_chunk(self, t: float, data: bytes) -> None:
        # The pause for the UI thread's frame is the transport's gate (``gate=self._go``) and,
        # while it decodes ahead, the decoding lock.
        tap = self.tap
        if tap is not None:
            tap(data)  # before the UI thread can see the read
        ahead = self.ahead
        if ahead is None:
            self._queue.append((_CHUNK, t, data))
            return
        with ahead.lock:  # decoded and queued at once: once closed, every decoded read is queued
            if ahead.closed:
                return  # read after the run was stopped: dropped, as Stop drops what follows
            ahead.on_chunk(t, data)  # decoded before the entry exists: the UI finds it ready
            self._queue.append((_CHUNK, t, data))

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self._queue.append((_ERROR, error, t))

    def on_end(self, t: float) -> None:
        self._queue.append((_END, t))


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
