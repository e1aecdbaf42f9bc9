"""The blocking twin of ``stream_request`` for a reader thread: one ``on_chunk`` per socket read.

On a thread of its own, httpx's blocking client reads a stream for about 30% less CPU
than its async client under a private loop, and never sits idle between reads waiting for the
loop to resume reading. Cancellation and deadlines come from wrapping the connection's ``read``
(through httpcore's documented ``trace`` extension, which hands over each new network stream):
the wrapped read waits in short slices and checks a flag between them, so Stop needs no socket
trickery from another thread.

The same RunSink contract as ``stream_request``, with one difference that is the truth of the
wire: the body pieces of one socket read (a server's HTTP chunks, often one per SSE event)
reach ``on_chunk`` as one piece, stamped with the time that read returned. The wrapped read
merges a chunked body's chunks per read before h11 sees them (``chunk_merge``), which takes
h11's per-chunk CPU off the GIL the UI thread needs. Without the wrapper (a stream that never
announced itself) every piece goes out on its own, as before.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

import httpcore
import httpx

from playground.transport.chunk_merge import ChunkMerger
from playground.transport.client import (
    build_wire_request,
    failure_of,
    insecure_key_refusal,
    report_failure,
    silence_error,
)
from playground.transport.errors import TransportError
from playground.transport.pipeline import RunSink
from playground.transport.spec import RequestSpec

__all__ = ["POLL_S", "STREAM_EVENTS", "make_blocking_client", "stream_request_blocking"]

# How long one wait on the socket lasts before the cancel flag and the deadline are checked again:
# the upper bound Stop adds before the connection closes (Stop within 200 ms).
POLL_S = 0.05
# httpcore trace events whose return value is a new network stream the HTTP/1.1 connection reads
# from (after TLS, the TLS stream: the plain one is no longer read).
STREAM_EVENTS = frozenset({"connection.connect_tcp.complete", "connection.start_tls.complete"})
_ALWAYS_OPEN = threading.Event()  # the gate of a caller that gives none
_ALWAYS_OPEN.set()


class Cancelled(Exception):
    """Raised inside a read once the caller asked to stop; never reported as an error."""


class _Deadline(Exception):
    """No body byte within the first-byte deadline, or a gap longer than the stall timeout."""


class _Wire:
    """Wraps the connection's reads: interruptible, deadline-bound, and announcing each one."""

    def __init__(self, cancelled: Callable[[], bool]) -> None:
        self.cancelled = cancelled
        self.installed = False
        self.deadline: float | None = None  # perf_counter by which the next read must return
        self.before_read: Callable[[], None] | None = None  # hands on what the last read held
        self.t_read = 0.0  # perf_counter when the last read returned

    def trace(self, name: str, info: dict[str, Any]) -> None:
        if name in STREAM_EVENTS:
            stream = info.get("return_value")
            if stream is not None and callable(getattr(stream, "read", None)):
                self._install(stream)

    def _install(self, stream: Any) -> None:
        real: Callable[..., bytes] = _socket_read(stream) or stream.read
        clock = time.perf_counter
        merge = ChunkMerger().feed  # one connection per run: one merger per network stream

        def read(max_bytes: int, timeout: float | None = None) -> bytes:
            before = self.before_read
            if before is not None:
                before()  # everything h11 found in the previous read has been taken: pass it on
            while True:
                if self.cancelled():
                    raise Cancelled
                limit = POLL_S
                deadline = self.deadline
                if deadline is not None:
                    left = deadline - clock()
                    if left <= 0:
                        raise _Deadline
                    limit = min(limit, left)
                try:
                    data = real(max_bytes, timeout=limit)
                except httpcore.ReadTimeout:
                    continue  # only our slice ran out: check the flag and the deadline again
                merged = merge(data)
                if data and not merged:
                    continue  # the read held only chunk framing: h11 would take b"" for EOF
                self.t_read = clock()
                return merged

        # An instance attribute: the connection calls ``self._network_stream.read``.
        stream.read = read
        self.installed = True


