"""The official SDKs referee bodies built from Conversations: each accepts the body as it is,
puts exactly it on the wire, and the simulator's answer shows the earlier turns arrived."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from PIL import Image as PILImage
from sdk_referee import TIME_TOOL, sdk_answer

from playground.protocol.conversation import (
    Conversation,
    Image,
    Text,
    Thinking,
    ToolResult,
    Turn,
    assistant_turn,
    conversation_keys,
    tool_turn,
)
from playground.protocol.requests import SAMPLE_TOOL, to_anthropic_tool, to_responses_tool
from playground.protocol.stream import StreamDecoder

from .conftest import INSTANT

ROUTES = ("chat", "responses", "messages")
PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}
TOOLS = [SAMPLE_TOOL, TIME_TOOL]


def png(size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    PILImage.new("RGB", size, (10, 120, 200)).save(buf, "PNG")
    return buf.getvalue()


def body_for(route: str, conversation: Conversation, *, tools: bool = False) -> dict[str, Any]:
    """The request a panel sends: the route's own conversation keys, model, stream, tools."""
    body: dict[str, Any] = {"model": "sim-reasoner", "stream": True}
    body |= conversation_keys(route, conversation)
    if route == "responses":
        body["reasoning"] = {"effort": "low", "summary": "auto"}
    if route == "messages":
        body["max_tokens"] = 2048
        body["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    if tools:
        body["tools"] = {
            "chat": TOOLS,
            "responses": [to_responses_tool(t) for t in TOOLS],
            "messages": [to_anthropic_tool(t) for t in TOOLS],
        }[route]
    return body


def panel_turn(base_url: str, route: str, body: dict[str, Any]) -> Turn:
    """What the panel makes of an answer: the bytes decoded, the stream rebuilt as a turn."""
    decoder = StreamDecoder(route, request=body)
    with httpx.stream("POST", base_url + PATHS[route], json=body, headers=INSTANT, timeout=30) as r:
        assert r.status_code == 200
        for chunk in r.iter_raw():
            decoder.feed(chunk, 0.0)
    decoder.finish(0.0)
    assert decoder.state.status == "complete", decoder.state.findings
    return assistant_turn(decoder.state, [decoder.payload(i) for i in range(len(decoder.items))])


@pytest.mark.parametrize("route", ROUTES)
def test_multi_turn_with_an_image(base_url: str, route: str) -> None:
    conversation = Conversation(
        (
            Turn.of("user", "Tell me about the Eiffel Tower in Paris"),
            Turn.of("assistant", "It is a wrought-iron tower on the Champ de Mars."),
            Turn.of("user", "What is in this picture?", Image("image/png", png((64, 48)))),
        ),
        system="Answer briefly.",
    )
    body = body_for(route, conversation)
    text, sent = sdk_answer(base_url, route, body)
    assert sent == body
    assert text.startswith(
        'Following up on "Tell me about the Eiffel Tower in Paris". I see a 64×48 PNG image.'
    )


@pytest.mark.parametrize("route", ROUTES)
def test_two_round_tool_loop_with_parallel_calls(base_url: str, route: str) -> None:
    conversation = Conversation((Turn.of("user", "What is the weather and the time in Paris?"),))
    for round_ in range(2):
        ask = body_for(route, conversation, tools=True)
        answer = panel_turn(base_url, route, ask)
        calls = answer.tool_calls
        assert [c.name for c in calls] == ["get_weather", "get_time"]
        if route == "messages":  # thinking goes back with its signature (the sim checks it)
            assert any(isinstance(p, Thinking) and p.signature for p in answer.parts)
        results = tool_turn(
            [ToolResult(c.id, json.dumps({"round": round_, "tool": c.name})) for c in calls]
        )
        conversation = conversation.add(answer, results)
        body = body_for(route, conversation, tools=True)
        text, sent = sdk_answer(base_url, route, body)
        assert sent == body
        used = (
            f'The tool answered: get_weather: {{"round": {round_}, "tool": "get_weather"}}; '
            f'get_time: {{"round": {round_}, "tool": "get_time"}}'
        )
        # Round two's answer names round one's question first: the whole thread arrived.
        earlier = 'Following up on "What is the weather and the time in…".\n\n'
        assert text.startswith(earlier + used if round_ else used)
        final = panel_turn(base_url, route, body)
        assert final.tool_calls == () and final.text == text
        conversation = conversation.add(
            final, Turn("user", (Text("And tomorrow, weather and time?"),))
        )


SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperatures": {"type": "array", "items": {"type": "number"}, "minItems": 2},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city", "temperatures", "unit"],
    "additionalProperties": False,
}
FORMATS: dict[str, dict[str, Any]] = {
    "chat": {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "forecast", "schema": SCHEMA, "strict": True},
        }
    },
    "responses": {
        "text": {
            "format": {"type": "json_schema", "name": "forecast", "schema": SCHEMA, "strict": True}
        }
    },
    "messages": {"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}},
}


@pytest.mark.parametrize("route", ROUTES)
def test_structured_output_through_the_sdk(base_url: str, route: str) -> None:
    conversation = Conversation((Turn.of("user", "A three-day forecast for Oslo"),))
    body = body_for(route, conversation) | FORMATS[route]
    text, sent = sdk_answer(base_url, route, body)
    assert sent == body
    document = json.loads(text)
    jsonschema.validate(document, SCHEMA)
    assert document["city"] == "Oslo"


def test_image_edit_through_the_sdk(base_url: str) -> None:
    with openai.OpenAI(
        base_url=base_url, api_key="sk-sim", max_retries=0, default_headers=INSTANT
    ) as client:
        events = list(
            client.images.edit(
                image=("in.png", png((40, 30)), "image/png"),
                prompt="snow on the hills",
                model="gpt-image-1",
                stream=True,
                partial_images=2,
            )
        )
    assert [e.type for e in events] == [
        "image_edit.partial_image",
        "image_edit.partial_image",
        "image_edit.completed",
    ]
    last = events[-1]
    assert last.type == "image_edit.completed"
    final = PILImage.open(io.BytesIO(base64.b64decode(last.b64_json)))
    assert final.size == (40, 30)
    assert last.usage.input_tokens_details.image_tokens > 0
