"""The simulator's prompt cache: prefixes kept per model for a lifetime, read back by later
requests, and reported in each route's usage shape.

Chat and responses cache as OpenAI does: every prompt prefix of at least the minimum length is
kept, and a later request reads the longest one it starts with (at the boundary of a message or
content part). Messages caches as Anthropic does, and so do chat and responses requests that
carry ``cache_control`` (OpenRouter's way to Anthropic's models): only up to a breakpoint;
the longest kept prefix up to the last breakpoint is read, the rest up to it written, as 5 minute
or 1 hour writes (``"ttl": "1h"``). A read refreshes the lifetime. Defaults: 300 s
(``playground sim --cache-ttl``; a request's ``X-Sim-Cache-Ttl`` header sets its own), 3,600 s
for an extended lifetime, 64 tokens at the least (``--cache-min-tokens``, ``X-Sim-Cache-Min``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from playground.sim.cache_prefix import prefix_of
from playground.sim.context import SimRequest
from playground.sim.plan import Plan

DEFAULT_TTL = 300.0
EXTENDED_TTL = 3600.0
DEFAULT_MIN_TOKENS = 64
MAX_ENTRIES = 20_000  # the least recently used prefixes go first
NO_CACHE_FAULT = "no-cache-usage"  # usage without any cache field (a provider that says nothing)


@dataclass(frozen=True, slots=True)
class CacheFigures:
    """What one request read and wrote; ``total`` is every prompt token."""

    total: int
    read: int
    write_5m: int
    write_1h: int
    reported: bool  # False: the usage leaves every cache field out


@dataclass(slots=True)
class _Entry:
    tokens: int
    expires: float
    ttl: float


class PromptCache:
    """Kept prefixes by digest (the digest covers the model), thread-safe, bounded."""

    def __init__(self, ttl: float = DEFAULT_TTL, min_tokens: int = DEFAULT_MIN_TOKENS) -> None:
        self.ttl = ttl
        self.extended_ttl = max(EXTENDED_TTL, ttl)
        self.min_tokens = min_tokens
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def _alive(self, digest: str, now: float) -> _Entry | None:
        entry = self._entries.get(digest)
        if entry is None:
            return None
        if entry.expires < now:
            del self._entries[digest]
            return None
        return entry

    def _keep(self, digest: str, tokens: int, ttl: float, now: float) -> None:
        entry = self._entries.get(digest)
        if entry is not None and entry.expires > now + ttl:
            ttl = entry.ttl  # a longer lifetime already asked for stays
        self._entries[digest] = _Entry(tokens, now + ttl, ttl)
        self._entries.move_to_end(digest)
        while len(self._entries) > MAX_ENTRIES:
            self._entries.popitem(last=False)

    def serve(
        self,
        route: str,
        body: dict[str, Any],
        ttl: float | None = None,
        now: float | None = None,
        min_tokens: int | None = None,
    ) -> CacheFigures:
        """Read and write the cache for one request; ``ttl`` and ``min_tokens`` override the
        lifetimes and the minimum for it."""
        now = time.monotonic() if now is None else now
        minimum = self.min_tokens if min_tokens is None else min_tokens
        prefix = prefix_of(route, body)
        digests = prefix.digests()
        short = ttl if ttl is not None else self.ttl
        extended = ttl if ttl is not None else self.extended_ttl
        if body.get("prompt_cache_retention") == "24h":
            short = extended
        with self._lock:
            # cache_control on chat or responses (OpenRouter passes it to Anthropic's models)
            # caches as messages does: only up to the breakpoints.
            if route == "messages" or prefix.marks:
                return self._anthropic(
                    prefix.ends, prefix.marks, digests, (short, extended), now, minimum
                )
            read = 0
            for i in range(len(digests) - 1, -1, -1):
                entry = self._alive(digests[i], now)
                if entry is not None and prefix.ends[i] >= minimum:
                    read = prefix.ends[i]
                    break
            for i, digest in enumerate(digests):
                if prefix.ends[i] >= minimum:
                    self._keep(digest, prefix.ends[i], short, now)
            return CacheFigures(prefix.tokens, read, 0, 0, True)

    def _anthropic(
        self,
        ends: list[int],
        marks: list[tuple[int, str]],
        digests: list[str],
        lifetimes: tuple[float, float],
        now: float,
        minimum: int,
    ) -> CacheFigures:
        short, extended = lifetimes
        total = ends[-1] if ends else 0
        if not marks:
            return CacheFigures(total, 0, 0, 0, True)
        last = max(position for position, _ in marks)
        read = 0
        for i in range(last, -1, -1):  # the lookback from the last breakpoint
            entry = self._alive(digests[i], now)
            if entry is not None:
                read = ends[i]
                self._keep(digests[i], ends[i], entry.ttl, now)
                break
        writes = {"5m": 0, "1h": 0}
        done = read
        for position, kind in sorted(marks):
            if ends[position] < minimum:
                continue
            if ends[position] > done:
                writes[kind] += ends[position] - done
                done = ends[position]
            self._keep(digests[position], ends[position], extended if kind == "1h" else short, now)
        return CacheFigures(total, read, writes["5m"], writes["1h"], True)


def _number(raw: str | None, limit: float) -> float | None:
    try:
        value = float(raw) if raw is not None else None
    except ValueError:
        return None
    return max(0.0, min(value, limit)) if value is not None and value == value else None


def serve_request(request: Request, route: str, body: dict[str, Any], fault: str) -> CacheFigures:
    """The app's cache for one request (its X-Sim-Cache-Ttl and X-Sim-Cache-Min headers too)."""
    cache: PromptCache = request.app.state.prompt_cache
    ttl = _number(request.headers.get("x-sim-cache-ttl"), 86400.0)
    minimum = _number(request.headers.get("x-sim-cache-min"), 1e9)
    figures = cache.serve(
        route, body, ttl, min_tokens=int(minimum) if minimum is not None else None
    )
    if fault == NO_CACHE_FAULT:
        return CacheFigures(figures.total, 0, 0, 0, False)
    return figures


