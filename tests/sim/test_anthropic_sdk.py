"""The official anthropic SDK reads the simulated /v1/messages stream unchanged."""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types import MessageParam

from .conftest import INSTANT
from .sdk_clients import closing_client

TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "maximum": 5},
        },
        "required": ["city", "days"],
    },
}


def _client(base_url: str, **headers: str) -> anthropic.Anthropic:
    # The SDK appends /v1/messages itself, so it gets the root without /v1.
    return closing_client(
        anthropic.Anthropic(
            base_url=base_url.removesuffix("/v1"),
            api_key="sk-ant-sim",
            max_retries=0,
            default_headers=INSTANT | headers,
        )
    )


def test_messages_thinking_signature_text_and_tool_use(base_url: str) -> None:
    client = _client(base_url)
    with client.messages.stream(
        model="sim-chat",
        max_tokens=2048,
        thinking={"type": "enabled", "budget_tokens": 1024},
        tools=[TOOL],  # type: ignore[list-item]
        messages=[{"role": "user", "content": "What's the weather in Lima?"}],
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    types = [b.type for b in final.content]
    assert types == ["thinking", "text", "tool_use"]
    thinking, said, tool = final.content
    assert thinking.type == "thinking" and thinking.thinking and thinking.signature
    assert said.type == "text" and "get_weather" in said.text
    assert tool.type == "tool_use"
    assert tool.name == "get_weather" and set(tool.input) == {"city", "days"}
    days = tool.input["days"]
    assert isinstance(days, int) and 1 <= days <= 5
    assert final.stop_reason == "tool_use"
    assert final.usage.output_tokens > 1
    assert any(e.type == "thinking" for e in events)


def test_messages_text_only_and_not_streamed_agree(base_url: str) -> None:
    client = _client(base_url)
    messages: list[MessageParam] = [{"role": "user", "content": "Tell me about rivers"}]
    with client.messages.stream(model="m", max_tokens=1024, messages=messages) as stream:
        text = stream.get_final_text()
        final = stream.get_final_message()
    whole = client.messages.create(model="m", max_tokens=1024, messages=messages)
    first = whole.content[0]
    assert first.type == "text" and first.text == text and "rivers" in text
    assert final.stop_reason == "end_turn"


def test_messages_max_tokens_stop_reason(base_url: str) -> None:
    with _client(base_url).messages.stream(
        model="m", max_tokens=7, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens" and final.usage.output_tokens == 7


def test_midstream_error_raises_after_text(base_url: str) -> None:
    client = _client(base_url, **{"X-Sim-Fault": "midstream-error"})
    seen = []
    with (
        pytest.raises(anthropic.APIStatusError) as info,
        client.messages.stream(
            model="m", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        for text in stream.text_stream:
            seen.append(text)
    assert seen
    assert "api_error" in str(info.value.body) or "simulated" in str(info.value)


def test_http_429_rate_limit_error(base_url: str) -> None:
    client = _client(base_url, **{"X-Sim-Fault": "http-429"})
    with pytest.raises(anthropic.RateLimitError) as info:
        client.messages.create(
            model="m", max_tokens=10, stream=True, messages=[{"role": "user", "content": "hi"}]
        )
    assert info.value.response.headers["retry-after"] == "1"
    assert info.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]


def test_bearer_auth_and_anthropic_version_accepted(base_url: str) -> None:
    client = closing_client(
        anthropic.Anthropic(
            base_url=base_url.removesuffix("/v1"),
            auth_token="tok",
            max_retries=0,
            default_headers=INSTANT,
        )
    )
    msg = client.messages.create(
        model="m", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].type == "text"
