"""A streamed answer becomes the next assistant turn (real captures), and the dump's projections."""

from __future__ import annotations

import json

from protocol_helpers import CAPTURES

from playground.protocol.conversation import (
    Conversation,
    Image,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
    assistant_turn,
    redact_base64,
    thread,
    to_messages,
    to_responses,
)
from playground.protocol.stream import StreamDecoder


def _decoded(route: str, name: str) -> tuple[StreamDecoder, list[object]]:
    decoder = StreamDecoder(route)
    decoder.feed((CAPTURES / route / name).read_bytes(), 0.0)
    decoder.finish(1.0)
    return decoder, [decoder.payload(i) for i in range(len(decoder.items))]


def test_messages_thinking_comes_back_with_its_own_signature() -> None:
    decoder, payloads = _decoded("messages", "anthropic-sonnet4-thinking-signature.sse")
    turn = assistant_turn(decoder.state, payloads)
    thinking = [p for p in turn.parts if isinstance(p, Thinking)]
    assert len(thinking) == 1
    assert thinking[0].text == decoder.state.reasoning
    assert thinking[0].signature == decoder.state.signatures[0][1]
    assert turn.text == decoder.state.text
    # Without the events the state alone gives the same single block.
    assert assistant_turn(decoder.state) == turn


def test_redacted_thinking_blocks_come_back_as_they_came() -> None:
    decoder, payloads = _decoded("messages", "anthropic-sonnet45-redacted-thinking.sse")
    turn = assistant_turn(decoder.state, payloads)
    starts = [
        p["content_block"]["data"]
        for p in payloads
        if isinstance(p, dict)
        and p.get("type") == "content_block_start"
        and p["content_block"]["type"] == "redacted_thinking"
    ]
    assert [p.data for p in turn.parts if isinstance(p, RedactedThinking)] == starts
    assert len(starts) == 2
    blocks = to_messages(Conversation((turn,)))["messages"][0]["content"]
    assert [b["type"] for b in blocks] == ["redacted_thinking", "redacted_thinking", "text"]


def test_responses_reasoning_item_and_call_come_back_unchanged() -> None:
    decoder, payloads = _decoded("responses", "openai-gpt55-text-then-function-call.sse")
    turn = assistant_turn(decoder.state, payloads)
    kinds = [type(p).__name__ for p in turn.parts]
    assert kinds == ["ReasoningItem", "Text", "ToolCall"]
    final = next(
        p for p in payloads if isinstance(p, dict) and p.get("type") == "response.completed"
    )
    output = final["response"]["output"]
    assert turn.parts[0] == ReasoningItem(output[0])
    call = turn.parts[2]
    assert call == ToolCall(
        "call_LabG58Uhrq9kZvR52BYKjToD", "get_capital", '{"country":"PotatoLand"}', output[2]["id"]
    )
    items = to_responses(Conversation((turn,)))["input"]
    assert items[0] == output[0]  # the encrypted reasoning item, as it came


def test_chat_parallel_calls_become_one_turn() -> None:
    decoder, payloads = _decoded("chat", "openai-gpt4o-parallel-tool-calls.sse")
    turn = assistant_turn(decoder.state, payloads)
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        (c.id, c.name, c.arguments_text) for c in decoder.state.tool_calls
    ]
    assert len(turn.tool_calls) >= 2
    assert all(json.loads(c.arguments) is not None for c in turn.tool_calls)


def test_thread_projection() -> None:
    conv = Conversation(
        (
            Turn.of("user", "Look", Image("image/png", b"\x89PNG" + bytes(96))),
            Turn(
                "assistant",
                (Thinking("hm", "sig"), Text("Calling."), ToolCall("c1", "f", '{"a":1}')),
            ),
            Turn("tool", (ToolResult("c1", "one"), ToolResult("c2", "two"))),
        ),
        system="S",
    )
    assert thread(conv) == [
        {
            "role": "system",
            "text": "S",
            "reasoning": "",
            "tool_calls": [],
            "tool_call_id": None,
            "attachments": [],
        },
        {
            "role": "user",
            "text": "Look",
            "reasoning": "",
            "tool_calls": [],
            "tool_call_id": None,
            "attachments": [{"mime": "image/png", "bytes": 100}],
        },
        {
            "role": "assistant",
            "text": "Calling.",
            "reasoning": "hm",
            "tool_calls": [{"id": "c1", "name": "f", "arguments": '{"a":1}'}],
            "tool_call_id": None,
            "attachments": [],
        },
        {
            "role": "tool",
            "text": "one",
            "reasoning": "",
            "tool_calls": [],
            "tool_call_id": "c1",
            "attachments": [],
        },
        {
            "role": "tool",
            "text": "two",
            "reasoning": "",
            "tool_calls": [],
            "tool_call_id": "c2",
            "attachments": [],
        },
    ]


def test_long_base64_is_replaced_by_its_size() -> None:
    b64 = "QUJD" * 40  # 160 characters, 120 bytes
    body = {
        "messages": [
            {"source": {"type": "base64", "data": b64}},
            {"image_url": {"url": "data:image/png;base64," + b64}},
            {"content": "short QUJD"},
            {"content": "a long sentence of prose with spaces " * 4},
        ],
        "n": 2,
    }
    assert redact_base64(body) == {
        "messages": [
            {"source": {"type": "base64", "data": "<120 bytes base64>"}},
            {"image_url": {"url": "data:image/png;base64,<120 bytes base64>"}},
            {"content": "short QUJD"},
            {"content": "a long sentence of prose with spaces " * 4},
        ],
        "n": 2,
    }
    assert redact_base64("QUJD" * 16) == "QUJD" * 16  # 64 characters are kept
