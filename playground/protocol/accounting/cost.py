"""What one response cost: a line per priced count (tokens x price), their total and currency.

The inclusion rule: OpenAI's input count already holds the cached reads (and OpenRouter's
writes), so those are taken out of the input line before they are priced apart; Anthropic's input
count holds neither. Reasoning tokens are part of the output count: priced apart only when the
model prices them apart, and then taken out of the output line. A count that is there with no
price for it makes the whole cost unknown (None), never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.accounting.prices import ModelPrices
from playground.protocol.accounting.usage import Usage

__all__ = ["Cost", "CostLine", "cost_of"]


@dataclass(frozen=True, slots=True)
class CostLine:
    field: str  # a ModelPrices field name: input, cached_input, output...
    tokens: float  # tokens (images for "image", seconds for "audio_second")
    price: float
    source: str  # the wire field(s) the count came from (the tooltip's arithmetic)

    @property
    def amount(self) -> float:
        return self.tokens * self.price

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "tokens": self.tokens,
            "price": self.price,
            "amount": self.amount,
        }


@dataclass(frozen=True, slots=True)
class Cost:
    lines: tuple[CostLine, ...]
    currency: str

    @property
    def total(self) -> float:
        return sum(line.amount for line in self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "currency": self.currency,
            "lines": [line.to_json() for line in self.lines],
        }

    def explain(self) -> str:
        """The arithmetic, one line per field (the window's tooltip)."""
        rows = [
            f"{ln.field}: {ln.tokens:g} x {ln.price:.10g} = {ln.amount:.10g}  ({ln.source})"
            for ln in self.lines
        ]
        return "\n".join([*rows, f"total: {self.total:.10g} {self.currency}"])


def cost_of(usage: Usage | None, prices: ModelPrices | None, *, images: int = 0) -> Cost | None:
    """``usage`` priced by ``prices``; None when either is unknown or a count has no price.

    ``images``: how many images the response holds (the images routes price per image)."""
    if usage is None or prices is None:
        return None
    if usage.input is None and usage.output is None and usage.audio_seconds is None and not images:
        return None
    wanted: list[tuple[str, float, float | None, str]] = []
    uncached = usage.uncached_input
    if usage.input is not None and uncached is not None:
        wanted.append(("input", uncached, prices.input, usage.input.field))
    for name, count, price in (
        ("cached_input", usage.cached_read, prices.cached_input),
        ("cache_write_5m", usage.cache_write_5m, prices.cache_write_5m),
        ("cache_write_1h", usage.cache_write_1h, prices.cache_write_1h),
    ):
        if count is not None and count.tokens:
            wanted.append((name, count.tokens, price, count.field))
    if usage.output is not None:
        output = usage.output.tokens
        reasoning = usage.reasoning.tokens if usage.reasoning is not None else 0
        if prices.reasoning is not None and reasoning:
            assert usage.reasoning is not None
            wanted.append(("output", max(0, output - reasoning), prices.output, usage.output.field))
            wanted.append(("reasoning", reasoning, prices.reasoning, usage.reasoning.field))
        else:
            wanted.append(("output", output, prices.output, usage.output.field))
    if images:
        wanted.append(("image", images, prices.image, "data[]"))
    if usage.audio_seconds is not None:
        wanted.append(("audio_second", usage.audio_seconds, prices.audio_second, "seconds"))
    lines = []
    for name, tokens, price, source in wanted:
        if price is None:
            if tokens:
                return None  # a count with no price: the total is unknown, not smaller
            continue
        lines.append(CostLine(name, tokens, price, source))
    return Cost(tuple(lines), prices.currency)
