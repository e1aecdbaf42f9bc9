"""What a run's timing is: its milestones, per-channel figures, gaps and histogram, as values.

``protocol/timing.py`` computes them from a decoded run; views and reports read them. Every
time is in seconds since the request was sent (the transport's and the captures' clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "BINS_PER_DECADE",
    "CHANNELS",
    "DEAD_AIR_FACTOR",
    "DEAD_AIR_FLOOR",
    "ChannelStats",
    "Gap",
    "HistogramBin",
    "Milestone",
    "Timing",
]

# Channels an item can be classified as, in the order the chart's legend lists them.
CHANNELS: Final = (
    "text",
    "reasoning",
    "refusal",
    "tool_args",
    "image",
    "audio",
    "comment",
    "error",
    "meta",
)
DEAD_AIR_FLOOR: Final = 0.25  # seconds; shorter gaps are never "dead air"
DEAD_AIR_FACTOR: Final = 5.0  # ... nor gaps under 5x the median gap
BINS_PER_DECADE: Final = 2


@dataclass(frozen=True, slots=True)
class Milestone:
    """A moment of the run worth a vertical marker on the chart."""

    key: str  # headers, first_byte, first_event, first_reasoning, first_text, ...
    label: str  # what the chart prints
    t: float
    item: int | None = None  # the timeline item that marks it, when one does


@dataclass(slots=True)
class ChannelStats:
    """What one channel (text, reasoning, tool arguments, audio...) delivered and how fast."""

    name: str
    deltas: int = 0  # items that appended to this channel
    chars: int = 0  # characters (bytes for audio, images for image)
    t_first: float | None = None
    t_last: float | None = None
    tokens_reported: int | None = None  # from the server's usage, when it can be attributed

    @property
    def tokens_counted(self) -> int:
        """The estimate: one token per delta."""
        return self.deltas

    @property
    def tokens(self) -> int:
        return self.tokens_reported if self.tokens_reported is not None else self.deltas

    @property
    def tokens_source(self) -> str:
        return "usage" if self.tokens_reported is not None else "deltas"

    @property
    def span(self) -> float | None:
        if self.t_first is None or self.t_last is None:
            return None
        return self.t_last - self.t_first

    @property
    def tokens_per_second(self) -> float | None:
        span = self.span
        if span is None or span <= 0 or self.tokens <= 0:
            return None
        return self.tokens / span

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "deltas": self.deltas,
            "chars": self.chars,
            "t_first": self.t_first,
            "t_last": self.t_last,
            "tokens": self.tokens,
            "tokens_counted": self.tokens_counted,
            "tokens_reported": self.tokens_reported,
            "tokens_source": self.tokens_source,
            "tokens_per_second": self.tokens_per_second,
        }


@dataclass(frozen=True, slots=True)
class Gap:
    """Silence between two consecutive timeline items."""

    start: float
    end: float
    after: int  # the item before the silence
    before: int  # the item that ended it

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class HistogramBin:
    """Gaps with ``lo <= gap < hi`` (the first bin holds the zero gaps of events)."""

    lo: float
    hi: float
    count: int


@dataclass(slots=True)
class Timing:
    """Every figure of "where the time went" for one run."""

    t_headers: float | None = None
    t_first_byte: float | None = None
    t_first_event: float | None = None
    t_first_reasoning: float | None = None
    t_first_text: float | None = None
    t_first_refusal: float | None = None
    t_first_tool_args: float | None = None
    t_first_image: float | None = None  # the first image of any kind (a partial, as a rule)
    t_first_partial_image: float | None = None
    t_first_audio: float | None = None
    t_last_event: float | None = None
    t_end: float | None = None
    milestones: list[Milestone] = field(default_factory=list)
    channels: dict[str, ChannelStats] = field(default_factory=dict)
    # One entry per timeline item, in item order: arrival time, channel, raw size in bytes.
    times: list[float] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)  # gaps[i] = times[i+1] - times[i]
    median_gap: float | None = None
    dead_air_threshold: float = DEAD_AIR_FLOOR
    dead_air: list[Gap] = field(default_factory=list)
    histogram: list[HistogramBin] = field(default_factory=list)
    usage_raw: dict[str, Any] | None = None
    usage_reported: dict[str, int] = field(default_factory=dict)
    counted: dict[str, int] = field(default_factory=dict)
    # Output tokens per second from the first token to the last event (figures.py RATE).
    output_tokens_per_second: float | None = None

    @property
    def duration(self) -> float:
        """From the request to the end of the run (or to the last thing seen so far)."""
        candidates = [
            t
            for t in (self.t_end, self.t_last_event, self.t_first_byte, self.t_headers)
            if t is not None
        ]
        return max(candidates) if candidates else 0.0

    @property
    def dead_air_total(self) -> float:
        return sum(g.seconds for g in self.dead_air)

    @property
    def longest_gap(self) -> Gap | None:
        if not self.gaps:
            return None
        i = max(range(len(self.gaps)), key=self.gaps.__getitem__)
        return Gap(self.times[i], self.times[i + 1], i, i + 1)

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready summary (bug-report bundle, ``--dump-state``); no per-item lists."""
        return {
            "t_headers": self.t_headers,
            "t_first_byte": self.t_first_byte,
            "t_first_event": self.t_first_event,
            "t_first_reasoning": self.t_first_reasoning,
            "t_first_text": self.t_first_text,
            "t_first_refusal": self.t_first_refusal,
            "t_first_tool_args": self.t_first_tool_args,
            "t_first_image": self.t_first_image,
            "t_first_partial_image": self.t_first_partial_image,
            "t_first_audio": self.t_first_audio,
            "t_last_event": self.t_last_event,
            "t_end": self.t_end,
            "duration": self.duration,
            "events": len(self.times),
            "median_gap": self.median_gap,
            "dead_air_threshold": self.dead_air_threshold,
            "dead_air": [
                {"start": g.start, "end": g.end, "after": g.after, "before": g.before}
                for g in self.dead_air
            ],
            "histogram": [{"lo": b.lo, "hi": b.hi, "count": b.count} for b in self.histogram],
            "channels": {k: v.as_json() for k, v in self.channels.items()},
            "milestones": [
                {"key": m.key, "label": m.label, "t": m.t, "item": m.item} for m in self.milestones
            ],
            "usage_reported": dict(self.usage_reported),
            "counted": dict(self.counted),
        }
