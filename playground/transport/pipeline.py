"""The run pipeline: the one RunSink protocol and the sinks built on it (tee, scrub, gate).

A run's calls, in this order (docs/design.md: the network layer only moves bytes and timings):

1. ``on_request`` once, with the headers already redacted.
2. ``on_response(status, headers, t)`` when the headers arrive. For a status >= 400 the body is
   still delivered through ``on_chunk``.
3. ``on_chunk(t, data)`` per network read, ``t`` in seconds since the request was sent.
4. ``on_transport_error`` at most once, when the request fails below HTTP.
5. ``on_end(t)`` always, last: after success, errors and cancellation alike.

Every byte source (the async client, the blocking client on a reader thread, a replayed capture,
the music job) makes these calls; every consumer (a panel's session, the history, a capture
journal) takes them. The sinks here sit between the two; the reader thread that feeds a live
run's calls to the UI thread is ``transport/reader.py``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from playground.protocol.redaction import (
    StreamScrubber,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
    scrub_bytes,
)
from playground.transport.errors import TransportError

if TYPE_CHECKING:
    from playground.transport.errors import TransportError

__all__ = [
    "JOURNAL_MERGE_S",
    "EndGate",
    "FlushingSink",
    "Recorder",
    "RunSink",
    "ScrubbingSink",
    "TeeSink",
    "scrub_bytes",
]

# Reads that arrive within this many seconds of each other reach the journals (history,
# --save-capture) as one chunk: the same bytes, each chunk's time within 2 ms, but one JSON line
# and one flush per group instead of per read (100,000 reads a second at full speed).
# The decoder still gets every read with its own time.
JOURNAL_MERGE_S = 0.002


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
        self,
        status: str | None = None,
        preview: str | None = None,
        error: str | None = None,
        ttft: float | None = None,
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
        self,
        status: str | None = None,
        preview: str | None = None,
        error: str | None = None,
        ttft: float | None = None,
    ) -> None:
        """The panel's verdict, scrubbed, for a journal that takes one (a history entry)."""
        if isinstance(self.sink, Recorder):
            self.sink.finish(
                status,
                preview=scrub(preview, *self.secrets) if preview else preview,
                error=scrub(error, *self.secrets) if error else error,
                ttft=ttft,
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
