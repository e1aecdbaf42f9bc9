"""Exact wire shapes of a Conversation on chat, responses and messages, and pasted vendor bodies."""

from __future__ import annotations

import base64
from typing import Any

import pytest

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
    conversation_file,
    conversation_keys,
    parse_body,
    to_chat,
    to_messages,
    to_responses,
    tool_turn,
)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC"
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Weather needs a tool."}],
    "encrypted_content": "gAAAAB-opaque",
}
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"

# One thread with everything: an image, two parallel calls answered together, a follow-up.
TOOL_THREAD = Conversation(
    (
        Turn.of("user", "Weather in Paris and the time in Tokyo?", Image("image/png", PNG)),
        Turn(
            "assistant",
            (
                Thinking("Two tools, in parallel.", SIGNATURE),
                ReasoningItem(REASONING),
                Text("Checking both."),
                ToolCall("call_1", "get_weather", '{"city":"Paris"}', "fc_1"),
                ToolCall("call_2", "get_time", '{"tz":"Asia/Tokyo"}', "fc_2"),
            ),
        ),
        tool_turn([("call_1", '{"temp":18}'), ("call_2", "09:30")]),
        Turn.of("assistant", "18 °C in Paris; 09:30 in Tokyo."),
        Turn.of("user", "And tomorrow?"),
    ),
    system="Be brief.",
)


def test_chat_messages_exactly() -> None:
    assert to_chat(TOOL_THREAD) == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather in Paris and the time in Tokyo?"},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking both.",
            # A signed thinking block goes back on chat in the shape LiteLLM streams and takes
            # (thinking_blocks with reasoning_content); the Responses item has no place here.
            "reasoning_content": "Two tools, in parallel.",
            "thinking_blocks": [
                {"type": "thinking", "thinking": "Two tools, in parallel.", "signature": SIGNATURE}
            ],
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"tz":"Asia/Tokyo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp":18}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "09:30"},
        {"role": "assistant", "content": "18 °C in Paris; 09:30 in Tokyo."},
        {"role": "user", "content": "And tomorrow?"},
    ]


def test_chat_sends_unsigned_reasoning_back_only_when_asked() -> None:
    unsigned = Conversation(
        (
            Turn.of("user", "Hi"),
            Turn("assistant", (Thinking("Two tools, in parallel."), Text("Checking both."))),
        )
    )
    plain = to_chat(unsigned)[1]
    assert "reasoning" not in plain and "thinking_blocks" not in plain
    assert to_chat(unsigned, reasoning=True)[1]["reasoning"] == "Two tools, in parallel."


def test_responses_input_exactly() -> None:
    assert to_responses(TOOL_THREAD) == {
        "instructions": "Be brief.",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Weather in Paris and the time in Tokyo?"},
                    {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
                ],
            },
            REASONING,
            {"type": "message", "role": "assistant", "content": "Checking both."},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
            },
            {
                "type": "function_call",
                "id": "fc_2",
                "call_id": "call_2",
                "name": "get_time",
                "arguments": '{"tz":"Asia/Tokyo"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": '{"temp":18}'},
            {"type": "function_call_output", "call_id": "call_2", "output": "09:30"},
            {"type": "message", "role": "assistant", "content": "18 °C in Paris; 09:30 in Tokyo."},
            {"type": "message", "role": "user", "content": "And tomorrow?"},
        ],
    }


def test_responses_with_previous_response_id_sends_only_the_new_turns() -> None:
    assert to_responses(TOOL_THREAD, previous_response_id="resp_9") == {
        "instructions": "Be brief.",
        "previous_response_id": "resp_9",
        "input": [{"type": "message", "role": "user", "content": "And tomorrow?"}],
    }
    waiting = TOOL_THREAD.with_turns(TOOL_THREAD.turns[:3])
    assert to_responses(waiting, previous_response_id="resp_8")["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": '{"temp":18}'},
        {"type": "function_call_output", "call_id": "call_2", "output": "09:30"},
    ]


def test_messages_blocks_exactly() -> None:
    assert to_messages(TOOL_THREAD) == {
        "system": "Be brief.",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather in Paris and the time in Tokyo?"},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": base64.b64encode(PNG).decode(),
                        },
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Two tools, in parallel.",
                        "signature": SIGNATURE,
                    },
                    {"type": "text", "text": "Checking both."},
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                    {
                        "type": "tool_use",
                        "id": "call_2",
                        "name": "get_time",
                        "input": {"tz": "Asia/Tokyo"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": '{"temp":18}'},
                    {"type": "tool_result", "tool_use_id": "call_2", "content": "09:30"},
                ],
            },
            {"role": "assistant", "content": "18 °C in Paris; 09:30 in Tokyo."},
            {"role": "user", "content": "And tomorrow?"},
        ],
    }


def test_messages_puts_a_user_turn_after_results_into_their_message() -> None:
    conv = Conversation(
        (
            Turn("assistant", (RedactedThinking("opaque=="), ToolCall("t1", "f", "{}"))),
            Turn("tool", (ToolResult("t1", "boom", is_error=True),)),
            Turn.of("user", "Try again"),
        )
    )
    assert to_messages(conv)["messages"] == [
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "opaque=="},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
                {"type": "text", "text": "Try again"},
            ],
        },
    ]


def test_open_calls_are_the_unanswered_ones() -> None:
    waiting = TOOL_THREAD.with_turns(TOOL_THREAD.turns[:2])
    assert [c.id for c in waiting.open_calls] == ["call_1", "call_2"]
    assert TOOL_THREAD.open_calls == ()


# -- pasted bodies, as the vendors document them ------------------------------------------------

