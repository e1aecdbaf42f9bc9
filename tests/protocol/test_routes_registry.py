"""protocol/routes: one registry of Route descriptors, and everything derived from it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from playground.protocol.findings import FindingSink
from playground.protocol.params import RequestParams
from playground.protocol.routes import (
    CONVERSATIONAL,
    ROUTE_NAMES,
    ROUTES,
    detect_route,
    find_route,
    make_decoder,
    route_of,
)
from playground.protocol.terminators import done_ends, terminator


def test_the_registry_is_one_tuple_in_panel_order() -> None:
    assert ROUTE_NAMES == (
        "chat",
        "responses",
        "messages",
        "images",
        "speech",
        "transcription",
        "music",
    )
    assert [r.name for r in ROUTES] == list(ROUTE_NAMES)
    assert CONVERSATIONAL == ("chat", "responses", "messages")
    assert find_route("auto") is None
    with pytest.raises(ValueError, match="unknown route 'nope'"):
        route_of("nope")


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_NAMES)
def test_each_descriptor_builds_and_reads_back_its_body(route: object) -> None:
    from playground.protocol.routes import Route

    assert isinstance(route, Route)
    body = route.build_body(RequestParams(model="m", prompt="hi", extra={"x_trace": 3}))
    back = route.params_from_body(body)
    assert route.build_body(back) == body
    assert back.extra == {"x_trace": 3}  # a key no route has a field for


@pytest.mark.parametrize(
    ("name", "payload", "route"),
    [
        ("message", {"choices": []}, "chat"),
        ("message", {"object": "chat.completion.chunk"}, "chat"),
        ("response.created", {}, "responses"),
        ("message", {"type": "response.output_text.delta"}, "responses"),
        ("message_start", {}, "messages"),
        ("message", {"type": "content_block_delta"}, "messages"),
        ("image_generation.partial_image", {}, "images"),
        ("image_edit.completed", {}, "images"),
        ("speech.audio.delta", {}, "speech"),
        ("transcript.text.done", {}, "transcription"),
        ("music.job.progress", {}, "music"),
        ("message", {"type": "ping"}, None),
        ("message", [1], None),
    ],
)
def test_detection_comes_from_each_route_s_event_names(
    name: str, payload: object, route: str | None
) -> None:
    assert detect_route(name, payload) == route


def test_terminators_derive_from_the_descriptors() -> None:
    assert terminator("chat") == "data: [DONE]"
    assert terminator("messages") == "message_stop"
    assert terminator("music") == "the route's final event"
    assert terminator("auto") == "the route's final event"
    assert [r for r in (*ROUTE_NAMES, "auto") if done_ends(r)] == ["chat", "music", "auto"]


@pytest.mark.parametrize("route", ROUTE_NAMES)
def test_make_decoder_gives_the_route_s_own_decoder(route: str) -> None:
    decoder = make_decoder(route, FindingSink([]))
    assert decoder.route == route


def test_a_chat_decoder_loads_no_other_route_s_decoder() -> None:
    # Startup and the first chat stream stay light: decoders are imported by module path.
    code = (
        "import sys\n"
        "from playground.protocol.stream import StreamDecoder\n"
        "StreamDecoder('chat').feed(b'data: {\"choices\": []}\\n\\n', 0.0)\n"
        "print(sorted(m for m in sys.modules if m.startswith('playground.protocol.decoders.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(
        [
            "playground.protocol.decoders.base",
            "playground.protocol.decoders.chat",
            "playground.protocol.decoders.whole",
        ]
    )


def test_the_registry_loads_no_decoder_and_no_state() -> None:
    code = (
        "import sys\n"
        "import playground.protocol.requests\n"
        "print(sorted(m for m in sys.modules if m.startswith(('playground.protocol.decoders',"
        " 'playground.protocol.state', 'orjson'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_a_hand_typed_value_of_another_type_stays_in_extra() -> None:
    # The form's number fields never get a string (or a bool) from the raw JSON view; the body
    # is still sent exactly as typed.
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "temperature": "warm",
        "max_tokens": True,
        "n": 2,
    }
    params = route_of("chat").params_from_body(body)
    assert params.temperature is None and params.max_tokens is None and params.n == 2
    assert params.extra == {"temperature": "warm", "max_tokens": True}
    assert route_of("chat").build_body(params) == body
    thinking = {"type": "enabled", "budget_tokens": "lots"}
    back = route_of("messages").params_from_body(
        {"model": "m", "max_tokens": 5, "messages": [], "stream": True, "thinking": thinking}
    )
    assert back.thinking_budget is None and back.extra == {"thinking": thinking}
