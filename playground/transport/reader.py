"""The reader thread: one request read with httpx's blocking client, handed to the UI thread.

A RunSink on the reader thread (``transport/pipeline.py`` says the calls and their order) that
queues each call; the UI thread replays them to the run's real sink in frames (``drain``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playground.transport.thread_priority import READER_NICE, lower_priority

if TYPE_CHECKING:
    import asyncio

    from playground.transport.decode_ahead import DecodeAhead
    from playground.transport.errors import TransportError
    from playground.transport.pipeline import RunSink
    from playground.transport.spec import RequestSpec

__all__ = ["READER_HOLD_MAX_S", "ThreadedReader"]

READER_HOLD_MAX_S = 0.25  # the longest the reader waits for the UI thread's frame to end


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
