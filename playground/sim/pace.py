"""Pace presets: how long the simulator waits between the pieces of a stream."""

from __future__ import annotations

from dataclasses import dataclass

# Milliseconds per token. "realtime" is ~30 tokens/s: slow enough to watch, quick for a demo.
PRESETS: dict[str, float] = {"realtime": 33.0, "fast": 4.0, "instant": 0.0}
DEFAULT = "realtime"


@dataclass(frozen=True, slots=True)
class Pace:
    """A per-request pace: seconds per token, and a factor for audio/image pacing."""

    name: str
    token_seconds: float

    @property
    def instant(self) -> bool:
        return self.token_seconds <= 0

    @property
    def realtime_factor(self) -> float:
        """How many seconds of wall time one second of "real time" takes (audio, renders)."""
        if self.instant:
            return 0.0
        return self.token_seconds * 1000.0 / PRESETS["realtime"]

    def scaled(self, seconds: float) -> float:
        """A nominal realtime duration scaled to this pace."""
        return seconds * self.realtime_factor


def parse_pace(value: str | None) -> Pace:
    """Read `X-Sim-Pace`: a preset name or a number of milliseconds per token."""
    raw = (value or DEFAULT).strip().lower()
    if raw in PRESETS:
        return Pace(raw, PRESETS[raw] / 1000.0)
    try:
        ms = float(raw.removesuffix("ms"))
    except ValueError:
        return Pace(DEFAULT, PRESETS[DEFAULT] / 1000.0)
    ms = max(0.0, min(ms, 10_000.0))
    return Pace(f"{ms:g}ms", ms / 1000.0)


# How far a paced stream may fall behind its schedule before the schedule moves: at most this
# much of the stream goes out in one burst after the writer was held up.
MAX_LAG = 0.1


class Schedule:
    """When each frame of a paced stream is due: a schedule, not one sleep per frame.

    Each sleep overshoots by the event loop's timer resolution: a sleep per frame made "0.5 ms a
    token" 800 tokens a second instead of 2,000 (measured, 2-core AMD EPYC). On a schedule the
    frames due by now go out at once, as a server that has them sends them, and the stream keeps
    its rate; a reader slower than the pace (backpressure) moves the schedule, so a burst after
    a hold-up is at most ``MAX_LAG`` of the stream.
    """

    def __init__(self, now: float) -> None:
        self.due = now

    def wait(self, delay: float, now: float) -> float:
        """Seconds to sleep before a frame that comes ``delay`` after the one before."""
        self.due = max(self.due + delay, now - MAX_LAG)
        return max(0.0, self.due - now)

    def restart(self, now: float) -> None:
        """The stream was held on purpose (a stall): go on from ``now``, with no catching up."""
        self.due = now
