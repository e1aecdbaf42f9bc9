"""The official openai SDK reads every simulated route unchanged."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from PIL import Image
from sdk_referee import TIME_TOOL

from playground.sim import voice

from .conftest import INSTANT
from .sdk_clients import closing_client

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city", "unit", "days"],
            "additionalProperties": False,
        },
    },
}
TIME = TIME_TOOL


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=base_url, api_key="sk-sim", max_retries=0, default_headers=INSTANT
    ) as sdk:
        yield sdk


def _chat(client: openai.OpenAI, **kw: Any) -> list[Any]:
    params: dict[str, Any] = {
        "model": "sim-chat",
        "messages": [{"role": "user", "content": "Explain SSE"}],
    }
    return list(client.chat.completions.create(stream=True, **(params | kw)))


def test_chat_text_and_usage_without_include_usage(client: openai.OpenAI) -> None:
    chunks = _chat(client)
    assert chunks[0].id.startswith("gen-")
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "## " in text and "`" in text and "- **" in text  # Markdown for the UI to render
    assert 60 <= len(text.split()) <= 170
    assert "SSE" in text
    last = chunks[-1]
    # Without include_usage the usage chunk keeps one choice with an empty delta (seeds).
    assert last.usage is not None and last.usage.completion_tokens > 0
    assert len(last.choices) == 1
    assert last.choices[0].delta.content is None and last.choices[0].delta.role is None
    assert all(c.usage is None for c in chunks[:-1])
    assert len({c.id for c in chunks}) == 1


def test_chat_usage_chunk_with_include_usage(client: openai.OpenAI) -> None:
    chunks = _chat(client, stream_options={"include_usage": True})
    assert chunks[-1].choices == []
    usage = chunks[-1].usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert chunks[-2].choices[0].finish_reason == "stop"


def test_chat_is_deterministic_for_a_prompt(client: openai.OpenAI) -> None:
    def text() -> str:
        return "".join(c.choices[0].delta.content or "" for c in _chat(client) if c.choices)

    assert text() == text()


def test_chat_reasoning_comes_first_in_model_extra(client: openai.OpenAI) -> None:
    chunks = _chat(client, reasoning_effort="high")
    kinds = []
    for c in chunks:
        if not c.choices:
            continue
        extra = c.choices[0].delta.model_extra or {}
        if extra.get("reasoning"):
            kinds.append("r")
        elif c.choices[0].delta.content:
            kinds.append("t")
    assert kinds and kinds[0] == "r" and "t" in kinds
    assert kinds == sorted(kinds)  # all reasoning before any text
    assert chunks[-1].usage.completion_tokens_details.reasoning_tokens == kinds.count("r")


def test_chat_streamed_parallel_tool_calls_are_valid(client: openai.OpenAI) -> None:
    prompt = "What is the weather and the local time in Paris?"
    chunks = _chat(client, messages=[{"role": "user", "content": prompt}], tools=[WEATHER, TIME])
    calls: dict[int, dict[str, str]] = {}
    pieces: dict[int, int] = {}
    for c in chunks:
        if not c.choices:
            continue
        for tc in c.choices[0].delta.tool_calls or []:
            call = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
            if tc.id:
                call["id"] = tc.id
            if tc.function and tc.function.name:
                call["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                call["arguments"] += tc.function.arguments
                pieces[tc.index] = pieces.get(tc.index, 0) + 1
    assert [calls[i]["name"] for i in sorted(calls)] == ["get_weather", "get_time"]
    assert all(n >= 2 for n in pieces.values())  # streamed in several pieces
    weather = json.loads(calls[0]["arguments"])
    assert set(weather) == {"city", "unit", "days"}
    assert weather["unit"] in ("celsius", "fahrenheit") and 1 <= weather["days"] <= 7
    assert isinstance(json.loads(calls[1]["arguments"])["timezone"], str)
    finishes = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert finishes[0] == "tool_calls"


def test_chat_not_streamed(client: openai.OpenAI) -> None:
    done = client.chat.completions.create(
        model="sim-chat", messages=[{"role": "user", "content": "Explain SSE"}]
    )
    streamed = "".join(c.choices[0].delta.content or "" for c in _chat(client) if c.choices)
    assert done.choices[0].message.content == streamed
    assert done.usage is not None and done.usage.completion_tokens > 0


def test_chat_max_tokens_cuts_with_length(client: openai.OpenAI) -> None:
    chunks = _chat(client, max_tokens=5, stream_options={"include_usage": True})
    assert chunks[-1].usage.completion_tokens == 5
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


def test_responses_text_reasoning_and_usage(client: openai.OpenAI) -> None:
    events = list(
        client.responses.create(
            model="sim-chat", input="Explain SSE", stream=True, reasoning={"effort": "low"}
        )
    )
    assert [e.sequence_number for e in events] == list(range(len(events)))
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    assert types.index("response.reasoning_text.delta") < types.index("response.output_text.delta")
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    last = events[-1]
    assert last.type == "response.completed"
    final = last.response
    assert final.output_text == text and final.usage is not None
    assert final.usage.output_tokens > 0 and final.usage.output_tokens_details.reasoning_tokens > 0


def test_responses_helper_function_call(client: openai.OpenAI) -> None:
    tool: Any = {
        "type": "function",
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": WEATHER["function"]["parameters"],
        "strict": True,
    }
    with client.responses.stream(model="sim-chat", input="weather in Oslo?", tools=[tool]) as s:
        deltas = [e for e in s if e.type == "response.function_call_arguments.delta"]
        final = s.get_final_response()
    assert len(deltas) >= 2
    (call,) = [o for o in final.output if o.type == "function_call"]
    assert call.name == "get_weather" and call.call_id.startswith("call_")
    assert set(json.loads(call.arguments)) == {"city", "unit", "days"}
    assert final.usage is not None


def test_responses_incomplete_when_max_output_tokens_cuts(client: openai.OpenAI) -> None:
    events = list(
        client.responses.create(
            model="sim-chat", input="Explain SSE", stream=True, max_output_tokens=16
        )
    )
    last = events[-1]
    assert last.type == "response.incomplete"
    details = last.response.incomplete_details
    assert details is not None and details.reason == "max_output_tokens"


def test_images_stream_partials_then_completed(client: openai.OpenAI) -> None:
    events = list(
        client.images.generate(
            model="sim-image",
            prompt="a lake at dawn",
            stream=True,
            partial_images=2,
            size="256x192",
        )
    )
    assert [e.type for e in events] == ["image_generation.partial_image"] * 2 + [
        "image_generation.completed"
    ]
    partials = [e for e in events if e.type == "image_generation.partial_image"]
    assert [e.partial_image_index for e in partials] == [0, 1]
    images = [Image.open(io.BytesIO(base64.b64decode(e.b64_json))) for e in events]
    assert all(img.format == "PNG" and img.size == (256, 192) for img in images)
    last = events[-1]
    assert last.type == "image_generation.completed" and last.usage.total_tokens > 0


def test_speech_sse_with_streaming_response(client: openai.OpenAI) -> None:
    with client.audio.speech.with_streaming_response.create(
        model="sim-tts", voice="alloy", input="Hello from the simulator.", stream_format="sse"
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: {")]
    deltas = [e for e in events if e["type"] == "speech.audio.delta"]
    assert len(deltas) > 5 and events[-1]["type"] == "speech.audio.done"
    pcm = b"".join(base64.b64decode(e["audio"]) for e in deltas)
    assert voice.decode_text(pcm) == "Hello from the simulator."
    assert events[-1]["usage"]["output_tokens"] > 0


def test_transcription_stream_round_trip(client: openai.OpenAI) -> None:
    said = "Streaming speech comes back as text."
    audio = client.audio.speech.create(
        model="sim-tts", voice="alloy", input=said, response_format="wav"
    )
    wav = audio.read()
    events = list(
        client.audio.transcriptions.create(
            model="sim-transcribe", file=("said.wav", wav, "audio/wav"), stream=True
        )
    )
    assert "".join(e.delta for e in events if e.type == "transcript.text.delta") == said
    last = events[-1]
    assert last.type == "transcript.text.done" and last.text == said
    assert last.usage is not None and last.usage.input_tokens > 0
    whole = client.audio.transcriptions.create(
        model="sim-transcribe", file=("said.wav", wav, "audio/wav")
    )
    assert whole.text == said


@pytest.mark.parametrize(
    ("call", "content_seen"),
    [("chat", "text"), ("responses", "text"), ("images", "partial")],
)
def test_midstream_error_raises_after_content(base_url: str, call: str, content_seen: str) -> None:
    client = closing_client(
        openai.OpenAI(
            base_url=base_url,
            api_key="k",
            max_retries=0,
            default_headers=INSTANT | {"X-Sim-Fault": "midstream-error"},
        )
    )
    got: list[object] = []
    with pytest.raises(openai.APIError, match="simulated mid-stream error"):
        if call == "chat":
            for c in client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True
            ):
                if c.choices and c.choices[0].delta.content:
                    got.append(c)
        elif call == "responses":
            for event in client.responses.create(model="m", input="hi", stream=True):
                if event.type == "response.output_text.delta":
                    got.append(event)
        else:
            for e in client.images.generate(
                model="m", prompt="x", stream=True, partial_images=2, size="64x64"
            ):
                got.append(e)
    assert got  # content arrived before the error


def test_http_429_raises_rate_limit_error_with_retry_after(base_url: str) -> None:
    client = closing_client(
        openai.OpenAI(
            base_url=base_url,
            api_key="k",
            max_retries=0,
            default_headers=INSTANT | {"X-Sim-Fault": "http-429"},
        )
    )
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "1"
    assert "Rate limit" in info.value.message


def test_models_list(client: openai.OpenAI) -> None:
    models = {m.id: m for m in client.models.list()}
    assert {"sim-chat", "sim-reasoner", "sim-image", "sim-tts", "sim-transcribe"} <= set(models)
    image, chat = models["sim-image"].model_extra, models["sim-chat"].model_extra
    assert image is not None and image["images"] is True
    assert chat is not None and "chat" in chat["routes"]


def test_no_key_is_accepted(base_url: str) -> None:
    r = httpx.post(
        base_url + "/chat/completions",
        headers=INSTANT,
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"]


def test_responses_reasoning_summary(client: openai.OpenAI) -> None:
    with client.responses.stream(
        model="sim-reasoner", input="Explain tides", reasoning={"effort": "low", "summary": "auto"}
    ) as s:
        types = [e.type for e in s]
        final = s.get_final_response()
    assert "response.reasoning_summary_text.delta" in types
    assert "response.reasoning_text.delta" not in types
    assert final.output[0].type == "reasoning" and final.output[0].summary[0].text


def test_chat_n_choices_stream_interleaved(client: openai.OpenAI) -> None:
    chunks = _chat(client, n=3, stream_options={"include_usage": True})
    texts = {0: "", 1: "", 2: ""}
    order = []
    for c in chunks:
        for choice in c.choices:
            texts[choice.index] += choice.delta.content or ""
            if choice.delta.content:
                order.append(choice.index)
    assert len(set(texts.values())) == 3 and all(t.startswith("## ") for t in texts.values())
    assert order[:3] == [0, 1, 2]  # interleaved, as providers send n choices
    single = "".join(c.choices[0].delta.content or "" for c in _chat(client) if c.choices)
    assert texts[0] == single  # choice 0 is the same answer as with n=1
    assert chunks[-1].usage.completion_tokens == sum(
        1 for c in chunks for ch in c.choices if ch.delta.content
    )
