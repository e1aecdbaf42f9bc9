"""Each request's prompt cache, explained: what was cached, and why not when it was not.

A request is compared with the previous request of the same conversation (through the proxy:
the previous exchange of the same client, route and model). The classes, in the order tried:

- ``not_reported``: the usage has no cache field at all (never shown as 0 % cached);
- ``hit`` / ``partial_hit``: tokens were read from the cache, the prefix unchanged (partial:
  less than 90 % of what the previous request left to reuse);
- ``cold``: no earlier request (``below_minimum`` when the request itself is too short);
- ``prefix_changed``: the prefix differs (model, tools, system, message N, a ``cache_control``
  breakpoint moved); ``divergence`` says where;
- ``below_minimum``: the prefix the two requests share is shorter than the minimum;
- ``expired``: more time passed since the previous request than the cache's lifetime;
- ``provider_miss``: same prefix, in time, long enough, and still nothing was read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.protocol.accounting.cache_rules import CacheRules, lifetime_for
from playground.protocol.accounting.canonical import Canonical, canonical_request
from playground.protocol.accounting.divergence import Divergence, first_divergence
from playground.protocol.accounting.tokens import prefix_tokens
from playground.protocol.accounting.usage import Usage

__all__ = ["STATUSES", "CacheVerdict", "Prediction", "SentRequest", "classify", "predict_miss"]

STATUSES = (
    "hit",
    "partial_hit",
    "cold",
    "prefix_changed",
    "expired",
    "below_minimum",
    "provider_miss",
    "not_reported",
)
HIT_SHARE = 0.9  # a read of at least this share of what could be reused is a full hit


@dataclass(frozen=True, slots=True)
class SentRequest:
    """A request as sent: its route, JSON body, when (seconds, any one clock) and its usage."""

    route: str
    body: Any
    sent_at: float
    usage: Usage | None = None
    _made: Canonical | None = field(default=None, compare=False, repr=False)

    @property
    def canonical(self) -> Canonical:
        """Its canonical prefix, made once: a conversation's ledger reads each request twice
        (as the one accounted, then as the previous of the next), and a 100-turn request took
        2-3 ms to make canonical at a run's end (the session benchmark). A request sent is
        never changed."""
        made = self._made
        if made is None:
            made = canonical_request(self.route, self.body)
            object.__setattr__(self, "_made", made)  # frozen: set once, as its own cache
        return made


@dataclass(frozen=True, slots=True)
class CacheVerdict:
    status: str
    cached_tokens: int | None
    input_tokens: int | None  # every input token, cached or not
    divergence: Divergence | None
    reason: str  # one sentence for the window

    @property
    def hit_ratio(self) -> float | None:
        if self.cached_tokens is None or not self.input_tokens:
            return None
        return self.cached_tokens / self.input_tokens

    def to_json(self) -> dict[str, Any]:
        """The headless contract: status, cached_tokens, input_tokens, divergence."""
        return {
            "status": self.status,
            "cached_tokens": self.cached_tokens,
            "input_tokens": self.input_tokens,
            "divergence": self.divergence.to_json() if self.divergence is not None else None,
        }


def cacheable_tokens(canonical: Canonical, route: str) -> int:
    """Tokens a cache may keep of this request: through its last ``cache_control`` breakpoint
    (Anthropic caches nothing without one), else the whole prompt."""
    if canonical.breakpoints:
        last = max(canonical.breakpoints, key=lambda bp: (bp.segment, bp.piece))
        return prefix_tokens(canonical, last.segment, last.piece)
    if route == "messages":
        return 0
    return prefix_tokens(canonical, len(canonical.segments))


def _reusable(previous: SentRequest, old: Canonical, divergence: Divergence | None) -> int:
    """What the previous request left in the cache for this one: its own report of what it
    read and wrote when it has one, else the estimate, cut at the divergence."""
    estimate = cacheable_tokens(old, previous.route)
    if divergence is not None:
        return min(estimate, prefix_tokens(old, divergence.segment))
    usage = previous.usage
    if usage is not None and usage.cache_reported:
        if usage.input_includes_cached is False or old.breakpoints:
            read = usage.cached_read.tokens if usage.cached_read is not None else 0
            return read + (usage.cache_write or 0) or estimate
        return usage.total_input or estimate
    return estimate


def _marker_moved(old: Canonical, new: Canonical) -> Divergence | None:
    """A breakpoint moved back (or gone) between two otherwise equal prefixes: the new last
    breakpoint comes before the old one, so what the old one wrote is out of the new request's
    reach (a cache looks back from the last breakpoint, never past it). A breakpoint moved on to
    a later turn is the usual way to grow a cached conversation, and no cause of a miss."""

    def spots(c: Canonical) -> list[tuple[int, int]]:
        return sorted((bp.segment, bp.piece) for bp in c.breakpoints)

    a, b = spots(old), spots(new)
    if a == b or not a or (b and b[-1] >= a[-1]):
        return None
    for x, y in zip([*a, None], [*b, None], strict=False):
        if x != y:
            spot = min(s for s in (x, y) if s is not None)
            segment = (new if spot in b else old).segments[spot[0]]
            part = spot[1] - 1 if spot[1] else None
            return Divergence("cache_control", segment.index, 0, part, spot[0])
    return None


def _chained(request: SentRequest) -> bool:
    """A responses request that continues a stored response or conversation: the earlier turns
    are the server's, not in the body, so the two bodies are not compared."""
    body = request.body
    return (
        request.route == "responses"
        and isinstance(body, dict)
        and bool(body.get("previous_response_id") or body.get("conversation"))
    )


