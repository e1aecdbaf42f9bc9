"""One queue per provider: at most ``limit`` requests at once, paused when the gateway asks.

A 429 or 503 with ``Retry-After`` pauses the provider's whole queue for the time asked (no
request to it starts before then); without one, the pause doubles per retry (exponential
backoff), as the OpenAI and Anthropic SDKs do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final

__all__ = ["BACKOFF_MAX_S", "ProviderQueue", "backoff_seconds"]

BACKOFF_BASE_S: Final = 1.0
BACKOFF_MAX_S: Final = 60.0


def backoff_seconds(retry_after: float | None, attempt: int, base: float = BACKOFF_BASE_S) -> float:
    """The pause before resend ``attempt`` (1, 2, ...): what the server asked, else doubling."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), BACKOFF_MAX_S)
    return float(min(base * 2.0 ** max(attempt - 1, 0), BACKOFF_MAX_S))


class ProviderQueue:
    """The concurrency limit and the pause of one provider's requests."""

    def __init__(
        self,
        provider_id: str,
        limit: int,
        *,
        on_pause: Callable[[str, float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.provider_id = provider_id
        self.limit = limit
        self._slots = asyncio.Semaphore(limit)
        self.paused_until = 0.0
        self.pauses = 0
        self._on_pause = on_pause
        self._clock = clock

    def paused_for(self) -> float:
        """Seconds left of the current pause (0 when requests may start)."""
        return max(0.0, self.paused_until - self._clock())

    async def acquire(self) -> None:
        """Wait out any pause and for a free slot; a pause that begins meanwhile is waited too."""
        while True:
            wait = self.paused_for()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            await self._slots.acquire()
            if self.paused_for() > 0:
                self._slots.release()
                continue
            return

    def release(self) -> None:
        self._slots.release()

    def pause(self, seconds: float) -> None:
        """No request of this provider starts for ``seconds`` (a longer pause already set stays)."""
        until = self._clock() + seconds
        if until > self.paused_until:
            self.paused_until = until
            self.pauses += 1
            if self._on_pause is not None:
                self._on_pause(self.provider_id, seconds)
