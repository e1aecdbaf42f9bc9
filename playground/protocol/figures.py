"""The run's headline figures, one definition each: what every view calls them and computes.

Every figure is seconds since the request was sent, and an output's time is the arrival of the
last byte of the timeline item that carried it (``SSEItem.t_last``: when the parser could
dispatch it, protocol/timing.py). The status line, the Timing view, Compare, the Traffic panel,
the proxy's line and ``playground inspect`` all take them from here, so one run shows one number
per figure wherever it is shown, under the same name, with the same tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playground.protocol.sse import SSEItem
    from playground.protocol.state import StreamState
    from playground.protocol.timing_types import Timing

__all__ = [
    "FIGURES",
    "RATE",
    "Figure",
    "figure_values",
    "first_output_time",
    "first_token",
    "output_tokens_per_second",
]


@dataclass(frozen=True, slots=True)
class Figure:
    key: str
    name: str  # in sentences and labels: "first token"
    short: str  # where room is short (the status line): "TTFT"
    tip: str  # the tooltip: what it measures


FIGURES: Final[tuple[Figure, ...]] = (
    Figure(
        "headers",
        "time to headers",
        "headers",
        "Time to headers: when the response's status line and headers arrived, since the "
        "request was sent",
    ),
    Figure(
        "first_byte",
        "first byte",
        "TTFB",
        "Time to first byte: when the first byte of the response body arrived, since the "
        "request was sent",
    ),
    Figure(
        "first_token",
        "first token",
        "TTFT",
        "Time to first token: when the first output of any kind arrived (thinking, answer text, "
        "a refusal, tool-call arguments, an image or audio), since the request was sent; the "
        "time is the arrival of the event that carried it",
    ),
    Figure(
        "first_thinking",
        "first thinking token",
        "thinking",
        "Time to first thinking token: when the first reasoning or thinking text arrived",
    ),
    Figure(
        "first_answer",
        "first answer token",
        "answer",
        "Time to first answer token: when the first text of the answer itself (or a refusal) "
        "arrived, after any thinking",
    ),
    Figure(
        "first_tool_args",
        "first tool-argument byte",
        "tool args",
        "Time to first tool-argument byte: when the first piece of a tool call's arguments arrived",
    ),
)
BY_KEY: Final = {f.key: f for f in FIGURES}
RATE: Final = Figure(
    "output_rate",
    "output tokens per second",
    "tok/s",
    "Output tokens per second since the first token: the server's final usage count when it "
    "reported one (thinking included), else one token per streamed delta; while the run "
    "streams, the rate of what has streamed so far",
)


def _earliest(*times: float | None) -> float | None:
    return min((t for t in times if t is not None), default=None)


def first_token(timing: Timing) -> float | None:
    """Time to first token: the first output of any kind (see ``FIGURES``)."""
    return _earliest(
        timing.t_first_reasoning,
        timing.t_first_text,
        timing.t_first_refusal,
        timing.t_first_tool_args,
        timing.t_first_image,
        timing.t_first_audio,
    )


def figure_values(timing: Timing) -> dict[str, float | None]:
    """Each figure of ``FIGURES`` for a computed Timing, by key."""
    return {
        "headers": timing.t_headers,
        "first_byte": timing.t_first_byte,
        "first_token": first_token(timing),
        "first_thinking": timing.t_first_reasoning,
        "first_answer": _earliest(timing.t_first_text, timing.t_first_refusal),
        "first_tool_args": timing.t_first_tool_args,
    }


def first_output_time(items: Sequence[SSEItem], state: StreamState) -> float | None:
    """Time to first token while a run streams, cheaply: the same figure ``first_token`` gives
    for the finished run's Timing, read from the first item of each kind of output (the state's
    provenance) instead of a walk over every item."""

    def at(item: int) -> float | None:
        return items[item].t_last if 0 <= item < len(items) else None

    times: list[float | None] = []
    for choice in state.choices.values():
        for buf in (choice.text, choice.reasoning, choice.refusal):
            if buf.origins:
                times.append(at(buf.origins[0][1]))
    for call in state.tool_calls:
        if call.arguments.origins:
            times.append(at(call.arguments.origins[0][1]))
    times += [image.t for image in state.images]
    audio = state.audio
    if audio is not None and audio.origins:
        times.append(at(audio.origins[0][1]))
    return _earliest(*times)


def output_tokens_per_second(
    state: StreamState, t_first: float | None, t_last: float | None
) -> float | None:
    """``RATE``: output tokens over the span from the first token to the last byte or event.

    While the run streams only what has streamed counts: a usage reported early is not the
    final count (Messages' message_start says ``output_tokens: 1``, which over the seconds
    since the first token read as 0.3 tok/s mid-stream).
    """
    if t_first is None or t_last is None or t_last - t_first <= 0.05:
        return None
    usage = (state.usage or {}) if state.status != "streaming" else {}
    tokens = usage.get("completion_tokens", usage.get("output_tokens"))
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens <= 0:
        # No final usage: one delta is about one token on every route the seeds show.
        tokens = sum(len(c.text.origins) + len(c.reasoning.origins) for c in state.choices.values())
        tokens += sum(len(t.arguments.origins) for t in state.tool_calls)
    return tokens / (t_last - t_first) if tokens else None
