"""The official openai and anthropic SDKs stream every route through the proxy and get what they
get from the simulator directly: the same text, tool calls and usage."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import openai
import pytest

from playground.sim.server import SimServer

from .conftest import INSTANT, Proxy

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city", "days"],
        },
    },
}


def _openai(base_url: str) -> openai.OpenAI:
    # A 0 s cache lifetime: the same request sent twice (direct, then proxied) gets the same
    # usage, not a cache hit the second time.
    headers = INSTANT | {"X-Sim-Cache-Ttl": "0"}
    return openai.OpenAI(
        base_url=base_url, api_key="sk-sdk-test", max_retries=0, default_headers=headers
    )


def _chat(client: openai.OpenAI) -> Any:
    chunks = list(
        client.chat.completions.create(
            model="sim-chat",
            messages=[{"role": "user", "content": "What's the weather in Lima?"}],
            tools=[WEATHER],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls: dict[int, list[str]] = {}
    for c in chunks:
        for choice in c.choices:
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, ["", ""])
                entry[0] += (call.function and call.function.name) or ""
                entry[1] += (call.function and call.function.arguments) or ""
    assert calls, "the simulator was asked for a tool call"
    usage = chunks[-1].usage
    assert usage is not None
    return text, calls, usage.model_dump()


def _responses(client: openai.OpenAI) -> Any:
    events = list(client.responses.create(model="sim-chat", input="Explain SSE", stream=True))
    last = events[-1]
    assert last.type == "response.completed"
    final = last.response
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text and final.output_text == text and final.usage is not None
    return text, [e.type for e in events], final.usage.model_dump()


def _images(client: openai.OpenAI) -> Any:
    events = list(
        client.images.generate(
            model="sim-image", prompt="a hill", stream=True, partial_images=2, size="64x64"
        )
    )
    last = events[-1]
    assert last.type == "image_generation.completed"
    return [(e.type, e.b64_json) for e in events], last.usage.model_dump()


def _speech(client: openai.OpenAI) -> Any:
    with client.audio.speech.with_streaming_response.create(
        model="sim-tts", voice="alloy", input="Hello through the proxy.", stream_format="sse"
    ) as response:
        raw = response.read().decode()
    events = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: {")]
    assert events[-1]["type"] == "speech.audio.done"
    return [e.get("audio") for e in events], events[-1]["usage"]


def _transcription(client: openai.OpenAI) -> Any:
    wav = client.audio.speech.create(
        model="sim-tts", voice="alloy", input="Heard through the proxy.", response_format="wav"
    ).read()
    events = list(
        client.audio.transcriptions.create(
            model="sim-transcribe", file=("said.wav", wav, "audio/wav"), stream=True
        )
    )
    last = events[-1]
    assert last.type == "transcript.text.done" and last.text == "Heard through the proxy."
    assert last.usage is not None
    text = "".join(e.delta for e in events if e.type == "transcript.text.delta")
    return text, last.text, last.usage.model_dump()


CALLS: dict[str, Callable[[openai.OpenAI], Any]] = {
    "chat": _chat,
    "responses": _responses,
    "images": _images,
    "speech": _speech,
    "transcription": _transcription,
}


@pytest.mark.parametrize("route", list(CALLS))
def test_the_openai_sdk_gets_through_the_proxy_what_it_gets_directly(
    route: str, sim: SimServer, fresh: Proxy
) -> None:
    with _openai(sim.base_url) as client:
        direct = CALLS[route](client)
    with _openai(fresh.base_url) as client:
        proxied = CALLS[route](client)
    assert proxied == direct
    lines = fresh.lines(count=2 if route == "transcription" else 1)
    assert lines[-1]["route"] == route and lines[-1]["status"] == "complete", lines


def _messages(base_url: str) -> Any:
    with anthropic.Anthropic(
        base_url=base_url.removesuffix("/v1"),
        api_key="sk-ant-sdk-test",
        max_retries=0,
        default_headers=INSTANT,
    ) as client:
        return _messages_through(client)


def _messages_through(client: anthropic.Anthropic) -> Any:
    tool = {
        "name": "get_weather",
        "description": "Current weather for a city",
        "input_schema": WEATHER["function"]["parameters"],
    }
    with client.messages.stream(
        model="sim-chat",
        max_tokens=2048,
        thinking={"type": "enabled", "budget_tokens": 1024},
        tools=[tool],  # type: ignore[list-item]
        messages=[{"role": "user", "content": "What's the weather in Lima?"}],
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_message()
    blocks = [b.model_dump(exclude={"signature", "id"}) for b in final.content]
    assert [b["type"] for b in blocks] == ["thinking", "text", "tool_use"]
    return blocks, final.stop_reason, final.usage.model_dump()


def test_the_anthropic_sdk_gets_through_the_proxy_what_it_gets_directly(
    sim: SimServer, fresh: Proxy
) -> None:
    assert _messages(fresh.base_url) == _messages(sim.base_url)
    line = fresh.last()
    assert line["route"] == "messages" and line["status"] == "complete"
    assert line["ttft_ms"] is not None
