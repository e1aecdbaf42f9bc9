"""Every route's usage shape in one model: each count with its wire field, the inclusion rule,
and "not reported" kept apart from 0 (fixtures of each shape, and the shared captures)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from protocol_helpers import CAPTURES, all_captures, sidecar

from playground.protocol.accounting.usage import Count, usage_from_wire

ROOT = Path(__file__).resolve().parents[2]

CHAT_OPENAI = {
    "prompt_tokens": 1000,
    "completion_tokens": 300,
    "total_tokens": 1300,
    "prompt_tokens_details": {"cached_tokens": 400, "audio_tokens": 7},
    "completion_tokens_details": {"reasoning_tokens": 100, "audio_tokens": 5},
}
CHAT_NO_CACHE = {"prompt_tokens": 79, "completion_tokens": 1, "total_tokens": 80}
CHAT_DEEPSEEK = {
    "prompt_tokens": 60,
    "completion_tokens": 20,
    "prompt_cache_hit_tokens": 32,
    "prompt_cache_miss_tokens": 28,
}
CHAT_OPENROUTER_WRITE = {
    "prompt_tokens": 2000,
    "completion_tokens": 50,
    "cost": 0.0123,
    "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 1800},
}
RESPONSES = {
    "input_tokens": 2941,
    "input_tokens_details": {"cached_tokens": 1920},
    "output_tokens": 1249,
    "output_tokens_details": {"reasoning_tokens": 1024},
    "total_tokens": 4190,
}
IMAGES = {
    "input_tokens": 50,
    "input_tokens_details": {"text_tokens": 10, "image_tokens": 40},
    "output_tokens": 4160,
    "total_tokens": 4210,
}
SPEECH = {"input_tokens": 10, "output_tokens": 93, "total_tokens": 103}
TRANSCRIPTION_TOKENS = {
    "type": "tokens",
    "input_tokens": 64,
    "input_token_details": {"text_tokens": 0, "audio_tokens": 64},
    "output_tokens": 224,
    "total_tokens": 288,
}
TRANSCRIPTION_SECONDS = {"type": "duration", "seconds": 12.5}
MESSAGES = {
    "input_tokens": 50,
    "cache_creation_input_tokens": 500,
    "cache_read_input_tokens": 1000,
    "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 300},
    "output_tokens": 80,
}
MESSAGES_NO_SPLIT = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 700,
    "cache_read_input_tokens": 0,
    "output_tokens": 3,
}


def test_chat_shape_with_every_detail() -> None:
    u = usage_from_wire(CHAT_OPENAI)
    assert u is not None
    assert u.input == Count(1000, "prompt_tokens")
    assert u.cached_read == Count(400, "prompt_tokens_details.cached_tokens")
    assert u.output == Count(300, "completion_tokens")
    assert u.reasoning == Count(100, "completion_tokens_details.reasoning_tokens")
    assert u.audio is not None and u.audio.tokens == 12
    assert "prompt_tokens_details.audio_tokens" in u.audio.field
    assert u.input_includes_cached is True
    assert u.uncached_input == 600 and u.total_input == 1000
    assert u.hit_ratio == pytest.approx(0.4)


def test_not_reported_is_none_never_zero() -> None:
    u = usage_from_wire(CHAT_NO_CACHE)
    assert u is not None
    assert u.cached_read is None and u.reasoning is None and u.cache_write is None
    assert not u.cache_reported and u.hit_ratio is None
    zero = usage_from_wire({**CHAT_NO_CACHE, "prompt_tokens_details": {"cached_tokens": 0}})
    assert zero is not None and zero.cached_read == Count(0, "prompt_tokens_details.cached_tokens")
    assert zero.cache_reported and zero.hit_ratio == 0.0
    assert usage_from_wire(None) is None and usage_from_wire([1]) is None


def test_deepseek_and_openrouter_chat_shapes() -> None:
    deep = usage_from_wire(CHAT_DEEPSEEK)
    assert deep is not None and deep.cached_read == Count(32, "prompt_cache_hit_tokens")
    write = usage_from_wire(CHAT_OPENROUTER_WRITE)
    assert write is not None
    assert write.cache_write_5m == Count(1800, "prompt_tokens_details.cache_write_tokens")
    assert write.uncached_input == 200 and write.reported_cost == 0.0123


def test_responses_images_speech_and_transcription_shapes() -> None:
    r = usage_from_wire(RESPONSES)
    assert r is not None and r.input_includes_cached is True
    assert r.cached_read == Count(1920, "input_tokens_details.cached_tokens")
    assert r.reasoning == Count(1024, "output_tokens_details.reasoning_tokens")
    img = usage_from_wire(IMAGES)
    assert img is not None and img.image == Count(40, "input_tokens_details.image_tokens")
    assert img.cached_read is None
    speech = usage_from_wire(SPEECH)
    assert speech is not None and speech.input == Count(10, "input_tokens")
    assert speech.output == Count(93, "output_tokens") and speech.audio is None
    tr = usage_from_wire(TRANSCRIPTION_TOKENS)
    assert tr is not None and tr.audio == Count(64, "input_token_details.audio_tokens")
    seconds = usage_from_wire(TRANSCRIPTION_SECONDS)
    assert seconds is not None and seconds.audio_seconds == 12.5 and seconds.input is None


def test_messages_shape_counts_the_cache_apart() -> None:
    m = usage_from_wire(MESSAGES)
    assert m is not None and m.input_includes_cached is False
    assert m.input == Count(50, "input_tokens")
    assert m.cached_read == Count(1000, "cache_read_input_tokens")
    assert m.cache_write_5m == Count(200, "cache_creation.ephemeral_5m_input_tokens")
    assert m.cache_write_1h == Count(300, "cache_creation.ephemeral_1h_input_tokens")
    assert m.uncached_input == 50 and m.total_input == 1550
    assert m.hit_ratio == pytest.approx(1000 / 1550)
    plain = usage_from_wire(MESSAGES_NO_SPLIT)
    assert plain is not None and plain.cache_write_1h is None
    assert plain.cache_write_5m == Count(700, "cache_creation_input_tokens")


@pytest.mark.parametrize("bad", [-1, True, "7", 1.5, None])
def test_a_count_that_is_not_a_count_is_not_reported(bad: Any) -> None:
    u = usage_from_wire({"prompt_tokens": bad, "prompt_tokens_details": {"cached_tokens": bad}})
    assert u is not None and u.input is None and u.cached_read is None


CAPTURED = [p for p in all_captures(CAPTURES) if sidecar(p)["expected"].get("usage")]


@pytest.mark.parametrize("path", CAPTURED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_shared_captures_normalise(path: Path) -> None:
    wire = sidecar(path)["expected"]["usage"]
    u = usage_from_wire(wire)
    assert u is not None
    cache_fields = {"cache_read_input_tokens", "prompt_cache_hit_tokens"}
    details = wire.get("prompt_tokens_details") or wire.get("input_tokens_details") or {}
    says = bool(cache_fields & set(wire)) or "cached_tokens" in details
    assert (u.cached_read is not None) == says
    assert u.input is not None
    total = wire.get("input_tokens", wire.get("prompt_tokens"))
    if "cache_read_input_tokens" in wire:
        extra = wire["cache_read_input_tokens"] + wire["cache_creation_input_tokens"]
        assert u.total_input == total + extra
    else:
        assert u.total_input == total


@pytest.mark.parametrize(
    "name",
    [
        "images/openai-responses-image-generation-partial-webp-truncated",
        "messages/anthropic-sonnet4-thinking-signature",
        "chat/openai-gpt4o-finish-length",
    ],
)
def test_inspect_json_adds_the_normalised_usage(name: str, captures_dir: Path) -> None:
    path = captures_dir / f"{name}.sse"
    result = subprocess.run(
        [sys.executable, "-m", "playground", "inspect", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    expected = usage_from_wire(out["usage"])
    assert expected is not None
    assert out["usage_normalised"] == json.loads(json.dumps(expected.to_json()))
    assert out["usage_normalised"]["input"]["field"] in ("input_tokens", "prompt_tokens")
    if name.startswith("chat/"):  # this provider sent no cache field: null, not 0
        assert out["usage_normalised"]["cached_read"] is None
