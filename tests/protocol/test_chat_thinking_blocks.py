"""Thinking through a chat-shaped gateway: LiteLLM in front of Claude streams Anthropic's
thinking blocks on chat (``delta.thinking_blocks`` beside ``reasoning_content``); the next
tool-round request sends them back in that shape, which LiteLLM turns into the thinking block
Anthropic requires to lead an assistant turn with ``tool_use`` while thinking is on. The
simulator enforces that rule, so the round fails without the blocks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from playground.protocol.conversation import (
    Conversation,
    Turn,
    assistant_turn,
    to_chat,
    tool_turn,
)
from playground.protocol.stream import StreamDecoder
from playground.sim.server import SimServer

FIXTURE = Path(__file__).parent / "fixtures" / "litellm-claude-thinking-tool-call.sse"
THOUGHT = "The user wants the time in Tokyo. I should call get_time with the Asia/Tokyo zone."
TOOLS = [
    {
        "name": "get_time",
        "description": "The current time in a time zone.",
        "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}},
    }
]


def _decoded() -> StreamDecoder:
    decoder = StreamDecoder("chat")
    data = FIXTURE.read_bytes()
    for start in range(0, len(data), 97):  # reads cut anywhere, as a socket would
        decoder.feed(data[start : start + 97], 0.01)
    decoder.finish(0.02)
    return decoder


def _next_request_messages() -> list[dict[str, Any]]:
    """The tool round's ``messages``, as the panel builds them after the answer ended."""
    decoder = _decoded()
    payloads = [decoder.payload(i) for i in range(len(decoder.items))]
    answer = assistant_turn(decoder.state, payloads)
    call = answer.tool_calls[0]
    thread = Conversation(
        (Turn.of("user", "What time is it in Tokyo?"), answer, tool_turn([(call.id, "09:30")]))
    )
    return to_chat(thread)


def _signature() -> str:
    for line in FIXTURE.read_text().splitlines():
        if '"signature":"' in line:
            chunk = json.loads(line.removeprefix("data: "))
            return str(chunk["choices"][0]["delta"]["thinking_blocks"][0]["signature"])
    raise AssertionError("the fixture has no signature")


def test_the_stream_shows_the_reasoning_once_and_keeps_its_signature() -> None:
    state = _decoded().state
    assert state.reasoning == THOUGHT  # reasoning_content and thinking_blocks counted once
    assert state.signatures == [("signature", _signature())]
    assert state.status == "complete" and not [f for f in state.findings if f.severity != "info"]


def test_the_tool_round_sends_the_thinking_blocks_back_in_the_gateways_shape() -> None:
    assistant = _next_request_messages()[1]
    assert assistant["role"] == "assistant"
    assert assistant["thinking_blocks"] == [
        {"type": "thinking", "thinking": THOUGHT, "signature": _signature()}
    ]
    assert assistant["reasoning_content"] == THOUGHT
    assert assistant["tool_calls"][0]["function"] == {
        "name": "get_time",
        "arguments": '{"tz": "Asia/Tokyo"}',
    }


def _as_litellm_sends_to_anthropic(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """LiteLLM's chat -> Anthropic translation of these turns: an assistant message's
    thinking_blocks lead its content, tool_calls become tool_use, a tool message a
    tool_result in a user turn."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg["role"] == "user":
            out.append({"role": "user", "content": [{"type": "text", "text": msg["content"]}]})
        elif msg["role"] == "assistant":
            content: list[dict[str, Any]] = list(msg.get("thinking_blocks") or [])
            if msg.get("content"):
                content.append({"type": "text", "text": msg["content"]})
            for call in msg.get("tool_calls") or []:
                fn = call["function"]
                args = json.loads(fn["arguments"])
                content.append(
                    {"type": "tool_use", "id": call["id"], "name": fn["name"], "input": args}
                )
            out.append({"role": "assistant", "content": content})
        elif msg["role"] == "tool":
            result = {"type": "tool_result", "tool_use_id": msg["tool_call_id"]}
            out.append({"role": "user", "content": [result | {"content": msg["content"]}]})
    return out


@pytest.fixture(scope="module")
def sim() -> Any:
    with SimServer() as server:
        yield server


def _messages_request(sim: SimServer, messages: list[dict[str, Any]]) -> httpx.Response:
    body = {
        "model": "sim-reasoner",
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": TOOLS,
        "messages": messages,
    }
    return httpx.post(
        sim.base_url + "/messages",
        json=body,
        headers={
            "X-Sim-Pace": "instant",
            "x-api-key": "sk-test",
            "anthropic-version": "2023-06-01",
        },
        timeout=30,
    )


def test_through_the_gateway_the_tool_round_is_accepted(sim: SimServer) -> None:
    response = _messages_request(sim, _as_litellm_sends_to_anthropic(_next_request_messages()))
    assert response.status_code == 200, response.text


def test_the_simulator_refuses_a_tool_turn_without_its_leading_thinking(sim: SimServer) -> None:
    messages = _as_litellm_sends_to_anthropic(_next_request_messages())
    messages[1]["content"] = messages[1]["content"][1:]  # the thinking block dropped
    response = _messages_request(sim, messages)
    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. "
        "When `thinking` is enabled, a final `assistant` message must start with a thinking block"
    )
    # Without thinking on, the same turns are fine.
    messages_ok = httpx.post(
        sim.base_url + "/messages",
        json={"model": "sim-chat", "max_tokens": 256, "tools": TOOLS, "messages": messages},
        headers={"X-Sim-Pace": "instant"},
        timeout=30,
    )
    assert messages_ok.status_code == 200, messages_ok.text
