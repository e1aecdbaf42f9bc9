"""The simulator's prompt cache as the SDKs read it: cached tokens in each route's usage shape,
lifetimes (server-wide and per request), the minimum, cache_control writes (5 min and 1 h),
the counting endpoints and what /v1/models says about prices, context and the cache."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import anthropic
import httpx
import openai

from playground.sim.prompt_cache import PromptCache
from playground.sim.server import SimServer

from .conftest import INSTANT
from .sdk_clients import closing_client

SYSTEM = "You answer questions about the simulator's prompt cache, briefly and exactly. " * 8


def _openai(base_url: str, **headers: str) -> openai.OpenAI:
    return closing_client(
        openai.OpenAI(
            base_url=base_url, api_key="sk-sim", max_retries=0, default_headers=INSTANT | headers
        )
    )


def _anthropic(base_url: str, **headers: str) -> anthropic.Anthropic:
    return closing_client(
        anthropic.Anthropic(
            base_url=base_url.removesuffix("/v1"),
            api_key="sk-ant-sim",
            max_retries=0,
            default_headers=INSTANT | headers,
        )
    )


def test_chat_streamed_usage_reports_cached_tokens_to_the_sdk() -> None:
    with SimServer() as sim:
        client = _openai(sim.base_url)
        messages: Any = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "What does a cache keep?"},
        ]
        seen = []
        for _ in range(2):
            stream = client.chat.completions.create(
                model="sim-chat",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
            )
            usage = [c.usage for c in stream if c.usage is not None][-1]
            assert usage.prompt_tokens_details is not None
            seen.append((usage.prompt_tokens, usage.prompt_tokens_details.cached_tokens))
    (first_total, first_cached), (second_total, second_cached) = seen
    assert first_cached == 0 and first_total == second_total
    assert second_cached == second_total  # the whole prompt was kept and read back


def test_responses_usage_and_the_counting_endpoint() -> None:
    with SimServer() as sim:
        client = _openai(sim.base_url)
        kwargs: Any = {"model": "sim-chat", "instructions": SYSTEM, "input": "Hello"}
        first = client.responses.create(**kwargs)
        second = client.responses.create(**kwargs)
        counted = httpx.post(f"{sim.base_url}/responses/input_tokens", json=kwargs).json()
    assert first.usage is not None and second.usage is not None
    assert first.usage.input_tokens_details.cached_tokens == 0
    assert second.usage.input_tokens_details.cached_tokens == second.usage.input_tokens
    assert counted == {"object": "response.input_tokens", "input_tokens": first.usage.input_tokens}


def test_messages_cache_control_writes_then_reads_with_the_sdk() -> None:
    system: Any = [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    with SimServer() as sim:
        client = _anthropic(sim.base_url)
        usages = []
        for _ in range(2):
            with client.messages.stream(
                model="sim-chat",
                max_tokens=32,
                system=system,
                messages=[{"role": "user", "content": "Hi there"}],
            ) as stream:
                usages.append(stream.get_final_message().usage)
        counted = client.messages.count_tokens(
            model="sim-chat", system=system, messages=[{"role": "user", "content": "Hi there"}]
        )
    write, read = usages
    assert write.cache_read_input_tokens is not None and read.cache_read_input_tokens is not None
    assert write.cache_creation_input_tokens is not None
    assert write.cache_read_input_tokens == 0 and write.cache_creation_input_tokens > 0
    assert write.cache_creation is not None
    assert write.cache_creation.ephemeral_1h_input_tokens == write.cache_creation_input_tokens
    assert write.cache_creation.ephemeral_5m_input_tokens == 0
    assert read.cache_read_input_tokens == write.cache_creation_input_tokens
    assert read.cache_creation_input_tokens == 0
    # input_tokens leaves the cache out; the three add up to the counting endpoint's figure
    total = read.input_tokens + read.cache_read_input_tokens + read.cache_creation_input_tokens
    assert counted.input_tokens == total


def test_without_a_breakpoint_messages_caches_nothing() -> None:
    with SimServer() as sim:
        body = {
            "model": "sim-chat",
            "max_tokens": 16,
            "system": SYSTEM,
            "messages": [{"role": "user", "content": "Hi"}],
        }
        for _ in range(2):
            usage = httpx.post(f"{sim.base_url}/messages", json=body, headers=INSTANT).json()[
                "usage"
            ]
    assert usage["cache_read_input_tokens"] == 0 and usage["cache_creation_input_tokens"] == 0


def test_the_lifetime_header_and_the_minimum() -> None:
    body = {
        "model": "sim-chat",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "x"}],
    }
    short = {"model": "sim-chat", "messages": [{"role": "user", "content": "Hi"}]}
    with SimServer() as sim:
        url = f"{sim.base_url}/chat/completions"

        def cached(payload: dict[str, Any], **headers: str) -> int:
            usage = httpx.post(url, json=payload, headers=INSTANT | headers).json()["usage"]
            return int(usage["prompt_tokens_details"]["cached_tokens"])

        cached(body, **{"X-Sim-Cache-Ttl": "0.2"})
        time.sleep(0.5)  # past the 0.2 s this request asked for (not a timing assertion)
        assert cached(body) == 0  # expired: written again now, with the default lifetime
        assert cached(body) > 0
        cached(short)
        assert cached(short) == 0  # below the 64-token minimum: never kept
        assert cached(short, **{"X-Sim-Cache-Min": "1"}) == 0  # kept now...
        assert cached(short, **{"X-Sim-Cache-Min": "1"}) > 0  # ...and read


def test_no_cache_usage_fault_leaves_every_cache_field_out() -> None:
    with SimServer() as sim:
        headers = INSTANT | {"X-Sim-Fault": "no-cache-usage"}
        chat = httpx.post(
            f"{sim.base_url}/chat/completions",
            json={"model": "sim-chat", "messages": [{"role": "user", "content": "Hi"}]},
            headers=headers,
        ).json()["usage"]
        msg = httpx.post(
            f"{sim.base_url}/messages",
            json={
                "model": "sim-chat",
                "max_tokens": 8,
                "messages": [{"role": "user", "content": "Hi"}],
            },
            headers=headers,
        ).json()["usage"]
    assert "prompt_tokens_details" not in chat and chat["prompt_tokens"] > 0
    assert not any(k.startswith("cache") for k in msg) and msg["input_tokens"] > 0


def test_models_list_says_prices_context_and_cache() -> None:
    with SimServer(cache_ttl=7, cache_min_tokens=5) as sim:
        data = {m["id"]: m for m in httpx.get(f"{sim.base_url}/models").json()["data"]}
    chat = data["sim-chat"]
    assert chat["context_length"] == 131072
    assert chat["pricing"]["prompt"] == "0.000001" and chat["pricing"]["completion"] == "0.000004"
    assert chat["prompt_cache"] == {
        "lifetime_seconds": 7,
        "extended_lifetime_seconds": 3600.0,
        "minimum_tokens": 5,
    }
    assert data["sim-reasoner"]["pricing"]["internal_reasoning"] == "0.000006"
    assert "prompt_cache" not in data["sim-image"] and data["sim-image"]["pricing"]["image"]


def test_sim_command_cache_ttl_reaches_the_models_list() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "playground", "sim", "--cache-ttl", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().strip()
        models = httpx.get(f"{base}/models", timeout=10).json()["data"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    assert json.dumps(models[0]["prompt_cache"]["lifetime_seconds"]) == "2.0"


def test_the_cache_is_bounded_and_per_model() -> None:
    cache = PromptCache(ttl=300, min_tokens=1)
    body = {"model": "a", "messages": [{"role": "user", "content": "same words here"}]}
    cache.serve("chat", body, now=0.0)
    assert cache.serve("chat", body, now=1.0).read > 0
    assert cache.serve("chat", body | {"model": "b"}, now=2.0).read == 0
    assert cache.serve("responses", {"model": "a", "input": "same words here"}, now=3.0).read == 0
    assert cache.serve("chat", body, now=400.0).read == 0  # 300 s after its last use
