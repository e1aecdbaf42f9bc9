"""Each route's own terminator: what ends its stream, and what ``data: [DONE]`` means there.

docs/protocol.md §0 (decided after third-party gateways were read): chat ends with ``data: [DONE]``;
responses with ``response.completed|incomplete|failed`` (or an ``error`` event); messages with
``message_stop``; images with ``image_generation.completed``; speech with ``speech.audio.done``;
transcription with ``transcript.text.done``. A ``[DONE]`` on responses or messages is not in their
grammar and never stands in for the real terminator. docs/findings.md has the whole table; each
route's descriptor (``protocol/routes/<name>.py``) holds its terminator and ``done`` policy.
"""

from __future__ import annotations

from typing import Final

from playground.protocol.findings import FindingSink
from playground.protocol.routes import find_route
from playground.protocol.state import StreamState

__all__ = ["done_ends", "report_done", "report_no_terminator", "terminator"]

# A stream whose route is not known yet ends at [DONE], as the OpenAI SDK reads it.
_UNDECIDED_DONE_ENDS: Final = True


def terminator(route: str) -> str:
    """The route's terminator, as a finding names it."""
    found = find_route(route)
    named = found.terminator if found is not None else None
    return named if named is not None else "the route's final event"


def done_ends(route: str) -> bool:
    """Whether ``data: [DONE]`` is the route's terminator."""
    found = find_route(route)
    if found is None:
        return _UNDECIDED_DONE_ENDS
    return found.done in ("ends", "ends_job")


def report_done(route: str, state: StreamState, sink: FindingSink, item: int) -> None:
    """The findings a ``[DONE]`` raises on ``route`` (before it is folded, if it ends it).

    Images, speech and transcription: a [DONE] after the final event is how gateways end them
    (images seed: "then data: [DONE]"; OpenAI's speech and transcription streams send one), so
    it raises nothing there; it just never stands in for that event.
    """
    found = find_route(route)
    policy = found.done if found is not None else None
    if policy == "ends":
        if (
            not state.terminated
            and state.error is None
            and not any(c.finish is not None for c in state.choices.values())
        ):
            # Seed "Streaming events": "The last content chunk carries finish_reason".
            sink.report(
                "no_finish_reason",
                "the stream reached data: [DONE] but no choice got a finish_reason",
                item,
            )
    elif policy == "outside":
        sink.once(
            "done",
            "unexpected_done",
            f"data: [DONE] is not part of the {route} grammar (it ends with "
            f"{terminator(route)}); relayed, not taken as the end",
            item,
        )


def report_no_terminator(route: str, sink: FindingSink, item: int | None, done: bool) -> None:
    """The bytes ended before ``route``'s terminator: name what never came (status truncated)."""
    instead = " (the data: [DONE] it sent is not that terminator)" if done else ""
    sink.report(
        "no_terminator",
        f"the stream ended without its terminator: {terminator(route)} never came{instead}",
        item,
    )
