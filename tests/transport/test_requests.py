"""Request bodies per route: the shapes each vendor's API expects."""

from __future__ import annotations

import pytest

from playground.protocol.requests import (
    ROUTES,
    SAMPLE_TOOL,
    RequestParams,
    build_body,
    form_fields,
    route_spec,
)


def test_routes_in_order_with_paths() -> None:
    assert [(r.name, r.path) for r in ROUTES] == [
        ("chat", "/chat/completions"),
        ("responses", "/responses"),
        ("messages", "/messages"),
        ("images", "/images/generations"),
        ("speech", "/audio/speech"),
        ("transcription", "/audio/transcriptions"),
        ("music", "/music"),
    ]
    assert route_spec("transcription").multipart and not route_spec("chat").multipart
    with pytest.raises(ValueError, match="unknown route"):
        build_body("video", RequestParams())


def full() -> RequestParams:
    return RequestParams(
        model="m",
        system="Be brief.",
        prompt="Weather in Paris?",
        temperature=0.5,
        max_tokens=300,
        reasoning_effort="low",
        tools=[SAMPLE_TOOL],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        include_usage=True,
        n=2,
    )


def test_chat() -> None:
    body = build_body("chat", full())
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["reasoning_effort"] == "low" and body["n"] == 2 and body["max_tokens"] == 300
    assert body["tools"] == [SAMPLE_TOOL] and body["tools"][0] is not SAMPLE_TOOL
    no_stream = full()
    no_stream.stream = False
    assert "stream_options" not in build_body("chat", no_stream)


def test_responses_flattens_tools() -> None:
    body = build_body("responses", full())
    assert body["input"] == "Weather in Paris?" and body["instructions"] == "Be brief."
    assert body["max_output_tokens"] == 300 and body["reasoning"] == {"effort": "low"}
    assert body["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": SAMPLE_TOOL["function"]["parameters"],
        }
    ]
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    multi = RequestParams(
        model="m",
        messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
    )
    assert build_body("responses", multi)["input"] == multi.messages


def test_messages_uses_anthropic_shapes() -> None:
    params = full()
    params.thinking_budget = 2048
    body = build_body("messages", params)
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Weather in Paris?"}]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] > 2048  # Anthropic: max_tokens must exceed the thinking budget
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "input_schema": SAMPLE_TOOL["function"]["parameters"],
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "get_weather"}
    for choice, expected in [("auto", "auto"), ("required", "any"), ("none", "none")]:
        params.tool_choice = choice
        assert build_body("messages", params)["tool_choice"] == {"type": expected}
    assert build_body("messages", RequestParams(model="m", prompt="x"))["max_tokens"] == 1024


def test_media_routes() -> None:
    img = build_body(
        "images",
        RequestParams(
            model="gpt-image-1",
            prompt="a fox",
            size="1024x1024",
            quality="low",
            partial_images=2,
            output_format="png",
        ),
    )
    assert img == {
        "model": "gpt-image-1",
        "prompt": "a fox",
        "size": "1024x1024",
        "quality": "low",
        "output_format": "png",
        "stream": True,
        "partial_images": 2,
    }
    speech = build_body(
        "speech", RequestParams(model="tts", input="Hello", voice="alloy", speed=1.25)
    )
    assert speech == {
        "model": "tts",
        "input": "Hello",
        "voice": "alloy",
        "response_format": "pcm",
        "speed": 1.25,
        "stream_format": "sse",
    }
    wav = build_body(
        "speech", RequestParams(model="tts", input="Hi", response_format="wav", stream=False)
    )
    assert "stream_format" not in wav and wav["response_format"] == "wav"
    tr = build_body("transcription", RequestParams(model="w", language="en"))
    assert form_fields(tr) == {"model": "w", "language": "en", "stream": "true"}
    music = build_body("music", RequestParams(model="song", prompt="lofi", duration=12.5))
    assert music == {"model": "song", "prompt": "lofi", "duration": 12.5, "stream": True}


def test_extra_keys_win() -> None:
    params = RequestParams(model="m", prompt="x", extra={"top_p": 0.9, "stream": False})
    body = build_body("chat", params)
    assert body["top_p"] == 0.9 and body["stream"] is False


ROUND_TRIP = [
    full(),
    RequestParams(model="m", prompt="hi"),
    RequestParams(model="m", prompt="hi", stream=False, tool_choice="none"),
    RequestParams(
        model="m",
        messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
        system="s",
        thinking_budget=1024,
        tools=[SAMPLE_TOOL],
        tool_choice="required",
    ),
    RequestParams(
        model="m", prompt="x", tools=[SAMPLE_TOOL], tool_choice="auto", extra={"x_trace": 1}
    ),
    RequestParams(model="m", input="say", voice="v", response_format="wav", stream=False),
    RequestParams(model="m", prompt="fox", size="1024x1024", partial_images=3, n=1),
    RequestParams(model="m", language="fr", temperature=0.2),
    RequestParams(model="m", prompt="song", duration=30),
]


@pytest.mark.parametrize("params", ROUND_TRIP)
@pytest.mark.parametrize("route", [r.name for r in ROUTES])
def test_raw_json_view_round_trips(route: str, params: RequestParams) -> None:
    from playground.protocol.requests import params_from_body

    body = build_body(route, params)
    back = params_from_body(route, body)
    assert build_body(route, back) == body
    if route in ("chat", "responses", "messages"):
        assert back.extra == params.extra  # known fields land in fields, not in extra
        assert back.tools == params.tools


def test_raw_json_view_keeps_unknown_keys() -> None:
    from playground.protocol.requests import params_from_body

    body = {"model": "m", "messages": [], "stream": True, "logit_bias": {"1": 2}, "seed": 7}
    params = params_from_body("chat", body)
    assert params.extra == {"logit_bias": {"1": 2}}  # seed is a field of the form
    assert params.seed == 7
    assert build_body("chat", params) == body