def serve_cache(request: Request, req: SimRequest, route: str, plans: list[Plan]) -> None:
    """Serve ``req`` from the cache: its figures on ``req.cache``, and every plan's prompt
    tokens the canonical count (cache_prefix.py)."""
    req.cache = serve_request(request, route, req.body, req.fault)
    for plan in plans:
        plan.prompt_tokens = max(1, req.cache.total)


def chat_usage_details(figures: CacheFigures | None) -> dict[str, Any]:
    """The cache in chat's usage: ``prompt_tokens_details.cached_tokens``."""
    if figures is None or not figures.reported:
        return {}
    details = {"cached_tokens": figures.read}
    if figures.write_5m or figures.write_1h:  # OpenRouter's name for the writes
        details["cache_write_tokens"] = figures.write_5m + figures.write_1h
    return {"prompt_tokens_details": details}


def responses_usage_details(figures: CacheFigures | None) -> dict[str, Any]:
    """The cache in the responses usage: ``input_tokens_details.cached_tokens``."""
    if figures is None:
        return {"input_tokens_details": {"cached_tokens": 0}}
    if not figures.reported:
        return {}
    details = {"cached_tokens": figures.read}
    if figures.write_5m or figures.write_1h:
        details["cache_write_tokens"] = figures.write_5m + figures.write_1h
    return {"input_tokens_details": details}


def messages_usage(figures: CacheFigures | None, fallback_input: int) -> dict[str, Any]:
    """Anthropic's input counts: ``input_tokens`` leaves out the cache reads and writes."""
    if figures is None:
        return {
            "input_tokens": fallback_input,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
    if not figures.reported:
        return {"input_tokens": figures.total}
    written = figures.write_5m + figures.write_1h
    return {
        "input_tokens": max(0, figures.total - figures.read - written),
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": figures.read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": figures.write_5m,
            "ephemeral_1h_input_tokens": figures.write_1h,
        },
    }


def model_cache_metadata(app_state: Any) -> dict[str, Any]:
    """The cache's lifetime and minimum as /v1/models says them (``prompt_cache``)."""
    cache: PromptCache | None = getattr(app_state, "prompt_cache", None)
    if cache is None:
        cache = PromptCache()
    return {
        "lifetime_seconds": cache.ttl,
        "extended_lifetime_seconds": cache.extended_ttl,
        "minimum_tokens": cache.min_tokens,
    }
