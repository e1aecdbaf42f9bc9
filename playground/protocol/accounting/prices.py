"""A model's prices (USD per token, per image, per audio second): read from a /v1/models entry's
OpenRouter ``pricing`` or from the price file's JSON, and checked.

Prices are per token, as OpenRouter's ``pricing`` gives them (strings of USD per token); a
price not given is None ("unknown"), never 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

__all__ = [
    "FILE_FORMAT",
    "PRICE_FIELDS",
    "ModelPrices",
    "PriceTable",
    "prices_from_openrouter",
    "table_from_json",
    "table_to_json",
]

FILE_FORMAT = "playground-prices/1"

# OpenRouter's pricing keys (docs/protocol.md §7) for each of ours. ``input_cache_write`` is the
# default (5 minute) write; the 1 hour write and the audio second have no OpenRouter key: the
# simulator's list (and the price file) use ``input_cache_write_1h`` and ``audio_second``.
_OPENROUTER = {
    "input": "prompt",
    "cached_input": "input_cache_read",
    "cache_write_5m": "input_cache_write",
    "cache_write_1h": "input_cache_write_1h",
    "output": "completion",
    "reasoning": "internal_reasoning",
    "image": "image",
    "audio_second": "audio_second",
}


@dataclass(frozen=True, slots=True)
class ModelPrices:
    """One model's prices; each None when unknown. ``reasoning`` only when priced apart."""

    input: float | None = None
    cached_input: float | None = None
    cache_write_5m: float | None = None
    cache_write_1h: float | None = None
    output: float | None = None
    reasoning: float | None = None
    image: float | None = None  # per image generated
    audio_second: float | None = None
    currency: str = "USD"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "currency"}


PRICE_FIELDS = tuple(f.name for f in fields(ModelPrices) if f.name != "currency")
PriceTable = dict[str, ModelPrices]


def _price(value: object, where: str) -> float | None:
    """A non-negative finite number (or its decimal string); ValueError names ``where``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"{where}: a price is a number, not {value!r}")
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise ValueError(f"{where}: {value[:40]!r} is not a number") from None
    elif isinstance(value, int | float):
        number = float(value)
    else:
        raise ValueError(f"{where}: a price is a number, not {type(value).__name__}")
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{where}: {number} is not a price (finite, not negative)")
    return number


def prices_from_openrouter(pricing: object) -> ModelPrices | None:
    """A /v1/models entry's ``pricing`` (OpenRouter's shape); None when it gives no token price.

    OpenRouter sends "-1" for a price it does not know (its auto router): that is unknown too.
    """
    if not isinstance(pricing, dict):
        return None
    values: dict[str, float | None] = {}
    for ours, theirs in _OPENROUTER.items():
        try:
            values[ours] = _price(pricing.get(theirs), theirs)
        except ValueError:
            values[ours] = None
    if values["input"] is None and values["output"] is None:
        return None
    return ModelPrices(**values)  # type: ignore[arg-type]  # (the float fields only)


def table_from_json(data: object) -> PriceTable:
    """The price file's JSON as a table; ValueError (one sentence) for anything not in its format:
    ``{"format": "playground-prices/1", "currency": "USD", "models": {MODEL: {FIELD: price}}}``."""
    if not isinstance(data, dict):
        raise ValueError("a price file is a JSON object")
    if data.get("format", FILE_FORMAT) != FILE_FORMAT:
        raise ValueError(f"unknown price file format {str(data.get('format'))[:40]!r}")
    currency = data.get("currency", "USD")
    if not isinstance(currency, str) or not currency.strip() or len(currency) > 8:
        raise ValueError("currency: a short code such as USD")
    models = data.get("models")
    if not isinstance(models, dict):
        raise ValueError('a price file needs "models": {model: {field: price}}')
    table: PriceTable = {}
    for model, prices in models.items():
        if not isinstance(prices, dict):
            raise ValueError(f"{model[:80]}: prices are an object of field: price")
        unknown = sorted(set(prices) - set(PRICE_FIELDS))
        if unknown:
            raise ValueError(f"{model[:80]}: unknown price field {unknown[0][:40]!r}")
        values = {name: _price(prices.get(name), f"{model[:80]}.{name}") for name in PRICE_FIELDS}
        table[model] = ModelPrices(**values, currency=currency.strip())
    return table


def table_to_json(table: PriceTable) -> dict[str, Any]:
    currencies = {p.currency for p in table.values()} or {"USD"}
    return {
        "format": FILE_FORMAT,
        "currency": sorted(currencies)[0],
        "models": {model: prices.to_json() for model, prices in sorted(table.items())},
    }
