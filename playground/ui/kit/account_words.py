"""How the window writes a request's cache and cost: one short figure and one tooltip each.

Every view that shows them (the status line, a turn, the Traffic list, the eval grid) writes
them here, from the accounting objects (protocol/accounting) or their headless JSON, so the same
request reads the same everywhere. "Not reported" and "unknown" are words, never 0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.protocol.accounting.cache import CacheVerdict
    from playground.protocol.accounting.cost import Cost
    from playground.protocol.accounting.divergence import Divergence

__all__ = [
    "STATUS_WORDS",
    "cache_figure",
    "cache_figure_json",
    "cache_tip",
    "cost_figure",
    "cost_tip",
    "divergence_lines",
    "money",
    "place",
]

STATUS_WORDS = {
    "hit": "hit",
    "partial_hit": "partial hit",
    "cold": "cold",
    "prefix_changed": "prefix changed",
    "expired": "expired",
    "below_minimum": "below minimum",
    "provider_miss": "provider miss",
    "not_reported": "not reported",
}
NO_PRICE = (
    "A price of this model is unknown (the gateway's /v1/models gives none): "
    "set it in Settings, Prices."
)


def money(total: float, currency: str = "USD") -> str:
    """``$0.0123``: cents to four places, smaller amounts to three significant digits."""
    if total >= 1:
        digits = 2
    elif total >= 0.01 or total <= 0:
        digits = 4
    else:
        digits = min(12, 2 - math.floor(math.log10(total)))
    text = f"{total:.{digits}f}"
    return f"${text}" if currency == "USD" else f"{text} {currency}"


def place(part: str, index: int) -> str:
    """Where a prefix diverged, in words: "system", "tools 2", "message 3", "model"."""
    if part in ("tools", "message") or (part == "system" and index):
        return f"{part} {index}"
    return part


def _status_words(status: str, where: str | None) -> str:
    word = STATUS_WORDS.get(status, status)
    return f"{word} at {where}" if status == "prefix_changed" and where else word


def _figure(status: str, cached: int | None, total: int | None, where: str | None) -> str:
    words = _status_words(status, where)
    if cached is None:  # not reported: no count, never "0 cached"
        return f"cache {words}"
    ratio = f" ({cached / total:.0%})" if total else ""
    return f"cache {words}: {cached} tok{ratio}"


def cache_figure(verdict: CacheVerdict | None) -> str:
    """``cache hit: 1234 tok (92%)``; ``cache prefix changed at system: 0 tok (0%)``;
    ``cache not reported``; "" when there is no verdict (the request did not end)."""
    if verdict is None:
        return ""
    div = verdict.divergence
    where = place(div.part, div.index) if div is not None else None
    return _figure(verdict.status, verdict.cached_tokens, verdict.input_tokens, where)


def cache_figure_json(cache: dict[str, Any] | None) -> str:
    """The same from the headless JSON (``{"status", "cached_tokens", "input_tokens",
    "divergence": {"part", "index", "offset"} | None}``: an eval cell's, a proxy line's)."""
    if not isinstance(cache, dict) or not isinstance(cache.get("status"), str):
        return ""
    div = cache.get("divergence")
    where = None
    if isinstance(div, dict) and isinstance(div.get("part"), str):
        index = div.get("index")
        where = place(div["part"], index if isinstance(index, int) else 0)
    cached, total = cache.get("cached_tokens"), cache.get("input_tokens")
    return _figure(
        cache["status"],
        cached if isinstance(cached, int) else None,
        total if isinstance(total, int) else None,
        where,
    )


def divergence_lines(div: Divergence) -> list[str]:
    """The divergence with both sides: where, then what the earlier request had and this one."""
    where = place(div.part, div.index)
    if div.content_part is not None:
        where += f", content part {div.content_part}"
    return [
        f"Changed at {where}, character {div.offset}:",
        f"  before: {div.before!r}",
        f"  now:    {div.after!r}",
    ]


def cache_tip(verdict: CacheVerdict | None) -> str:
    """The verdict's reason, its counts and, when the prefix changed, both sides."""
    if verdict is None:
        return ""
    lines = [f"Prompt cache: {_status_words(verdict.status, None)}. {verdict.reason}"]
    if verdict.cached_tokens is None:
        lines.append("Cached tokens: not reported by the provider.")
    else:
        ratio = verdict.hit_ratio
        shown = f" ({ratio:.1%} of the input)" if ratio is not None else ""
        lines.append(f"Cached tokens: {verdict.cached_tokens} of {verdict.input_tokens}{shown}.")
    if verdict.divergence is not None:
        lines += divergence_lines(verdict.divergence)
    return "\n".join(lines)


def cost_figure(cost: Cost | None, *, known: bool = True) -> str:
    """``$0.0012``, or ``cost unknown`` (``known``: False when there was nothing to price)."""
    if cost is None:
        return "cost unknown" if known else ""
    return money(cost.total, cost.currency)


def cost_tip(cost: Cost | None) -> str:
    """The arithmetic (tokens x price per field), or why the cost is unknown."""
    if cost is None:
        return NO_PRICE
    return "Cost, tokens x price (USD per token) per field:\n" + cost.explain()
