"""The cache classification, the divergence and the warning before sending, on hand-made
requests and usages (no simulator): each class, and where each prefix change is found."""

from __future__ import annotations

from typing import Any

import pytest
from cache_scenarios import SYSTEM, TURNS, body, first_turn_index

from playground.protocol.accounting.cache import SentRequest, classify, predict_miss
from playground.protocol.accounting.cache_rules import CacheRules, cache_rules, lifetime_for
from playground.protocol.accounting.canonical import canonical_request
from playground.protocol.accounting.divergence import first_divergence
from playground.protocol.accounting.models_meta import models_info
from playground.protocol.accounting.usage import usage_from_wire

RULES = CacheRules(lifetime=300, extended_lifetime=3600, minimum_tokens=64, source="test")


def _sent(route: str, b: dict[str, Any], at: float, usage: dict[str, Any] | None) -> SentRequest:
    return SentRequest(route, b, at, usage_from_wire(usage))


def _chat_usage(prompt: int, cached: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": 5}
    if cached is not None:
        out["prompt_tokens_details"] = {"cached_tokens": cached}
    return out


def test_divergence_in_a_later_content_part_names_it() -> None:
    old = body("chat", TURNS[:3])
    new = body("chat", TURNS[:3])
    new["messages"][3]["content"] = [
        {"type": "text", "text": "And what about"},
        {"type": "text", "text": " the evenings, are they warm?"},
    ]
    old["messages"][3]["content"] = [
        {"type": "text", "text": "And what about"},
        {"type": "text", "text": " the evenings, are they cold?"},
    ]
    found = first_divergence(canonical_request("chat", old), canonical_request("chat", new))
    assert found is not None
    assert (found.part, found.index, found.content_part) == ("message", 3, 1)
    assert found.offset == len(" the evenings, are they ")
    assert "cold" in found.before and "warm" in found.after


def test_model_change_and_added_turns() -> None:
    a = canonical_request("responses", body("responses", TURNS[:1]))
    b = canonical_request("responses", body("responses", TURNS[:3]))
    assert first_divergence(a, b) is None  # turns added: the old prefix is whole
    assert first_divergence(b, a) is None  # turns dropped: what is left is still cached
    other = body("responses", TURNS[:3]) | {"model": "sim-reasoner"}
    found = first_divergence(a, canonical_request("responses", other))
    assert found is not None and found.part == "model" and found.offset == len("sim-")


def test_each_class_from_hand_made_usages() -> None:
    one, three = body("chat", TURNS[:1]), body("chat", TURNS[:3])
    first = _sent("chat", one, 0.0, _chat_usage(150, 0))
    assert classify(None, first, RULES).status == "cold"
    hit = classify(first, _sent("chat", three, 10.0, _chat_usage(200, 150)), RULES)
    assert hit.status == "hit" and hit.hit_ratio == pytest.approx(0.75)
    partial = classify(first, _sent("chat", three, 10.0, _chat_usage(200, 64)), RULES)
    assert partial.status == "partial_hit"
    miss = classify(first, _sent("chat", three, 10.0, _chat_usage(200, 0)), RULES)
    assert miss.status == "provider_miss"
    late = classify(first, _sent("chat", three, 301.0, _chat_usage(200, 0)), RULES)
    assert late.status == "expired"
    silent = classify(first, _sent("chat", three, 10.0, _chat_usage(200, None)), RULES)
    assert silent.status == "not_reported" and silent.cached_tokens is None
    assert silent.to_json()["cached_tokens"] is None  # never 0
    strict = CacheRules(300, 3600, 4096, "test")
    assert classify(first, _sent("chat", three, 10.0, _chat_usage(200, 0)), strict).status == (
        "below_minimum"
    )
    short = _sent("chat", body("chat", ["Hi"], system=None), 0.0, _chat_usage(9, 0))
    assert classify(None, short, RULES).status == "below_minimum"


def test_one_hour_breakpoint_extends_the_lifetime() -> None:
    b = body("messages", TURNS[:1])
    b["messages"][0]["content"][0]["cache_control"]["ttl"] = "1h"
    usage = {"input_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 150}
    first = _sent("messages", b, 0.0, usage)
    assert lifetime_for(RULES, first.canonical, b) == 3600
    later = _sent(
        "messages",
        body("messages", TURNS[:3]),
        1000.0,
        {"input_tokens": 20, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 180},
    )
    assert classify(first, later, RULES).status == "provider_miss"  # 1000 s < 1 h
    five = _sent("messages", body("messages", TURNS[:1]), 0.0, usage)
    assert classify(five, later, RULES).status == "expired"  # 1000 s > 5 min


def test_prediction_before_sending() -> None:
    last = _sent("chat", body("chat", TURNS[:1]), 100.0, _chat_usage(150, 0))
    fine = predict_miss(last, "chat", body("chat", TURNS[:3]), 160.0, RULES)
    assert not fine.miss and fine.status == "likely_hit"
    changed = body("chat", TURNS[:3], system=SYSTEM + "Now: 20:01")
    warn = predict_miss(last, "chat", changed, 160.0, RULES)
    assert warn.miss and warn.status == "prefix_changed"
    assert warn.divergence is not None and warn.divergence.part == "system"
    assert warn.divergence.offset == len(SYSTEM) and "system" in warn.reason
    idle = predict_miss(last, "chat", body("chat", TURNS[:3]), 100.0 + 301, RULES)
    assert idle.miss and idle.status == "expired"
    edited = body("chat", [TURNS[0].replace("Paris", "Lyon"), *TURNS[1:3]])
    early = predict_miss(last, "chat", edited, 160.0, RULES)
    assert early.divergence is not None
    assert early.divergence.index == first_turn_index("chat")
    assert early.divergence.offset == TURNS[0].index("Paris")
    assert predict_miss(None, "chat", edited, 0.0, RULES).status == "cold"


def test_rules_from_the_models_list_else_vendor_defaults() -> None:
    infos = models_info(
        {
            "data": [
                {
                    "id": "m",
                    "context_length": 1000,
                    "prompt_cache": {"lifetime_seconds": 2, "minimum_tokens": 10},
                },
                {"id": "vllm", "max_model_len": 4096},
                {"id": "or", "top_provider": {"context_length": 8192}},
                {"id": 7},
                "junk",
            ]
        }
    )
    assert set(infos) == {"m", "vllm", "or"}
    rules = cache_rules("chat", infos["m"])
    assert (rules.lifetime, rules.minimum_tokens, rules.source) == (2.0, 10, "models")
    default = cache_rules("messages", infos["vllm"])
    assert (default.lifetime, default.extended_lifetime, default.minimum_tokens) == (
        300.0,
        3600.0,
        1024,
    )
    assert default.source == "default"
    assert infos["vllm"].context_window == 4096 and infos["or"].context_window == 8192


@pytest.mark.parametrize("junk", [None, 3, "x", {"messages": "no"}, {"messages": [1, None]}])
def test_anything_on_the_wire_gives_a_prefix(junk: object) -> None:
    canonical = canonical_request("chat", junk)
    assert canonical.segments == () or all(s.part for s in canonical.segments)


def test_a_chained_responses_request_is_judged_by_its_usage_alone() -> None:
    first = _sent(
        "responses",
        body("responses", TURNS[:1]),
        0.0,
        {"input_tokens": 150, "input_tokens_details": {"cached_tokens": 0}},
    )
    chained = {"model": "sim-chat", "previous_response_id": "resp_1", "input": "And then?"}
    read = {"input_tokens": 170, "input_tokens_details": {"cached_tokens": 150}}
    verdict = classify(first, _sent("responses", chained, 5.0, read), RULES)
    assert verdict.status == "hit" and verdict.divergence is None
