"""Exchanges handed to the transport's RunSinks: the shape a panel's session already takes.

``RunSinks`` is a hub listener that asks ``sink_for(ex)`` for a ``RunSink`` (transport/client.py)
when an exchange's request has arrived, and then tells that sink what the playground's own
client would: the request (headers redacted), the response, each read with its time, a transport
error when the upstream failed or cut the body, and the end. A window's traffic panel can thus
feed each exchange into the same decoder and views as a run of its own.
"""

from __future__ import annotations

from collections.abc import Callable

from playground.proxy.exchange import Exchange, Listener
from playground.transport.errors import TransportError
from playground.transport.pipeline import RunSink

__all__ = ["RunSinks"]


class RunSinks(Listener):
    """Forwards each exchange to the RunSink ``sink_for`` gives it (None: not followed)."""

    def __init__(self, sink_for: Callable[[Exchange], RunSink | None]) -> None:
        self.sink_for = sink_for
        self._sinks: dict[int, RunSink] = {}

    def on_request(self, ex: Exchange) -> None:
        sink = self.sink_for(ex)
        if sink is None:
            return
        self._sinks[ex.id] = sink
        sink.on_request(ex.method, ex.url, dict(ex.request_headers), ex.facts.capture_body)

    def on_response(self, ex: Exchange) -> None:
        sink = self._sinks.get(ex.id)
        if sink is not None and ex.http_status is not None:
            sink.on_response(ex.http_status, list(ex.response_headers), ex.t_response or 0.0)

    def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None:
        sink = self._sinks.get(ex.id)
        if sink is not None:
            sink.on_chunk(t, data)

    def on_end(self, ex: Exchange) -> None:
        sink = self._sinks.pop(ex.id, None)
        if sink is None:
            return
        t = ex.t_end if ex.t_end is not None else ex.now()
        if ex.error_kind is not None:
            sink.on_transport_error(TransportError(ex.error_kind, ex.error or ""), t)
        sink.on_end(t)
