"""How long a prompt cache keeps a prefix and how short a prefix it keeps at all: from the
gateway's /v1/models when it says, else the vendors' documented defaults.

Defaults (docs/cache-and-cost.md cites them):
- OpenAI (chat, responses): prompts of 1,024 tokens or more are cached; a cached prefix stays
  5 to 10 minutes after its last use (in memory), 24 hours with ``prompt_cache_retention: "24h"``.
  The shorter, 5 minutes, is the lifetime a miss is judged by.
- Anthropic (messages): a ``cache_control`` breakpoint keeps the prefix 5 minutes, 1 hour with
  ``"ttl": "1h"``; the minimum is 1,024 tokens (Claude Sonnet and Opus 4; Haiku models need more).
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.protocol.accounting.canonical import Canonical
from playground.protocol.accounting.models_meta import ModelInfo

__all__ = ["CacheRules", "cache_rules", "lifetime_for"]

DEFAULT_LIFETIME = 300.0
ANTHROPIC_EXTENDED = 3600.0
OPENAI_EXTENDED = 86400.0
DEFAULT_MINIMUM = 1024


@dataclass(frozen=True, slots=True)
class CacheRules:
    lifetime: float  # seconds a prefix is kept after its last use
    extended_lifetime: float  # the same when asked for longer (ttl "1h", retention "24h")
    minimum_tokens: int
    source: str  # "models" (the gateway said) or "default"


def cache_rules(route: str, info: ModelInfo | None) -> CacheRules:
    extended = ANTHROPIC_EXTENDED if route == "messages" else OPENAI_EXTENDED
    if info is None or (info.cache_lifetime is None and info.cache_minimum_tokens is None):
        return CacheRules(DEFAULT_LIFETIME, extended, DEFAULT_MINIMUM, "default")
    return CacheRules(
        info.cache_lifetime if info.cache_lifetime is not None else DEFAULT_LIFETIME,
        info.cache_extended_lifetime if info.cache_extended_lifetime is not None else extended,
        info.cache_minimum_tokens if info.cache_minimum_tokens is not None else DEFAULT_MINIMUM,
        "models",
    )


def lifetime_for(rules: CacheRules, canonical: Canonical, body: object) -> float:
    """The lifetime the request asked for: extended for a ``ttl: "1h"`` breakpoint or
    ``prompt_cache_retention: "24h"``, else the default."""
    if any(bp.ttl == "1h" for bp in canonical.breakpoints):
        return rules.extended_lifetime
    if isinstance(body, dict) and body.get("prompt_cache_retention") == "24h":
        return rules.extended_lifetime
    return rules.lifetime
