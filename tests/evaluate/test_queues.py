"""A provider's queue: its concurrency limit, and a pause nothing starts during."""

from __future__ import annotations

import asyncio

from playground.evaluate.queues import BACKOFF_MAX_S, ProviderQueue, backoff_seconds


def test_backoff_takes_retry_after_else_doubles() -> None:
    assert backoff_seconds(2.5, 1) == 2.5
    assert backoff_seconds(None, 1) == 1.0
    assert backoff_seconds(None, 3) == 4.0
    assert backoff_seconds(None, 30) == BACKOFF_MAX_S
    assert backoff_seconds(10_000.0, 1) == BACKOFF_MAX_S


def test_the_limit_holds_and_a_pause_holds_back_every_start() -> None:
    paused: list[tuple[str, float]] = []
    started: list[float] = []  # how long the pause still had to run when each one started

    async def go() -> None:
        queue = ProviderQueue("p", 2, on_pause=lambda p, s: paused.append((p, s)))
        await queue.acquire()
        await queue.acquire()
        waiter = asyncio.ensure_future(_take(queue, started))
        for _ in range(5):
            await asyncio.sleep(0)
        assert started == []  # the limit: two slots, both held
        queue.pause(0.2)
        queue.release()
        for _ in range(5):
            await asyncio.sleep(0)
        assert started == [] and queue.paused_for() > 0  # a free slot, but paused
        queue.pause(0.01)  # a shorter pause does not shorten the one set
        assert paused == [("p", 0.2)]
        await asyncio.wait_for(waiter, 10.0)
        assert started == [0.0]  # it started once the pause was over, not before

    asyncio.run(go())


async def _take(queue: ProviderQueue, started: list[float]) -> None:
    await queue.acquire()
    started.append(queue.paused_for())
