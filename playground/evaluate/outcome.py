"""What a finished cell's run left to score: its answer, tool calls, findings and timing figures.

Built once when the run ends, from the run's decoder and the project's timing
(``protocol/timing.compute_timing``); the decoder is dropped then, so a finished cell keeps
kilobytes, not its events (the bytes are in its capture).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from playground.protocol.stream import StreamDecoder
from playground.protocol.timing import compute_timing

__all__ = ["COMPLETED", "RunOutcome", "ToolCall", "outcome_of"]

# A run that reached its end: "incomplete" is the model stopping short (length, max_tokens),
# which a finish_reason check may want; "failed", "truncated" and "cancelled" never completed.
COMPLETED: Final = frozenset({"complete", "incomplete"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: str
    valid_json: bool
    closed: bool


@dataclass(slots=True)
class RunOutcome:
    status: str  # complete | incomplete | failed | truncated | cancelled
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish: str | None = None
    usage: dict[str, int] = field(default_factory=dict)  # normalized: input, output, ...
    findings: list[tuple[str, str, str]] = field(default_factory=list)  # severity, code, message
    partial_images: int = 0
    http_status: int | None = None
    error: str | None = None
    ttft_ms: float | None = None  # to the first token of any kind (text, thinking, tool, image)
    thinking_ms: float | None = None  # to the first thinking token
    tokens_per_s: float | None = None
    max_gap_ms: float | None = None
    output_tokens: int | None = None
    duration_ms: float | None = None
    wire_usage: Any = None  # the usage as the provider sent it (the cell's cache and cost)
    images: int = 0  # final images (priced per image)
    sent_at: float | None = None  # monotonic time the request went (set by the runner)
    body: dict[str, Any] | None = None  # the JSON body sent (set by the runner)

    @property
    def completed(self) -> bool:
        return self.status in COMPLETED

    def figures(self) -> dict[str, Any]:
        return {
            "ttft_ms": self.ttft_ms,
            "thinking_ms": self.thinking_ms,
            "tokens_per_s": self.tokens_per_s,
            "max_gap_ms": self.max_gap_ms,
            "output_tokens": self.output_tokens,
            "duration_ms": self.duration_ms,
        }


def _ms(t: float | None) -> float | None:
    return None if t is None else round(t * 1000.0, 3)


def outcome_of(
    decoder: StreamDecoder,
    *,
    t_headers: float | None,
    t_first_byte: float | None,
    t_end: float | None,
    http_status: int | None,
    error: str | None,
    cancelled: bool = False,
) -> RunOutcome:
    """Everything the scorers read from a finished (or stopped) run's decoder."""
    state = decoder.state
    timing = compute_timing(decoder, t_headers, t_first_byte, t_end=t_end)
    firsts = [
        t
        for t in (
            timing.t_first_reasoning,
            timing.t_first_text,
            timing.t_first_refusal,
            timing.t_first_tool_args,
            timing.t_first_image,
            timing.t_first_audio,
        )
        if t is not None
    ]
    output = [
        timing.channels[n]
        for n in ("text", "reasoning", "refusal", "tool_args")
        if n in timing.channels
    ]
    tokens = timing.usage_reported.get("output")
    if tokens is None and output:
        tokens = sum(c.tokens for c in output)
    text_channel = timing.channels.get("text") or timing.channels.get("tool_args")
    status: str = "cancelled" if cancelled else state.status
    if error is None and state.error is not None:
        error = state.error.message
    return RunOutcome(
        status=status,
        text=state.text,
        reasoning=state.reasoning,
        tool_calls=[
            ToolCall(c.name or "", c.arguments_text, c.valid_json, c.done) for c in state.tool_calls
        ],
        finish=state.finish,
        usage=dict(timing.usage_reported),
        findings=[(f.severity, f.code, f.message) for f in state.findings],
        partial_images=sum(1 for image in state.images if not image.final),
        http_status=http_status,
        error=error,
        ttft_ms=_ms(min(firsts)) if firsts else None,
        thinking_ms=_ms(timing.t_first_reasoning),
        tokens_per_s=(
            round(text_channel.tokens_per_second, 3)
            if text_channel is not None and text_channel.tokens_per_second is not None
            else None
        ),
        max_gap_ms=_ms(max(timing.gaps)) if timing.gaps else None,
        output_tokens=tokens,
        duration_ms=_ms(timing.duration),
        wire_usage=state.usage,
        images=sum(1 for image in state.images if image.final),
    )
