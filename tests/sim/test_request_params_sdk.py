"""The official SDKs referee the bodies the form builds with every tuned parameter: each SDK
takes the body as its call's arguments, puts exactly it on the wire, and the simulator's answer
validates against the schema the body gave."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from sdk_referee import sdk_answer

from playground.protocol.requests import SAMPLE_TOOL, RequestParams, build_body

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "high_c": {"type": "number"}},
    "required": ["city", "high_c"],
    "additionalProperties": False,
}
COMMON: dict[str, Any] = {
    "model": "sim-chat",
    "prompt": "The weather in Lisbon",
    "max_tokens": 400,
    "tools": [SAMPLE_TOOL],
    "tool_choice": "none",
    "parallel_tool_calls": False,
    "format_type": "json_schema",
    "schema_name": "weather",
    "schema": SCHEMA,
    "schema_strict": True,
}
# Each route's own parameters (this anthropic SDK's messages.create takes no temperature/top_p).
OWN: dict[str, dict[str, Any]] = {
    "chat": {
        "temperature": 0.4,
        "top_p": 0.9,
        "stop": ["\n\n\n"],
        "seed": 11,
        "n": 1,
        "frequency_penalty": 0.1,
        "presence_penalty": 0.1,
        "reasoning_effort": "low",
        "include_usage": True,
    },
    "responses": {
        "temperature": 0.4,
        "top_p": 0.9,
        "reasoning_effort": "low",
        "reasoning_summary": "auto",
    },
    "messages": {"stop": ["\n\nHuman:"], "thinking_budget": 1024},
}


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_the_sdk_takes_the_forms_body_as_it_is(base_url: str, route: str) -> None:
    body = build_body(route, RequestParams(**COMMON, **OWN[route]))
    text, sent = sdk_answer(base_url, route, body)
    assert sent == body
    document = json.loads(text)
    jsonschema.validate(document, SCHEMA)
    assert document["city"] == "Lisbon"
