"""A whole JSON answer (no stream) reads into the same state a stream would give, on every route."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from playground.protocol.stream import StreamDecoder


def _whole(body: dict[str, Any], route: str = "auto") -> StreamDecoder:
    decoder = StreamDecoder(route, stream_requested=False)
    decoder.set_content_type("application/json; charset=utf-8")
    raw = json.dumps(body).encode()
    decoder.feed(raw[:7], 0.1)
    decoder.feed(raw[7:], 0.2)
    decoder.finish(0.3)
    assert decoder.findings == [] or all(f.code != "json_body" for f in decoder.findings)
    return decoder


def test_chat_completion() -> None:
    decoder = _whole(
        {
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Hi",
                        "reasoning_content": "think",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    "finish_reason": "length",
                }
            ],
            "usage": {"prompt_tokens": 1},
        }
    )
    state = decoder.state
    assert (decoder.route, state.text, state.reasoning, state.finish, state.status) == (
        "chat",
        "Hi",
        "think",
        "length",
        "incomplete",
    )
    assert [(c.id, c.name, c.arguments.value) for c in state.tool_calls] == [("c1", "f", "{}")]


def test_response_object() -> None:
    decoder = _whole(
        {
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": "a"}, {"text": "b"}],
                },
                {"type": "message", "content": [{"type": "output_text", "text": "Paris."}]},
                {"type": "function_call", "call_id": "call_1", "name": "g", "arguments": '{"x":1}'},
            ],
            "usage": {"input_tokens": 3},
        }
    )
    state = decoder.state
    assert (decoder.route, state.text, state.reasoning, state.finish, state.status) == (
        "responses",
        "Paris.",
        "a\n\nb",
        "response.completed",
        "complete",
    )
    assert state.tool_calls[0].id == "call_1"


def test_failed_response_object() -> None:
    state = _whole(
        {
            "object": "response",
            "status": "failed",
            "error": {"code": "x", "message": "bad"},
            "output": [],
        }
    ).state
    assert (state.status, state.error and state.error.message) == ("failed", "bad")


def test_anthropic_message() -> None:
    decoder = _whole(
        {
            "type": "message",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Yes."},
                {"type": "tool_use", "id": "t1", "name": "h", "input": {"a": 1}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 5, "output_tokens": 6},
        }
    )
    state = decoder.state
    assert (decoder.route, state.text, state.reasoning, state.finish, state.status) == (
        "messages",
        "Yes.",
        "hmm",
        "tool_use",
        "complete",
    )
    assert json.loads(state.tool_calls[0].arguments.value) == {"a": 1}


def test_images_body() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (12, 7)).save(buf, "JPEG")
    decoder = _whole(
        {"created": 1, "data": [{"b64_json": base64.b64encode(buf.getvalue()).decode()}]}
    )
    image = decoder.state.images[0]
    assert (decoder.route, image.final, image.output_format, image.width, image.height) == (
        "images",
        True,
        "jpeg",
        12,
        7,
    )


def test_transcription_body() -> None:
    decoder = _whole({"text": "hello there"}, route="transcription")
    assert (decoder.state.text, decoder.state.status) == ("hello there", "complete")


@pytest.mark.parametrize("body", [b"{", b"[1, 2]", b'"text"'])
def test_odd_bodies_never_raise(body: bytes) -> None:
    decoder = StreamDecoder()
    decoder.set_content_type("application/json")
    decoder.feed(body, 0.0)
    decoder.finish(0.0)
    assert decoder.state.status in ("truncated", "complete", "failed")
    assert decoder.state.findings