def classify(previous: SentRequest | None, current: SentRequest, rules: CacheRules) -> CacheVerdict:
    """``current``'s cache, given the previous request of its conversation (None: the first)."""
    usage = current.usage
    new = current.canonical
    old = previous.canonical if previous is not None else None
    divergence = first_divergence(old, new) if old is not None and not _chained(current) else None
    total = usage.total_input if usage is not None else None
    if usage is None or not usage.cache_reported:
        return CacheVerdict(
            "not_reported", None, total, divergence, "The provider reported no cache figures."
        )
    cached = usage.cached_read.tokens if usage.cached_read is not None else 0

    def verdict(status: str, reason: str, where: Divergence | None = divergence) -> CacheVerdict:
        return CacheVerdict(status, cached, total, where, reason)

    if previous is None or old is None:
        if cached:
            return verdict("hit", f"{cached} tokens read from a cache an earlier request left.")
        if cacheable_tokens(new, current.route) < rules.minimum_tokens:
            return verdict(
                "below_minimum", f"The prompt is shorter than {rules.minimum_tokens} tokens."
            )
        return verdict("cold", "No earlier request: this one fills the cache.")
    if divergence is not None:
        return verdict("prefix_changed", f"The prefix changed at {divergence.describe()}.")
    reusable = _reusable(previous, old, divergence)
    if cached >= HIT_SHARE * reusable > 0:
        return verdict("hit", f"{cached} of {total} input tokens read from the cache.")
    moved = _marker_moved(old, new)
    if moved is not None:
        return verdict(
            "prefix_changed",
            "A cache_control breakpoint moved: what the previous request wrote is not reused.",
            moved,
        )
    if cached:
        return verdict("partial_hit", f"{cached} tokens read of about {reusable} reusable.")
    if current.route == "messages" and not old.breakpoints:
        return verdict(
            "below_minimum", "No cache_control breakpoint: nothing of the prompt is cacheable."
        )
    if reusable < rules.minimum_tokens:
        return verdict(
            "below_minimum",
            f"The shared prefix (about {reusable} tokens) is shorter than the minimum "
            f"{rules.minimum_tokens}.",
        )
    lifetime = lifetime_for(rules, old, previous.body)
    idle = current.sent_at - previous.sent_at
    if idle > lifetime:
        return verdict(
            "expired", f"{idle:.0f} s since the previous request, past the {lifetime:g} s lifetime."
        )
    return verdict("provider_miss", "Same prefix, in time, long enough: the provider read nothing.")


@dataclass(frozen=True, slots=True)
class Prediction:
    """Before sending: will this request miss the cache the last one left, and where."""

    miss: bool
    status: str  # "likely_hit", "prefix_changed", "expired", "below_minimum", "cold"
    divergence: Divergence | None
    reason: str


def predict_miss(
    last: SentRequest | None, route: str, body: Any, now: float, rules: CacheRules
) -> Prediction:
    """The warning before sending: ``body`` compared with ``last`` (the last request sent on the
    conversation) at time ``now`` (the same clock as ``last.sent_at``)."""
    new = canonical_request(route, body)
    if last is None:
        return Prediction(True, "cold", None, "No earlier request: nothing is cached yet.")
    old = last.canonical
    divergence = first_divergence(old, new) or _marker_moved(old, new)
    if divergence is not None:
        return Prediction(
            True, "prefix_changed", divergence, f"The prefix changed at {divergence.describe()}."
        )
    reusable = cacheable_tokens(old, last.route)
    if reusable < rules.minimum_tokens:
        return Prediction(
            True,
            "below_minimum",
            None,
            f"The shared prefix is under {rules.minimum_tokens} tokens.",
        )
    lifetime = lifetime_for(rules, old, last.body)
    if now - last.sent_at > lifetime:
        return Prediction(
            True,
            "expired",
            None,
            f"{now - last.sent_at:.0f} s idle: past the {lifetime:g} s lifetime.",
        )
    return Prediction(False, "likely_hit", None, "The prefix is unchanged and in time.")
