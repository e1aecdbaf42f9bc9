"""The frame loop: each frame's decoding is bounded by time, and every frame is reported."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from playground.ui import frames


class _Backlog:
    """A reader with far more queued than a frame takes: each drain spends its whole budget."""

    def __init__(self, slices: int) -> None:
        self.left = slices
        self.error: BaseException | None = None
        self.drains = 0

    def start(self, loop: Any) -> None:
        pass

    async def wait(self, timeout: float) -> bool:
        await asyncio.sleep(0)
        return True  # the thread has ended; its queue has not

    def hold(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    def empty(self) -> bool:
        return self.left == 0

    def drain(self, sink: Any, budget: float | None, *, chunks: bool = True) -> bool:
        end = time.perf_counter() + (budget or 0.0)
        while time.perf_counter() < end:
            pass
        self.drains += 1
        self.left -= 1
        return self.left > 0


class _Frames:
    def __init__(self, reader: _Backlog) -> None:
        self.reader = reader
        self.drains_at_update: list[int] = []

    def update_pending(self) -> bool:
        return True

    def update_now(self) -> bool:
        self.drains_at_update.append(self.reader.drains)
        return True


class _Sink:
    def flush(self) -> None:
        pass


def test_a_frame_stops_decoding_at_its_budget_and_shows_what_it_has(qapp: Any) -> None:
    reader = _Backlog(slices=40)
    shown = _Frames(reader)
    spent: list[float] = []
    frames.frame_observers.append(spent.append)
    try:
        asyncio.run(frames.read_in_frames(reader, _Sink(), shown))  # type: ignore[arg-type]
    finally:
        frames.frame_observers.remove(spent.append)
    assert reader.left == 0
    # Forty slices' worth queued: the widgets get it a frame's budget at a time, not all at once.
    assert frames.FRAME_DRAIN_S < frames.FRAME_MS / 1000  # within one frame's time
    per_frame = round(frames.FRAME_DRAIN_S / frames.DRAIN_BUDGET_S) + 1
    steps = [b - a for a, b in zip([0, *shown.drains_at_update], shown.drains_at_update)]
    assert len(steps) > 40 // per_frame
    assert max(steps) <= per_frame
    assert len(spent) == len(shown.drains_at_update) and all(s > 0 for s in spent)
