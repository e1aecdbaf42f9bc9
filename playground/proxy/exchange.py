"""Each relayed exchange as a transport-level record, and the hub telling listeners about it live.

The relay calls the hub at each step of an exchange, in this order, from the proxy's event loop:

1. ``on_start(ex)``: the request line and headers arrived (``request_headers`` redacted).
2. ``on_request(ex)``: the whole request body is read (``request_body``, ``facts``).
3. ``on_response(ex)``: the upstream's status and headers (redacted) arrived, or the proxy's own
   502 when the upstream failed before answering.
4. ``on_chunk(ex, t, data)`` per read, as it is passed on to the client (``t`` in seconds since
   the request went upstream, the clock captures and the decoder use).
5. ``on_end(ex)`` always, last: ``outcome`` says how it ended.

A listener (the command's printer, the capture recorder, a window's traffic panel) must be quick:
it runs between two reads of a stream. It runs on the proxy's loop thread; a Qt listener hands
each call to its own thread with a queued signal. A listener that raises is reported once on
stderr and never stops a relay: nothing a listener does may cost a client its bytes.
"""

from __future__ import annotations

import datetime
import itertools
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Final, Protocol

from playground.proxy.bodies import RequestFacts
from playground.transport.errors import TransportErrorKind

__all__ = ["OUTCOMES", "Exchange", "ExchangeHub", "ExchangeListener", "Listener"]

# "done": the upstream's answer was relayed whole; "cancelled": the client left first;
# "dropped": the upstream cut the body short (the client's connection is cut the same way);
# "failed": the upstream could not be reached or did not answer (the client got the proxy's 502).
OUTCOMES: Final = ("open", "done", "cancelled", "dropped", "failed")
# Exchanges the hub remembers for a late subscriber (a panel opened later); each holds its
# request body, so not many.
RECENT: Final = 200


def _now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


@dataclass(eq=False, slots=True)
class Exchange:
    """One request through the proxy and what came back; headers are redacted, never the key."""

    id: int
    method: str
    path: str  # as the client asked it, query included
    route: str | None  # the playground route (None: a path it knows no grammar of)
    url: str  # where it went upstream (secrets scrubbed)
    request_headers: list[tuple[str, str]]
    started_at: str = field(default_factory=_now_iso)
    t0: float = field(default_factory=time.perf_counter)  # when the request went upstream
    request_body: bytes | None = None
    facts: RequestFacts = field(default_factory=lambda: RequestFacts(False, None, None, None))
    http_status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    t_response: float | None = None
    t_first_byte: float | None = None
    bytes: int = 0
    outcome: str = "open"
    error_kind: TransportErrorKind | None = (
        None  # a TransportError kind when the upstream failed or dropped
    )
    error: str | None = None  # what happened, one sentence (secrets scrubbed)
    t_end: float | None = None
    capture: str | None = None  # the capture file written for it, once finished
    secrets: tuple[str, ...] = field(default=(), repr=False)  # to scrub from kept text only

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def header(self, name: str) -> str | None:
        """A response header, case-insensitively (the first when repeated)."""
        wanted = name.lower()
        for key, value in self.response_headers:
            if key.lower() == wanted:
                return value
        return None


class ExchangeListener(Protocol):
    """Told about every exchange as it happens (see the module docstring for the order)."""

    def on_start(self, ex: Exchange) -> None: ...
    def on_request(self, ex: Exchange) -> None: ...
    def on_response(self, ex: Exchange) -> None: ...
    def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None: ...
    def on_end(self, ex: Exchange) -> None: ...


class Listener:
    """A listener that ignores everything: subclass it and keep the calls you need."""

    def on_start(self, ex: Exchange) -> None:
        pass

    def on_request(self, ex: Exchange) -> None:
        pass

    def on_response(self, ex: Exchange) -> None:
        pass

    def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None:
        pass

    def on_end(self, ex: Exchange) -> None:
        pass


class ExchangeHub:
    """Fans each exchange's steps out to its listeners, in the order they subscribed."""

    def __init__(self, *listeners: ExchangeListener) -> None:
        self.listeners: list[ExchangeListener] = list(listeners)
        self.recent: deque[Exchange] = deque(maxlen=RECENT)
        self.live: dict[int, Exchange] = {}
        self._ids = itertools.count(1)
        self._broken: set[tuple[int, str]] = set()

    def subscribe(self, listener: ExchangeListener) -> None:
        self.listeners.append(listener)

    def unsubscribe(self, listener: ExchangeListener) -> None:
        if listener in self.listeners:
            self.listeners.remove(listener)

    def new_id(self) -> int:
        return next(self._ids)

    def _call(self, step: str, *args: object) -> None:
        for listener in list(self.listeners):
            try:
                getattr(listener, step)(*args)
            except Exception as exc:  # a listener's bug never stops a relay
                key = (id(listener), step)
                if key not in self._broken:
                    self._broken.add(key)
                    name = type(listener).__name__
                    print(f"proxy: {name}.{step} failed: {exc!r}", file=sys.stderr, flush=True)

    def start(self, ex: Exchange) -> None:
        self.live[ex.id] = ex
        self.recent.append(ex)
        self._call("on_start", ex)

    def request(self, ex: Exchange) -> None:
        self._call("on_request", ex)

    def response(self, ex: Exchange) -> None:
        self._call("on_response", ex)

    def chunk(self, ex: Exchange, t: float, data: bytes) -> None:
        if ex.t_first_byte is None:
            ex.t_first_byte = t
        ex.bytes += len(data)
        self._call("on_chunk", ex, t, data)

    def end(self, ex: Exchange, outcome: str) -> None:
        if ex.outcome != "open":
            return  # ended once already
        ex.outcome = outcome
        ex.t_end = ex.now()
        self.live.pop(ex.id, None)
        self._call("on_end", ex)
