"""The route a stream's events belong to: choosing its decoder (given, or detected from the
first decisive event), its ``[DONE]``, events after its terminator, and events before the route
is known.

A part of ``StreamDecoder`` (stream.py), as ``BodyModes`` (stream_bodies.py) is another; its
methods run for the events that concern them only (``[DONE]``, an event after the terminator,
events before the route is known), not for each event of a known route.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from playground.protocol.asked import Asked, asked_from
from playground.protocol.decoders.base import RouteDecoder
from playground.protocol.errors import payload_error
from playground.protocol.events import Finished, StreamEvent
from playground.protocol.findings import FindingSink
from playground.protocol.routes import detect_route, make_decoder
from playground.protocol.sse import SSEEvent
from playground.protocol.state import StreamState
from playground.protocol.terminators import done_ends, report_done, terminator

__all__ = ["RouteChoice"]


class RouteChoice:
    """The route half of ``StreamDecoder``; the attributes are the decoder's own."""

    route: str
    state: StreamState
    asked: Asked
    _request: Mapping[str, Any] | bytes | str | None
    _sink: FindingSink
    _decoder: RouteDecoder | None
    _fast: Callable[[SSEEvent, Any], str | None] | None
    _done_seen: bool

    def _apply(self, event: StreamEvent, ev: SSEEvent) -> None:
        raise NotImplementedError

    def _done(self, ev: SSEEvent) -> None:
        """``data: [DONE]``: the terminator on chat (and music's job stream), never on the others
        (terminators.py: each route's own terminator decides)."""
        self._done_seen = True
        report_done(self.route, self.state, self._sink, ev.index)
        if done_ends(self.route):
            self._apply(Finished(None, terminal=True), ev)

    def _check_after_terminal(self, decoder: RouteDecoder, ev: SSEEvent, payload: Any) -> None:
        try:
            ok = decoder.after_terminal_ok(ev, payload)
        except Exception:
            ok = False
        if not ok:
            self._after_terminal(ev)

    def _after_terminal(self, ev: SSEEvent) -> None:
        why = f"an event after the stream's terminator ({terminator(self.route)})"
        self._sink.report("event_after_terminator", why, ev.index)

    def _detect(self, ev: SSEEvent, payload: Any) -> RouteDecoder | None:
        route = detect_route(ev.event, payload)
        if route is None:
            return None
        self.route = route
        self.state.route = route
        if self._request is not None:
            self.asked = asked_from(route, self._request)
        return self._use(make_decoder(route, self._sink, self.asked))

    def _use(self, decoder: RouteDecoder) -> RouteDecoder:
        self._decoder = decoder
        # Chat's plain-text chunks skip the event allocation (see ChatDecoder.plain_text).
        self._fast = getattr(decoder, "plain_text", None)
        return decoder

    def _undecided(self, ev: SSEEvent, payload: Any) -> None:
        # Before the first decisive event: an error is still an error; anything else is relayed.
        err = payload_error(payload)
        if err is not None:
            self._sink.report("error_mid_stream", f"error in the stream: {err.message}", ev.index)
            self._apply(err, ev)
            return
        name = ev.event if ev.event != "message" else None
        if name is None and isinstance(payload, dict):
            kind = payload.get("type")
            name = kind if isinstance(kind, str) else None
        self._sink.once(
            f"unknown:{name}",
            "unknown_event",
            f"event {name or 'message'!r} does not tell which route this is (relayed, ignored)",
            ev.index,
        )
