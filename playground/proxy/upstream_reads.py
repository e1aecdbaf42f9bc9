"""The upstream connections' reads, merged per read before h11 parses them (``chunk_merge``).

A gateway flushes one HTTP chunk per SSE event, and h11 spends about 8 us on each: at full
speed that was most of the proxy's CPU, on the same core as the client it relays to. Each new
upstream connection announces its network stream through httpcore's documented ``trace``
extension; its ``read`` is wrapped so that h11 gets each read's chunks as one. The proxy keeps
upstream connections alive between requests, so one merger follows one connection from
response to response; it is told which responses answer HEAD (no body whatever the head says)
through ``answering_head``, set by the relay in the request's own task (a ContextVar: every
ASGI request runs in a task of its own, and the body's reader task inherits its context).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from playground.transport.blocking import STREAM_EVENTS
from playground.transport.chunk_merge import ChunkMerger

__all__ = ["answering_head", "trace"]

answering_head: ContextVar[bool] = ContextVar("answering_head", default=False)


async def trace(name: str, info: dict[str, Any]) -> None:
    """httpcore's trace callback (async client): wraps each new stream's ``read``."""
    if name in STREAM_EVENTS:
        stream = info.get("return_value")
        real = getattr(stream, "read", None)
        if stream is not None and callable(real):
            stream.read = _merged(real)


def _merged(real: Callable[..., Awaitable[bytes]]) -> Callable[..., Awaitable[bytes]]:
    merger = ChunkMerger()
    merge = merger.feed

    async def read(max_bytes: int, timeout: float | None = None) -> bytes:
        while True:
            data = await real(max_bytes, timeout)
            merger.bodiless = answering_head.get()
            merged = merge(data)
            if merged or not data:
                return merged
            # The read held only chunk framing: h11 would take an empty read for the end.

    return read