def _socket_read(stream: Any) -> Callable[..., bytes] | None:
    """httpcore's socket read (``SyncStream.read``) without its ``settimeout`` before each read,
    or None for any other stream (then its own ``read`` is used).

    ``socket.settimeout`` makes two ``fcntl`` calls with the GIL released, even to the value the
    socket already has: at full loopback speed a run's 1,900 reads spent 0.26 s of the reader's
    wall clock there, each release a chance for the GIL to go to the UI thread and the reader to
    wait for it back (profiled on a 2-core AMD EPYC). The wire reads with the same slice again
    and again, so the timeout is set only when it differs from the socket's own (read with
    ``gettimeout``, which asks the OS nothing: a write in between may have changed it).
    The exceptions are httpcore's, as its ``read`` maps them.
    """
    sock = getattr(stream, "_sock", None)
    if type(stream).__name__ != "SyncStream" or not isinstance(sock, socket.socket):
        return None  # a proxy's TLS-in-TLS stream, a test double: its own read
    gettimeout, settimeout, recv = sock.gettimeout, sock.settimeout, sock.recv

    def read(max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            if gettimeout() != timeout:
                settimeout(timeout)
            return recv(max_bytes)
        except TimeoutError as exc:  # socket.timeout
            raise httpcore.ReadTimeout(exc) from exc
        except OSError as exc:
            raise httpcore.ReadError(exc) from exc

    return read


def make_blocking_client(connect_timeout: float = 10.0) -> httpx.Client:
    """A Client that verifies TLS against the system trust store (as ``make_client``)."""
    import truststore

    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # read=None: the first-byte deadline and the stall timeout are the wire's (see _Wire).
    timeout = httpx.Timeout(
        connect=connect_timeout, read=None, write=connect_timeout, pool=connect_timeout
    )
    return httpx.Client(verify=context, timeout=timeout, follow_redirects=False)


def stream_request_blocking(
    spec: RequestSpec,
    sink: RunSink,
    *,
    cancelled: Callable[[], bool],
    connect_timeout: float = 10.0,
    first_byte_timeout: float = 60.0,
    stall_timeout: float | None = None,
    allow_insecure_key: bool = False,
    gate: threading.Event | None = None,
    gate_max_s: float = 0.25,
) -> None:
    """Send ``spec`` and feed ``sink`` from this thread until the end or ``cancelled()``.

    A cancelled run reports no error; ``on_end`` comes last in every case, as in
    ``stream_request``. While ``gate`` is cleared the reader waits (up to ``gate_max_s`` at a
    time) before it takes the next piece of a read: the UI thread clears it for a frame's work,
    which would otherwise wait up to the GIL's switch interval for every call into Qt while
    this thread parses the rest of a large read.
    """
    t0 = time.perf_counter()

    def now() -> float:
        return time.perf_counter() - t0

    body = spec.body_bytes()
    sink.on_request(spec.method, spec.url, spec.redacted_headers(), body)
    secrets = spec.secrets()
    client: httpx.Client | None = None
    response: httpx.Response | None = None
    try:
        refused = insecure_key_refusal(spec, allow_insecure_key)
        if refused is not None:
            sink.on_transport_error(refused, now())
            return
        if cancelled():
            return
        client = make_blocking_client(connect_timeout)
        wire = _Wire(cancelled)
        error: TransportError | None = None
        got_first = False
        pending: list[bytes] = []
        t_pending = 0.0

        def hand_on() -> None:
            # One sink call for what one socket read held (see the module docstring).
            if pending:
                data = pending[0] if len(pending) == 1 else b"".join(pending)
                pending.clear()
                sink.on_chunk(t_pending, data)

        try:
            request = build_wire_request(client, spec, body, {"trace": wire.trace})
            t0 = time.perf_counter()  # times count from the moment the request goes out
            wire.deadline = t0 + first_byte_timeout
            response = client.send(request, stream=True)
            # The headers arrived with the read that completed them: the same clock that stamps
            # each body piece (``t_read``), so the first byte never precedes the headers (a 429's
            # headers and body come in one read; `now()` here is later than that read).
            t_headers = max(wire.t_read - t0, 0.0) if wire.installed and wire.t_read else now()
            sink.on_response(response.status_code, list(response.headers.multi_items()), t_headers)
            if wire.installed:
                wire.before_read = hand_on
            go = gate if gate is not None else _ALWAYS_OPEN
            is_open = go.is_set
            for data in response.iter_raw():
                if not is_open():
                    go.wait(gate_max_s)
                if not data:
                    continue
                if not got_first:
                    got_first = True
                    wire.deadline = None
                if not wire.installed:
                    sink.on_chunk(now(), data)
                    continue
                if not pending:
                    t_pending = wire.t_read - t0
                pending.append(data)
                if stall_timeout is not None:
                    wire.deadline = wire.t_read + stall_timeout
            hand_on()
        except Cancelled:
            hand_on()
        except _Deadline:
            hand_on()
            error = silence_error(got_first, spec.url, stall_timeout, first_byte_timeout)
        except httpx.HTTPError as exc:
            hand_on()
            if cancelled():
                error = None  # the read broke because we stopped it
            else:
                error = failure_of(
                    exc, spec.url, response is not None, connect_timeout, first_byte_timeout
                )
                if error is None:
                    raise
        if error is not None:
            report_failure(sink, error, secrets, now())
    finally:
        if response is not None:
            _close_quietly(response.close)
        if client is not None:
            _close_quietly(client.close)
        sink.on_end(now())


def _close_quietly(closer: Callable[[], None]) -> None:
    try:
        closer()
    except Exception:
        pass  # closing a broken connection may fail; the run's outcome is already decided
