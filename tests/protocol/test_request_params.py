"""The parameters people tune, under each route's own wire names, and back: every field of the
form lands on the key its route documents, and body -> params -> body is the identity."""

from __future__ import annotations

from typing import Any

import pytest

from playground.protocol.requests import SAMPLE_TOOL, RequestParams, build_body, params_from_body

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}}


def _body(route: str, **fields: Any) -> dict[str, Any]:
    body = build_body(route, RequestParams(model="m", prompt="hi", **fields))
    return {k: v for k, v in body.items() if k not in ("model", "messages", "input", "stream")}


@pytest.mark.parametrize(
    ("route", "fields", "expected"),
    [
        ("chat", {"temperature": 0.2}, {"temperature": 0.2}),
        ("responses", {"temperature": 0.2}, {"temperature": 0.2}),
        ("messages", {"temperature": 0.2}, {"max_tokens": 1024, "temperature": 0.2}),
        ("chat", {"top_p": 0.9}, {"top_p": 0.9}),
        ("responses", {"top_p": 0.9}, {"top_p": 0.9}),
        ("messages", {"top_p": 0.9}, {"max_tokens": 1024, "top_p": 0.9}),
        ("chat", {"max_tokens": 50}, {"max_tokens": 50}),
        ("responses", {"max_tokens": 50}, {"max_output_tokens": 50}),
        ("messages", {"max_tokens": 50}, {"max_tokens": 50}),
        ("chat", {"stop": ["END", "\n"]}, {"stop": ["END", "\n"]}),
        ("messages", {"stop": ["END"]}, {"max_tokens": 1024, "stop_sequences": ["END"]}),
        ("responses", {"stop": ["END"]}, {}),  # the Responses API has no stop sequences
        ("chat", {"seed": 0}, {"seed": 0}),
        ("chat", {"n": 3}, {"n": 3}),
        ("chat", {"frequency_penalty": -0.5}, {"frequency_penalty": -0.5}),
        ("chat", {"presence_penalty": 1.5}, {"presence_penalty": 1.5}),
        ("chat", {"reasoning_effort": "low"}, {"reasoning_effort": "low"}),
        ("responses", {"reasoning_effort": "low"}, {"reasoning": {"effort": "low"}}),
        ("responses", {"reasoning_summary": "auto"}, {"reasoning": {"summary": "auto"}}),
        (
            "responses",
            {"reasoning_effort": "high", "reasoning_summary": "detailed"},
            {"reasoning": {"effort": "high", "summary": "detailed"}},
        ),
        (
            "messages",
            {"thinking_budget": 2048},
            {"max_tokens": 3072, "thinking": {"type": "enabled", "budget_tokens": 2048}},
        ),
        ("chat", {"format_type": "json_object"}, {"response_format": {"type": "json_object"}}),
        ("chat", {"format_type": "text"}, {"response_format": {"type": "text"}}),
        (
            "responses",
            {"format_type": "json_object"},
            {"text": {"format": {"type": "json_object"}}},
        ),
        (
            "chat",
            {
                "format_type": "json_schema",
                "schema_name": "n",
                "schema": SCHEMA,
                "schema_strict": True,
            },
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "n", "schema": SCHEMA, "strict": True},
                }
            },
        ),
        (
            "responses",
            {
                "format_type": "json_schema",
                "schema_name": "n",
                "schema": SCHEMA,
                "schema_strict": True,
            },
            {
                "text": {
                    "format": {"type": "json_schema", "name": "n", "schema": SCHEMA, "strict": True}
                }
            },
        ),
        (
            "messages",
            {
                "format_type": "json_schema",
                "schema_name": "n",
                "schema": SCHEMA,
                "schema_strict": True,
            },
            {
                "max_tokens": 1024,
                "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
            },
        ),
    ],
)
def test_each_parameter_has_its_routes_wire_name(
    route: str, fields: dict[str, Any], expected: dict[str, Any]
) -> None:
    body = _body(route, **fields)
    if route == "messages":
        assert body.pop("max_tokens") == expected.pop("max_tokens")  # always sent (required)
    assert body == expected


@pytest.mark.parametrize(
    ("route", "parallel", "expected"),
    [
        ("chat", False, {"tool_choice": "auto", "parallel_tool_calls": False}),
        ("responses", True, {"tool_choice": "auto", "parallel_tool_calls": True}),
        ("messages", False, {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}),
        ("messages", True, {"tool_choice": {"type": "auto", "disable_parallel_tool_use": False}}),
    ],
)
def test_parallel_tool_calls_go_with_the_tools(
    route: str, parallel: bool, expected: dict[str, Any]
) -> None:
    body = _body(route, tools=[SAMPLE_TOOL], tool_choice="auto", parallel_tool_calls=parallel)
    assert {k: body[k] for k in expected if k in body} == expected
    # Without tools nothing is sent: OpenAI refuses parallel_tool_calls without them.
    bare = _body(route, parallel_tool_calls=parallel)
    assert "parallel_tool_calls" not in bare and "tool_choice" not in bare


EVERYTHING: dict[str, Any] = {
    "system": "s",
    "temperature": 0.5,
    "top_p": 0.9,
    "max_tokens": 10,
    "stop": ["END"],
    "seed": 3,
    "frequency_penalty": 0.1,
    "presence_penalty": 0.2,
    "reasoning_effort": "low",
    "reasoning_summary": "auto",
    "tools": [SAMPLE_TOOL],
    "tool_choice": "required",
    "parallel_tool_calls": False,
    "format_type": "json_schema",
    "schema_name": "x",
    "schema": SCHEMA,
    "schema_strict": True,
}


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_body_params_body_is_the_identity(route: str) -> None:
    body = build_body(route, RequestParams(model="m", prompt="hi", **EVERYTHING))
    back = params_from_body(route, body)
    assert back.extra == {}
    assert build_body(route, back) == body
    assert back.schema == SCHEMA and back.format_type == "json_schema"
    assert back.parallel_tool_calls is False and back.top_p == 0.9


@pytest.mark.parametrize(
    ("route", "key", "value"),
    [
        ("chat", "stop", "END"),  # one string: OpenAI allows it; the form sends a list
        ("chat", "seed", "7"),  # a string where the field holds a number
        ("chat", "response_format", {"type": "json_schema", "json_schema": {"schema": SCHEMA}}),
        ("responses", "text", {"format": {"type": "text"}, "verbosity": "low"}),
        ("responses", "reasoning", {"effort": "low", "generate_summary": "auto"}),
        (
            "messages",
            "output_config",
            {"format": {"type": "json_schema", "schema": SCHEMA}, "effort": "low"},
        ),
        ("messages", "output_format", {"type": "json_schema", "schema": SCHEMA}),
        ("chat", "max_completion_tokens", 40),
        ("chat", "seed", 2**40),  # more than the form's field holds
    ],
)
def test_what_the_fields_would_not_reproduce_rides_along_as_typed(
    route: str, key: str, value: Any
) -> None:
    body = build_body(route, RequestParams(model="m", prompt="hi")) | {key: value}
    back = params_from_body(route, body)
    assert back.extra == {key: value}
    assert build_body(route, back) == body
