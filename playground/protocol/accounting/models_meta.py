"""What a /v1/models entry says about a model's context window, prices and prompt cache.

The context window: ``context_length`` (OpenRouter, the simulator), ``context_window``,
``top_provider.context_length`` (OpenRouter) or ``max_model_len`` (vLLM). Prices: OpenRouter's
``pricing``. The cache: the simulator's ``prompt_cache`` object (``lifetime_seconds``,
``extended_lifetime_seconds``, ``minimum_tokens``); a gateway that says nothing gets the vendor
defaults of cache_rules.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.accounting.prices import ModelPrices, prices_from_openrouter

__all__ = ["ModelInfo", "models_info"]

MAX_MODELS = 5000  # a list longer than any gateway's is cut, not held whole


@dataclass(frozen=True, slots=True)
class ModelInfo:
    id: str
    context_window: int | None = None
    prices: ModelPrices | None = None
    cache_lifetime: float | None = None
    cache_extended_lifetime: float | None = None
    cache_minimum_tokens: int | None = None


def _positive_int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _seconds(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 10**9:
        return float(value)
    return None


def _info(entry: dict[str, Any]) -> ModelInfo:
    top = entry.get("top_provider")
    window = (
        _positive_int(entry.get("context_length"))
        or _positive_int(entry.get("context_window"))
        or (_positive_int(top.get("context_length")) if isinstance(top, dict) else None)
        or _positive_int(entry.get("max_model_len"))
    )
    cache = entry.get("prompt_cache")
    cache = cache if isinstance(cache, dict) else {}
    minimum = cache.get("minimum_tokens")
    return ModelInfo(
        id=str(entry["id"]),
        context_window=window,
        prices=prices_from_openrouter(entry.get("pricing")),
        cache_lifetime=_seconds(cache.get("lifetime_seconds")),
        cache_extended_lifetime=_seconds(cache.get("extended_lifetime_seconds")),
        cache_minimum_tokens=minimum
        if isinstance(minimum, int) and not isinstance(minimum, bool) and minimum >= 0
        else None,
    )


def models_info(payload: object) -> dict[str, ModelInfo]:
    """Each model of a /v1/models answer (``{"data": [...]}`` or a bare list) by its id."""
    data = payload.get("data") if isinstance(payload, dict) else payload
    out: dict[str, ModelInfo] = {}
    if isinstance(data, list):
        for entry in data[:MAX_MODELS]:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                out[entry["id"]] = _info(entry)
    return out
