"""Costs of fixture usages of every route shape against a hand calculation (to 1e-9), with no
double counting of cached tokens; unknown prices give an unknown cost, never 0."""

from __future__ import annotations

from typing import Any

import pytest
from test_accounting_usage import (
    CHAT_NO_CACHE,
    CHAT_OPENAI,
    CHAT_OPENROUTER_WRITE,
    IMAGES,
    MESSAGES,
    MESSAGES_NO_SPLIT,
    RESPONSES,
    SPEECH,
    TRANSCRIPTION_SECONDS,
    TRANSCRIPTION_TOKENS,
)

from playground.protocol.accounting.cost import cost_of
from playground.protocol.accounting.prices import ModelPrices, prices_from_openrouter
from playground.protocol.accounting.usage import usage_from_wire

OPENAI = ModelPrices(input=2e-6, cached_input=0.5e-6, output=8e-6)
OPENAI_REASONING = ModelPrices(input=2e-6, cached_input=0.5e-6, output=8e-6, reasoning=10e-6)
ANTHROPIC = ModelPrices(
    input=3e-6, cached_input=0.3e-6, cache_write_5m=3.75e-6, cache_write_1h=6e-6, output=15e-6
)
WRITES = ModelPrices(input=3e-6, cached_input=0.3e-6, cache_write_5m=3.75e-6, output=15e-6)
MEDIA = ModelPrices(input=5e-6, output=40e-6, image=0.04, audio_second=1e-4)


def _total(usage: dict[str, object], prices: ModelPrices, images: int = 0) -> float:
    cost = cost_of(usage_from_wire(usage), prices, images=images)
    assert cost is not None
    assert cost.total == pytest.approx(sum(line.amount for line in cost.lines), abs=1e-12)
    return cost.total


# (usage, prices, images, the hand calculation)
CASES: dict[str, tuple[Any, ModelPrices, int, float]] = {
    # 600 uncached input (1000 - 400 cached), 400 cached, 300 output (reasoning inside it)
    "chat": (CHAT_OPENAI, OPENAI, 0, 600 * 2e-6 + 400 * 0.5e-6 + 300 * 8e-6),
    "chat-reasoning-priced": (
        CHAT_OPENAI,
        OPENAI_REASONING,
        0,
        600 * 2e-6 + 400 * 0.5e-6 + 200 * 8e-6 + 100 * 10e-6,
    ),
    "chat-no-cache-fields": (CHAT_NO_CACHE, OPENAI, 0, 79 * 2e-6 + 1 * 8e-6),
    "chat-openrouter-write": (
        CHAT_OPENROUTER_WRITE,
        WRITES,
        0,
        200 * 3e-6 + 1800 * 3.75e-6 + 50 * 15e-6,
    ),
    "responses": (RESPONSES, OPENAI, 0, (2941 - 1920) * 2e-6 + 1920 * 0.5e-6 + 1249 * 8e-6),
    "images": (IMAGES, MEDIA, 2, 50 * 5e-6 + 4160 * 40e-6 + 2 * 0.04),
    "speech": (SPEECH, MEDIA, 0, 10 * 5e-6 + 93 * 40e-6),
    "transcription-tokens": (TRANSCRIPTION_TOKENS, MEDIA, 0, 64 * 5e-6 + 224 * 40e-6),
    "transcription-seconds": (TRANSCRIPTION_SECONDS, MEDIA, 0, 12.5 * 1e-4),
    # Anthropic: input_tokens holds neither the reads nor the writes: nothing is taken out.
    "messages": (
        MESSAGES,
        ANTHROPIC,
        0,
        50 * 3e-6 + 1000 * 0.3e-6 + 200 * 3.75e-6 + 300 * 6e-6 + 80 * 15e-6,
    ),
    "messages-no-split": (MESSAGES_NO_SPLIT, ANTHROPIC, 0, 12 * 3e-6 + 700 * 3.75e-6 + 3 * 15e-6),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cost_equals_the_hand_calculation(name: str) -> None:
    usage, prices, images, expected = CASES[name]
    assert abs(_total(usage, prices, images) - expected) < 1e-9
    assert abs(_total(usage, prices, images) - expected) < 1e-9 * max(1.0, expected)


def test_cached_tokens_are_not_counted_twice() -> None:
    chat = cost_of(usage_from_wire(CHAT_OPENAI), OPENAI)
    assert chat is not None
    lines = {line.field: line for line in chat.lines}
    assert lines["input"].tokens == 600 and lines["cached_input"].tokens == 400
    assert sum(lines[f].tokens for f in ("input", "cached_input")) == 1000
    messages = cost_of(usage_from_wire(MESSAGES), ANTHROPIC)
    assert messages is not None
    tokens = {line.field: line.tokens for line in messages.lines}
    assert tokens == {
        "input": 50,
        "cached_input": 1000,
        "cache_write_5m": 200,
        "cache_write_1h": 300,
        "output": 80,
    }
    json_lines = messages.to_json()["lines"]
    assert set(json_lines[0]) == {"field", "tokens", "price", "amount"}


def test_unknown_prices_make_the_cost_unknown() -> None:
    assert cost_of(usage_from_wire(CHAT_OPENAI), None) is None
    assert cost_of(None, OPENAI) is None
    no_cached_price = ModelPrices(input=2e-6, output=8e-6)
    assert cost_of(usage_from_wire(CHAT_OPENAI), no_cached_price) is None
    # A 0 count needs no price: nothing was cached, the rest is known.
    zero = {**CHAT_NO_CACHE, "prompt_tokens_details": {"cached_tokens": 0}}
    cost = cost_of(usage_from_wire(zero), no_cached_price)
    assert cost is not None and abs(cost.total - (79 * 2e-6 + 8e-6)) < 1e-12
    assert cost_of(usage_from_wire(MESSAGES), ModelPrices(input=3e-6, output=15e-6)) is None
    assert cost_of(usage_from_wire(TRANSCRIPTION_SECONDS), OPENAI) is None


def test_openrouter_pricing_strings() -> None:
    prices = prices_from_openrouter(
        {
            "prompt": "0.000003",
            "completion": "0.000015",
            "input_cache_read": "0.0000003",
            "input_cache_write": "0.00000375",
            "internal_reasoning": "-1",
            "image": "nonsense",
        }
    )
    assert prices == ModelPrices(
        input=3e-6, cached_input=3e-7, cache_write_5m=3.75e-6, output=15e-6
    )
    assert prices_from_openrouter({"request": "0"}) is None
    assert prices_from_openrouter("free") is None


def test_the_arithmetic_is_explained() -> None:
    cost = cost_of(usage_from_wire(CHAT_OPENAI), OPENAI)
    assert cost is not None
    text = cost.explain()
    assert "input: 600 x 2e-06" in text and "prompt_tokens_details.cached_tokens" in text
    assert text.endswith("USD")
