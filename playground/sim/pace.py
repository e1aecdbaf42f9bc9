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