# OpenAI function calling guide (chat): the model's call and the tool's answer sent back.
OPENAI_CHAT = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "developer", "content": "You are a helpful assistant."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What's in this image?"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://upload.wikimedia.org/a.jpg", "detail": "high"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_12345xyz",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": '{"location":"Paris, France"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_12345xyz", "content": "15°C"},
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
    "temperature": 0.2,
}
# OpenAI Responses function calling: reasoning item and call passed back with the output.
OPENAI_RESPONSES: dict[str, Any] = {
    "model": "o4-mini",
    "instructions": "Answer briefly.",
    "input": [
        {"role": "user", "content": "What is the weather like in Paris today?"},
        {
            "type": "reasoning",
            "id": "rs_68",
            "summary": [],
            "encrypted_content": "gAAAAABo...",
        },
        {
            "type": "function_call",
            "id": "fc_12345xyz",
            "call_id": "call_12345xyz",
            "name": "get_weather",
            "arguments": '{"location":"Paris, France"}',
        },
        {"type": "function_call_output", "call_id": "call_12345xyz", "output": '{"temp": 14}'},
    ],
    "tools": [{"type": "function", "name": "get_weather", "parameters": {}}],
    "store": False,
    "include": ["reasoning.encrypted_content"],
}
# Anthropic extended thinking with tool use: the thinking block goes back with its signature.
ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 16000,
    "thinking": {"type": "enabled", "budget_tokens": 10000},
    "system": [{"type": "text", "text": "You are a weather bot."}],
    "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "The user wants to know the weather in Paris.",
                    "signature": "BDaL4VrbR2Oj0hO4XpJxT28J5TILnCrrUXoKiiNBZW9P+nr8XSj1zuZz"
                    "Al4egiCCpQNvfyUuFFJP5CncdYZEQPPmLxYsNrcs...",
                },
                {"type": "text", "text": "I need to check the weather."},
                {
                    "type": "tool_use",
                    "id": "toolu_01CswdEQBMshySk6Y9DFKrfq",
                    "name": "get_weather",
                    "input": {"location": "Paris"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01CswdEQBMshySk6Y9DFKrfq",
                    "content": "Current temperature: 88°F",
                }
            ],
        },
    ],
}


def test_pasted_openai_chat_body() -> None:
    pasted = parse_body(OPENAI_CHAT)
    assert pasted.route == "chat"
    assert pasted.conversation == Conversation(
        (
            Turn.of("developer", "You are a helpful assistant."),
            Turn.of(
                "user",
                "What's in this image?",
                Image("", None, "https://upload.wikimedia.org/a.jpg", "high"),
            ),
            Turn(
                "assistant",
                (ToolCall("call_12345xyz", "get_weather", '{"location":"Paris, France"}'),),
            ),
            Turn("tool", (ToolResult("call_12345xyz", "15°C"),)),
        )
    )
    assert pasted.params == {
        "model": "gpt-4.1",
        "tools": OPENAI_CHAT["tools"],
        "temperature": 0.2,
    }
    assert pasted.params | conversation_keys("chat", pasted.conversation) == OPENAI_CHAT


def test_pasted_openai_responses_body_keeps_the_reasoning_item() -> None:
    pasted = parse_body(OPENAI_RESPONSES)
    assert pasted.route == "responses"
    assert pasted.conversation.system == "Answer briefly."
    assistant = pasted.conversation.turns[1]
    assert assistant.parts == (
        ReasoningItem(OPENAI_RESPONSES["input"][1]),
        ToolCall("call_12345xyz", "get_weather", '{"location":"Paris, France"}', "fc_12345xyz"),
    )
    assert pasted.params["store"] is False and "input" not in pasted.params
    again = conversation_keys("responses", pasted.conversation)["input"]
    assert again[1:] == OPENAI_RESPONSES["input"][1:]  # the reasoning item and the call, unchanged
    assert again[0] == {
        "type": "message",
        "role": "user",
        "content": "What is the weather like in Paris today?",
    }


def test_pasted_anthropic_body_keeps_the_signature() -> None:
    pasted = parse_body(ANTHROPIC)
    assert pasted.route == "messages"
    conv = pasted.conversation
    assert conv.system == "You are a weather bot."
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool"]
    thinking = conv.turns[1].parts[0]
    assert thinking == Thinking(
        "The user wants to know the weather in Paris.",
        ANTHROPIC["messages"][1]["content"][0]["signature"],  # type: ignore[index]
    )
    again = conversation_keys("messages", conv)
    assert again["messages"] == ANTHROPIC["messages"]
    assert set(pasted.params) == {"model", "max_tokens", "thinking", "tools"}


def test_a_conversation_file_goes_onto_every_route() -> None:
    conv = conversation_file(
        {
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": '{"temp":18}'},
            ],
        }
    )
    assert conversation_keys("responses", conv)["input"][1:] == [
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": '{"temp":18}'},
    ]
    assert conversation_keys("messages", conv) == {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": '{"temp":18}'}
                ],
            },
        ],
    }


@pytest.mark.parametrize("bad", [[], {"messages": "x"}, {"messages": [], "system": 3}])
def test_a_conversation_file_of_another_shape_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        conversation_file(bad)


def test_a_pasted_previous_response_id_stays_a_parameter() -> None:
    body = {
        "model": "m",
        "previous_response_id": "resp_7",
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "ok"}],
    }
    pasted = parse_body(body)
    assert pasted.params == {"model": "m", "previous_response_id": "resp_7"}
    assert pasted.conversation.turns == (Turn("tool", (ToolResult("call_1", "ok"),)),)
    assert pasted.params | conversation_keys("responses", pasted.conversation) == body
