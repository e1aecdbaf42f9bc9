"""Every route's usage object as one model: each count with the wire field it came from.

OpenAI's shapes (chat, responses, images, audio) count cached tokens inside the input count;
Anthropic's messages count them apart (``cache_read_input_tokens`` and
``cache_creation_input_tokens`` are not in ``input_tokens``). A count the provider did not send is
None, never 0: "the provider did not report it" is not "nothing was cached".
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

__all__ = ["Count", "Usage", "usage_from_wire"]


@dataclass(frozen=True, slots=True)
class Count:
    """A token count and the wire field (a dotted path in the usage object) it was read from."""

    tokens: int
    field: str


@dataclass(frozen=True, slots=True)
class Usage:
    """One response's usage, normalised. ``input`` is the provider's own input count."""

    input: Count | None = None
    cached_read: Count | None = None
    cache_write_5m: Count | None = None
    cache_write_1h: Count | None = None
    output: Count | None = None
    reasoning: Count | None = None  # part of ``output`` on every route that reports it
    image: Count | None = None  # image tokens (input side; images routes: their input details)
    audio: Count | None = None  # audio tokens (input and output details added)
    audio_seconds: float | None = None  # a duration-billed transcription's ``seconds``
    # Whether ``input`` already counts the cached reads and writes (OpenAI: yes; Anthropic: no).
    input_includes_cached: bool | None = None
    reported_cost: float | None = None  # the gateway's own figure (OpenRouter's usage.cost)

    @property
    def cache_reported(self) -> bool:
        """Did the provider say anything about its cache (a read or write count, even 0)?"""
        return any(
            c is not None for c in (self.cached_read, self.cache_write_5m, self.cache_write_1h)
        )

    @property
    def cache_write(self) -> int | None:
        found = [c.tokens for c in (self.cache_write_5m, self.cache_write_1h) if c is not None]
        return sum(found) if found else None

    @property
    def total_input(self) -> int | None:
        """Every input token, cached or not (the provider's input, plus the cache counts when the
        provider counts them apart)."""
        if self.input is None:
            return None
        if self.input_includes_cached is False:
            read = self.cached_read.tokens if self.cached_read is not None else 0
            return self.input.tokens + read + (self.cache_write or 0)
        return self.input.tokens

    @property
    def uncached_input(self) -> int | None:
        """Input tokens neither read from nor written to the cache (priced at the input price)."""
        if self.input is None:
            return None
        if self.input_includes_cached is False:
            return self.input.tokens
        read = self.cached_read.tokens if self.cached_read is not None else 0
        return max(0, self.input.tokens - read - (self.cache_write or 0))

    @property
    def hit_ratio(self) -> float | None:
        """Cached reads over every input token; None when either is unknown."""
        total = self.total_input
        if self.cached_read is None or not total:
            return None
        return self.cached_read.tokens / total

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Count):
                out[f.name] = {"tokens": value.tokens, "field": value.field}
            else:
                out[f.name] = value
        out["total_input"] = self.total_input
        out["hit_ratio"] = self.hit_ratio
        return out


def _int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _read(usage: dict[str, Any], *paths: str) -> Count | None:
    """The first of ``paths`` (dotted) that holds a non-negative int."""
    for path in paths:
        node: Any = usage
        for key in path.split("."):
            node = node.get(key) if isinstance(node, dict) else None
        found = _int(node)
        if found is not None:
            return Count(found, path)
    return None


def _cost(usage: dict[str, Any]) -> float | None:
    value = usage.get("cost")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e9:
        return float(value)
    return None


def _sum(*counts: Count | None) -> Count | None:
    present = [c for c in counts if c is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return Count(sum(c.tokens for c in present), " + ".join(c.field for c in present))


def usage_from_wire(usage: object) -> Usage | None:
    """``usage`` (any route's shape, docs/protocol.md §2-§6) normalised; None for no usage object.

    The shape is told by its fields: ``cache_read_input_tokens`` / ``cache_creation_input_tokens``
    are Anthropic's (input excludes them), ``prompt_tokens`` chat's, ``input_tokens`` the
    responses, images and audio routes' (OpenAI: input includes the cached tokens).
    """
    if not isinstance(usage, dict):
        return None
    anthropic = any(
        k in usage
        for k in ("cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation")
    )
    chat = "prompt_tokens" in usage or "completion_tokens" in usage
    if anthropic:
        write_5m = _read(usage, "cache_creation.ephemeral_5m_input_tokens")
        write_1h = _read(usage, "cache_creation.ephemeral_1h_input_tokens")
        if write_5m is None and write_1h is None:
            # Without the split every write is a default (5 minute) one.
            write_5m = _read(usage, "cache_creation_input_tokens")
        return Usage(
            input=_read(usage, "input_tokens"),
            cached_read=_read(usage, "cache_read_input_tokens"),
            cache_write_5m=write_5m,
            cache_write_1h=write_1h,
            output=_read(usage, "output_tokens"),
            input_includes_cached=False,
        )
    if chat:
        return Usage(
            input=_read(usage, "prompt_tokens"),
            # DeepSeek reports its cache beside the details (prompt_cache_hit_tokens).
            cached_read=_read(
                usage, "prompt_tokens_details.cached_tokens", "prompt_cache_hit_tokens"
            ),
            # OpenRouter reports writes beside the reads (docs/protocol.md §7), inside
            # prompt_tokens.
            cache_write_5m=_read(usage, "prompt_tokens_details.cache_write_tokens"),
            output=_read(usage, "completion_tokens"),
            reasoning=_read(usage, "completion_tokens_details.reasoning_tokens"),
            image=_read(usage, "prompt_tokens_details.image_tokens"),
            audio=_sum(
                _read(usage, "prompt_tokens_details.audio_tokens"),
                _read(usage, "completion_tokens_details.audio_tokens"),
            ),
            input_includes_cached=True,
            reported_cost=_cost(usage),
        )
    seconds = usage.get("seconds")
    duration = (
        float(seconds)
        if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0
        else None
    )
    # Transcriptions spell it input_token_details (singular), the other routes input_tokens_details.
    return Usage(
        input=_read(usage, "input_tokens"),
        cached_read=_read(usage, "input_tokens_details.cached_tokens"),
        cache_write_5m=_read(usage, "input_tokens_details.cache_write_tokens"),
        output=_read(usage, "output_tokens"),
        reasoning=_read(usage, "output_tokens_details.reasoning_tokens"),
        image=_read(usage, "input_tokens_details.image_tokens"),
        audio=_sum(
            _read(usage, "input_tokens_details.audio_tokens", "input_token_details.audio_tokens"),
            _read(usage, "output_tokens_details.audio_tokens"),
        ),
        audio_seconds=duration,
        input_includes_cached=True if "input_tokens" in usage else None,
        reported_cost=_cost(usage),
    )
