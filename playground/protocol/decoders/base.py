"""The shape every route decoder has: wire event (+ parsed JSON) in, our events and findings out."""

from __future__ import annotations

from typing import Any, ClassVar

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.events import Finished, StreamError, StreamEvent
from playground.protocol.findings import FindingSink
from playground.protocol.sse import SSEEvent

__all__ = ["RouteDecoder", "as_int", "as_str"]


def as_str(value: Any) -> str | None:
    return value if type(value) is str else None


def as_int(value: Any) -> int | None:
    return value if type(value) is int else None


class RouteDecoder:
    """Base class: subclasses translate one route's wire names into the project's vocabulary.

    ``decode`` is only given events whose data is JSON (``[DONE]`` and invalid JSON are handled by
    the stream decoder). Decoders keep whatever bookkeeping their findings need (open blocks,
    sequence numbers) and report departures through ``sink``; they never raise on purpose, and
    the stream decoder turns any exception into a ``decoder_error`` finding anyway.
    """

    route: ClassVar[str] = "auto"

    def __init__(self, sink: FindingSink, asked: Asked = NOTHING_ASKED) -> None:
        self.sink = sink
        self.asked = asked  # what the request asked for (asked.py); unknown for raw files
        self.errors = 0

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        raise NotImplementedError

    def after_terminal_ok(self, ev: SSEEvent, payload: Any) -> bool:
        """Whether an event after the terminator is documented (``[DONE]`` always is)."""
        return False

    def finish(self, *, terminated: bool, failed: bool) -> None:
        """End of stream: report what was left open (blocks never stopped, ...)."""

    def error(
        self, ev: SSEEvent, err: StreamError, out: list[StreamEvent], *, final: str | None = None
    ) -> None:
        """Emit an in-stream error with its ``error_mid_stream`` finding.

        ``final``: on routes whose ``finish`` is "the type of the final event" (responses, images,
        speech, transcription), an error event ends the stream (§3, §8), so it is that type.
        """
        self.errors += 1
        out.append(err)
        self.sink.report("error_mid_stream", f"error in the stream: {err.message}", ev.index)
        if final is not None:
            out.append(Finished(final, terminal=True))

    def event_kind(self, ev: SSEEvent, payload: Any, *, named: bool = True) -> str | None:
        """The event's type: ``data.type``, else its SSE ``event:`` name (``named``, on routes
        whose SSE name equals ``data.type``); None, with a finding, when data is not an object."""
        if type(payload) is not dict:
            self.sink.report("unexpected_shape", "event data is not a JSON object", ev.index)
            return None
        kind = payload.get("type")
        if type(kind) is str:
            return kind
        if named:
            return ev.event
        return ev.event if ev.event != "message" else ""

    def no_event_line(self, ev: SSEEvent, kind: str, code: str, why: str) -> None:
        """An event without its ``event:`` line on a route whose grammar names every event
        (``code`` says what that costs a client: ``no_event_line`` or ``event_line_required``)."""
        self.sink.once(
            "no_event_line",
            code,
            f"event {kind!r} came without its `event:` line ({why}); reported once",
            ev.index,
        )

    def unknown(self, ev: SSEEvent, name: str) -> None:
        self.sink.once(
            f"unknown:{name}",
            "unknown_event",
            f"event type {name!r} is not part of the {self.route} grammar (relayed, ignored)",
            ev.index,
        )
