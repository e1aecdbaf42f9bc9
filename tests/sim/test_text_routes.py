"""Text routes answer sensibly: tool results, tool_choice, limits, odd request bodies."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import INSTANT

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


OTHER = {"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}}


def _chat(base_url: str, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(base_url + "/chat/completions", json=body, headers=INSTANT)
    assert r.status_code == 200
    answer: dict[str, Any] = r.json()
    return answer


def test_after_a_tool_result_the_answer_is_text(base_url: str) -> None:
    messages = [
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21 C"},
    ]
    out = _chat(base_url, {"messages": messages, "tools": TOOLS})
    choice = out["choices"][0]
    assert choice["finish_reason"] == "stop" and "Sunny, 21 C" in choice["message"]["content"]


def test_tool_choice_none_and_named(base_url: str) -> None:
    msgs = [{"role": "user", "content": "weather?"}]
    none = _chat(base_url, {"messages": msgs, "tools": TOOLS, "tool_choice": "none"})
    assert "tool_calls" not in none["choices"][0]["message"]
    named = _chat(
        base_url,
        {
            "messages": [{"role": "user", "content": "hello"}],
            "tools": [*TOOLS, OTHER],
            "tool_choice": {"type": "function", "function": {"name": "other"}},
        },
    )
    calls = named["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["other"]


def test_content_parts_and_odd_bodies(base_url: str) -> None:
    parts = [{"role": "user", "content": [{"type": "text", "text": "Tell me about volcanoes"}]}]
    assert "volcanoes" in _chat(base_url, {"messages": parts})["choices"][0]["message"]["content"]
    for raw in (b"", b"not json", b"[1, 2]"):
        r = httpx.post(base_url + "/chat/completions", content=raw, headers=INSTANT)
        assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"]


def test_responses_and_messages_not_streamed(base_url: str) -> None:
    resp = httpx.post(
        base_url + "/responses",
        headers=INSTANT,
        json={
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Explain tides"}]}
            ],
            "max_output_tokens": 9,
        },
    ).json()
    assert resp["status"] == "incomplete" and resp["usage"]["output_tokens"] == 9
    msg = httpx.post(
        base_url + "/messages",
        headers=INSTANT,
        json={
            "max_tokens": 100,
            "system": [{"type": "text", "text": "Be brief"}],
            "messages": [{"role": "user", "content": "Explain tides"}],
            "tools": [{"name": "lookup", "input_schema": {"type": "object"}}],
        },
    ).json()
    assert msg["stop_reason"] == "tool_use" and msg["content"][-1]["input"] == {}


def test_x_sim_tokens_sets_the_length_on_every_text_route(base_url: str) -> None:
    headers = INSTANT | {"X-Sim-Tokens": "333"}
    chat = httpx.post(base_url + "/chat/completions", headers=headers, json={}).json()
    assert chat["usage"]["completion_tokens"] == 333
    resp = httpx.post(base_url + "/responses", headers=headers, json={"input": "x"}).json()
    assert resp["usage"]["output_tokens"] == 333
    msg = httpx.post(
        base_url + "/messages", headers=headers, json={"max_tokens": 4096, "messages": []}
    ).json()
    assert msg["usage"]["output_tokens"] == 333
