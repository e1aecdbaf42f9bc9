"""The request editor: form -> body -> form round trips on every route, and raw JSON edits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol.requests import SAMPLE_TOOL, RequestParams, build_body, params_from_body

CASES: list[tuple[str, RequestParams]] = [
    (
        "chat",
        RequestParams(
            model="m",
            prompt="hi",
            system="s",
            temperature=0.3,
            max_tokens=9,
            reasoning_effort="low",
            tools=[SAMPLE_TOOL],
            tool_choice="required",
            include_usage=True,
            top_p=0.5,
            stop=["END", "\n\n"],
            seed=7,
            n=2,
            frequency_penalty=0.4,
            presence_penalty=-0.3,
            parallel_tool_calls=False,
            format_type="json_schema",
            schema_name="weather",
            schema={"type": "object", "properties": {"city": {"type": "string"}}},
            schema_strict=True,
        ),
    ),
    (
        "responses",
        RequestParams(
            model="m",
            prompt="hi",
            system="s",
            reasoning_effort="high",
            reasoning_summary="detailed",
            tools=[SAMPLE_TOOL],
            tool_choice={"type": "function", "function": {"name": "get_weather"}},
            parallel_tool_calls=True,
            top_p=0.25,
            format_type="json_schema",
            schema_name="w",
            schema={"type": "object", "required": ["a"]},
        ),
    ),
    (
        "messages",
        RequestParams(
            model="m",
            prompt="hi",
            system="s",
            thinking_budget=2048,
            tools=[SAMPLE_TOOL],
            tool_choice="auto",
            parallel_tool_calls=False,
            stop=["Human:"],
            top_p=0.75,
            format_type="json_schema",
            schema={"type": "object", "required": ["a"]},
        ),
    ),
    (
        "images",
        RequestParams(
            model="m",
            prompt="a kite",
            size="256x256",
            quality="low",
            partial_images=2,
            output_format="webp",
        ),
    ),
    ("speech", RequestParams(model="m", input="hello", voice="nova", speed=1.5)),
    ("transcription", RequestParams(model="m", language="en")),
    ("music", RequestParams(model="m", prompt="rain", duration=12.0)),
]


@pytest.mark.parametrize(("route", "params"), CASES, ids=[c[0] for c in CASES])
def test_body_round_trips_through_the_form_fields(route: str, params: RequestParams) -> None:
    body = build_body(route, params)
    back = params_from_body(route, body)
    assert back.extra == {}  # every key the route builds is a form field
    assert build_body(route, back) == body


def test_unknown_keys_ride_along_in_extra() -> None:
    body = build_body("chat", RequestParams(model="m", prompt="hi"))
    body["user"] = "u-7"
    body["logit_bias"] = {"50256": -100}
    body["max_completion_tokens"] = 30  # OpenAI's newer name: chat's field sends max_tokens
    back = params_from_body("chat", body)
    assert back.extra == {"user": "u-7", "logit_bias": {"50256": -100}, "max_completion_tokens": 30}
    assert build_body("chat", back) == body


@pytest.mark.parametrize("route", [c[0] for c in CASES])
def test_editor_shows_a_body_and_sends_it_unchanged(route: str, qapp: Any) -> None:
    from playground.ui.panels.editor import RequestEditor

    params = dict(CASES)[route]
    body = build_body(route, params)
    editor = RequestEditor(route)
    editor.set_body(body)
    assert editor.body() == body
    # A form edit regenerates the raw view from the fields, and the body survives it.
    editor._form_to_raw()
    assert json.loads(editor.raw.toPlainText()) == body
