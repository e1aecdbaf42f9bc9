"""The simulator answers whole conversations: follow-ups, images, tool results, JSON Schemas."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import httpx
import jsonschema
import pytest
from PIL import Image

from playground.sim.image_info import image_info

from .conftest import INSTANT
from .helpers import payloads

PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}


def picture(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 80, 40)).save(buf, fmt)
    return buf.getvalue()


def answer(base_url: str, route: str, body: dict[str, Any]) -> str:
    """The streamed answer text of one request on ``route``."""
    full = {"model": "sim-chat", "stream": True} | body
    if route == "messages":
        full.setdefault("max_tokens", 1024)
    r = httpx.post(base_url + PATHS[route], json=full, headers=INSTANT, timeout=30)
    assert r.status_code == 200, r.text
    text = []
    for p in payloads(r.content):
        if not isinstance(p, dict):
            continue
        if route == "chat":
            text += [c["delta"].get("content") or "" for c in p.get("choices", [])]
        elif route == "responses" and p.get("type") == "response.output_text.delta":
            text.append(p["delta"])
        elif route == "messages" and p.get("type") == "content_block_delta":
            text.append(p["delta"].get("text", ""))
    return "".join(text)


def turns(route: str, user: list[Any], assistant: str = "Noted.") -> dict[str, Any]:
    """A body whose thread alternates the given user contents with a short assistant answer."""
    out: list[dict[str, Any]] = []
    for n, content in enumerate(user):
        if n:
            out.append({"role": "assistant", "content": assistant})
        out.append({"role": "user", "content": content})
    return {"input": out} if route == "responses" else {"messages": out}


@pytest.mark.parametrize("route", PATHS)
def test_a_follow_up_begins_by_naming_the_earlier_subject(base_url: str, route: str) -> None:
    body = turns(route, ["Tell me about the Eiffel Tower in Paris", "How tall is it?"])
    text = answer(base_url, route, body)
    assert text.startswith('Following up on "Tell me about the Eiffel Tower in Paris".')
    assert answer(base_url, route, body) == text  # deterministic
    single = answer(base_url, route, turns(route, ["How tall is it?"]))
    assert not single.startswith("Following up")


def _image_part(route: str, data: bytes, mime: str) -> dict[str, Any]:
    b64 = base64.b64encode(data).decode()
    if route == "chat":
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{b64}"}}
    if route == "responses":
        return {"type": "input_image", "image_url": f"data:{mime};base64,{b64}", "detail": "auto"}
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": b64}}


def _text_part(route: str, text: str) -> dict[str, Any]:
    return {"type": "input_text" if route == "responses" else "text", "text": text}


@pytest.mark.parametrize("route", PATHS)
@pytest.mark.parametrize(
    ("fmt", "mime", "size"),
    [
        ("PNG", "image/png", (64, 48)),
        ("JPEG", "image/jpeg", (33, 20)),
        ("WEBP", "image/webp", (17, 9)),
        ("GIF", "image/gif", (5, 300)),
    ],
)
def test_an_attached_image_is_read_from_its_bytes(
    base_url: str, route: str, fmt: str, mime: str, size: tuple[int, int]
) -> None:
    content = [
        _text_part(route, "What is in this picture?"),
        _image_part(route, picture(fmt, size), mime),
    ]
    text = answer(base_url, route, turns(route, [content]))
    assert text.startswith(f"I see a {size[0]}×{size[1]} {fmt} image.")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF"])
def test_image_headers(fmt: str) -> None:
    info = image_info(picture(fmt, (321, 123)))
    assert info is not None and (info.format, info.width, info.height) == (fmt.lower(), 321, 123)
    lossless = io.BytesIO()
    Image.new("RGBA", (7, 3)).save(lossless, "WEBP", lossless=True)
    assert image_info(lossless.getvalue()) == type(info)("webp", 7, 3)
    assert image_info(b"GIF8") is None and image_info(b"not an image at all") is None


def _tool_loop(route: str) -> dict[str, Any]:
    """A thread whose last turn answers two parallel calls."""
    q = "Weather in Paris and the time in Tokyo?"
    if route == "chat":
        calls = [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{}"},
            },
            {
                "id": "call_t",
                "type": "function",
                "function": {"name": "get_time", "arguments": "{}"},
            },
        ]
        return {
            "messages": [
                {"role": "user", "content": q},
                {"role": "assistant", "content": None, "tool_calls": calls},
                {"role": "tool", "tool_call_id": "call_w", "content": '{"temp": 18}'},
                {"role": "tool", "tool_call_id": "call_t", "content": "09:30"},
            ]
        }
    if route == "responses":
        return {
            "input": [
                {"role": "user", "content": q},
                {
                    "type": "function_call",
                    "call_id": "call_w",
                    "name": "get_weather",
                    "arguments": "{}",
                },
                {
                    "type": "function_call",
                    "call_id": "call_t",
                    "name": "get_time",
                    "arguments": "{}",
                },
                {"type": "function_call_output", "call_id": "call_w", "output": '{"temp": 18}'},
                {"type": "function_call_output", "call_id": "call_t", "output": "09:30"},
            ]
        }
    return {
        "messages": [
            {"role": "user", "content": q},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {}},
                    {"type": "tool_use", "id": "toolu_t", "name": "get_time", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_w", "content": '{"temp": 18}'},
                    {"type": "tool_result", "tool_use_id": "toolu_t", "content": "09:30"},
                ],
            },
        ]
    }


@pytest.mark.parametrize("route", PATHS)
def test_parallel_tool_results_are_all_used(base_url: str, route: str) -> None:
    text = answer(base_url, route, _tool_loop(route))
    assert text.startswith('The tool answered: get_weather: {"temp": 18}; get_time: 09:30')


SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": 7},
            "minItems": 1,
        },
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "ok": {"type": "boolean"},
    },
    "required": ["city", "days", "unit", "ok"],
    "additionalProperties": False,
}


def _format(route: str, schema: dict[str, Any]) -> dict[str, Any]:
    if route == "chat":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "w", "schema": schema, "strict": True},
            }
        }
    if route == "responses":
        return {
            "text": {
                "format": {"type": "json_schema", "name": "w", "schema": schema, "strict": True}
            }
        }
    return {"output_format": {"type": "json_schema", "schema": schema}}


@pytest.mark.parametrize("route", PATHS)
def test_a_json_schema_answer_is_a_valid_document(base_url: str, route: str) -> None:
    body = turns(route, ["Plan a week in Lisbon"]) | _format(route, SCHEMA)
    document = json.loads(answer(base_url, route, body))
    jsonschema.validate(document, SCHEMA)
    assert document["city"] == "Lisbon"  # a proper name from the prompt, as tool arguments do


def test_a_json_object_format_gives_an_object(base_url: str) -> None:
    body = turns("chat", ["Hi"]) | {"response_format": {"type": "json_object"}}
    assert isinstance(json.loads(answer(base_url, "chat", body)), dict)


# -- malformed conversations get the real APIs' 400s ---------------------------------------------

PNG = picture("PNG", (2, 2))
PNG_B64 = base64.b64encode(PNG).decode()


def _error(base_url: str, route: str, body: dict[str, Any]) -> dict[str, Any]:
    full = {"model": "sim-chat", "stream": True, "max_tokens": 64} | body
    r = httpx.post(base_url + PATHS[route], json=full, headers=INSTANT, timeout=30)
    assert r.status_code == 400, r.text
    return r.json()  # type: ignore[no-any-return]


def _openai(message: str, param: str | None, code: str | None = None) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


def test_chat_tool_message_without_its_call(base_url: str) -> None:
    body = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        ]
    }
    assert _error(base_url, "chat", body) == _openai(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
        "with 'tool_calls'.",
        "messages.[1].role",
    )
    loop = _tool_loop("chat")
    loop["messages"][3]["tool_call_id"] = "call_other"
    assert _error(base_url, "chat", loop) == _openai(
        "Invalid parameter: 'tool_call_id' of 'call_other' not found in 'tool_calls' of "
        "previous message.",
        "messages.[3].tool_call_id",
    )
    unanswered = _tool_loop("chat")
    unanswered["messages"][3:] = [{"role": "user", "content": "and?"}]
    assert _error(base_url, "chat", unanswered)["error"]["message"].endswith(
        "The following tool_call_ids did not have response messages: call_t"
    )


def test_chat_image_in_the_wrong_shape(base_url: str) -> None:
    url_string = {"type": "image_url", "image_url": f"data:image/png;base64,{PNG_B64}"}
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "?"}, url_string]}]}
    assert _error(base_url, "chat", body) == _openai(
        "Invalid type for 'messages[0].content[1].image_url': expected an object, but got a "
        "string instead.",
        "messages[0].content[1].image_url",
        "invalid_type",
    )
    responses_part = {"type": "input_image", "image_url": "https://example.com/a.png"}
    body = {"messages": [{"role": "user", "content": [responses_part]}]}
    error = _error(base_url, "chat", body)["error"]
    assert error["message"].startswith(
        "Invalid value: 'input_image'. Supported values are: 'text', 'image_url'"
    )
    assert (error["param"], error["code"]) == ("messages[0].content[0].type", "invalid_value")
    not_image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}
    body = {"messages": [{"role": "user", "content": [not_image]}]}
    assert _error(base_url, "chat", body)["error"]["code"] == "invalid_image_format"


def test_responses_output_without_its_call(base_url: str) -> None:
    body = {
        "input": [
            {"role": "user", "content": "Hi"},
            {"type": "function_call_output", "call_id": "call_9", "output": "x"},
        ]
    }
    assert _error(base_url, "responses", body) == _openai(
        "No tool call found for function call output with call_id call_9.", "input"
    )
    # With previous_response_id the call is on the server's side of the conversation.
    r = httpx.post(
        base_url + "/responses",
        json={
            "model": "m",
            "stream": True,
            "previous_response_id": "resp_1",
            "input": body["input"][1:],
        },
        headers=INSTANT,
        timeout=30,
    )
    assert r.status_code == 200


def test_responses_image_in_the_wrong_shape(base_url: str) -> None:
    part = {"type": "input_image", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}
    body = {"input": [{"role": "user", "content": [part]}]}
    assert _error(base_url, "responses", body) == _openai(
        "Invalid type for 'input[0].content[0].image_url': expected a string, but got an "
        "object instead.",
        "input[0].content[0].image_url",
        "invalid_type",
    )
    chat_part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    error = _error(base_url, "responses", {"input": [{"role": "user", "content": [chat_part]}]})[
        "error"
    ]
    assert error["message"].startswith(
        "Invalid value: 'image_url'. Supported values are: 'input_text'"
    )


def _anthropic(base_url: str, body: dict[str, Any]) -> str:
    error = _error(base_url, "messages", body)
    assert error["type"] == "error" and error["request_id"].startswith("req_")
    assert error["error"]["type"] == "invalid_request_error"
    return str(error["error"]["message"])


def test_messages_tool_result_without_its_tool_use(base_url: str) -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_x", "content": "x"}
    body = {
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "user", "content": [result]},
        ]
    }
    assert _anthropic(base_url, body) == (
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message."
    )
    loop = _tool_loop("messages")
    loop["messages"][2]["content"] = [loop["messages"][2]["content"][0]]
    assert _anthropic(base_url, loop) == (
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_t. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )


def test_messages_thinking_without_signature(base_url: str) -> None:
    loop = _tool_loop("messages")
    loop["messages"][1]["content"].insert(0, {"type": "thinking", "thinking": "Two tools."})
    assert _anthropic(base_url, loop) == "messages.1.content.0.thinking.signature: Field required"
    loop["messages"][1]["content"][0]["signature"] = "c2ln"
    r = httpx.post(
        base_url + "/messages",
        json={"model": "m", "max_tokens": 64, "stream": True} | loop,
        headers=INSTANT,
        timeout=30,
    )
    assert r.status_code == 200


def test_messages_image_in_the_wrong_shape(base_url: str) -> None:
    def body(block: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": [{"type": "text", "text": "?"}, block]}]}

    assert _anthropic(base_url, body({"type": "image", "data": PNG_B64})) == (
        "messages.0.content.1.image.source: Field required"
    )
    wrong_type = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG_B64},
    }
    assert _anthropic(base_url, body(wrong_type)) == (
        "messages.0.content.1.image.source.base64: The image was specified using the image/jpeg "
        "media type, but the image appears to be a image/png image"
    )
    openai_part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    assert _anthropic(base_url, body(openai_part)).startswith(
        "messages.0.content.1: Input tag 'image_url' found using 'type' does not match any of "
        "the expected tags"
    )


# -- image edits ----------------------------------------------------------------------------------


def test_image_edits_stream_partials_of_the_edited_picture(base_url: str) -> None:
    source = picture("PNG", (64, 48))
    mask = io.BytesIO()
    Image.new("RGBA", (64, 48), (0, 0, 0, 255)).save(mask, "PNG")  # opaque: nothing to edit...
    clear = Image.new("RGBA", (32, 48), (0, 0, 0, 0))
    masked = Image.open(mask).copy()
    masked.paste(clear, (0, 0))  # ...but the left half
    mask = io.BytesIO()
    masked.save(mask, "PNG")
    r = httpx.post(
        base_url + "/images/edits",
        files={
            "image": ("in.png", source, "image/png"),
            "mask": ("mask.png", mask.getvalue(), "image/png"),
        },
        data={
            "model": "gpt-image-1",
            "prompt": "a lake at dusk",
            "stream": "true",
            "partial_images": "2",
        },
        headers=INSTANT,
        timeout=30,
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [p for p in payloads(r.content) if isinstance(p, dict)]
    assert [e["type"] for e in events] == [
        "image_edit.partial_image",
        "image_edit.partial_image",
        "image_edit.completed",
    ]
    assert [e.get("partial_image_index") for e in events[:2]] == [0, 1]
    assert payloads(r.content)[-1] == "[DONE]"
    final = Image.open(io.BytesIO(base64.b64decode(events[-1]["b64_json"]))).convert("RGB")
    assert final.size == (64, 48) and events[-1]["size"] == "64x48"
    assert final.getpixel((50, 24)) == (200, 80, 40)  # kept where the mask is opaque
    assert final.getpixel((10, 24)) != (200, 80, 40)  # painted where it is clear


def test_image_edits_without_an_image_is_a_400(base_url: str) -> None:
    r = httpx.post(
        base_url + "/images/edits",
        data={"prompt": "x", "stream": "true"},
        files={"mask": ("m.png", PNG, "image/png")},
        headers=INSTANT,
        timeout=30,
    )
    assert r.status_code == 400
    assert r.json()["error"]["param"] == "image"
