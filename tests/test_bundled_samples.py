"""The bundled sample captures: one per route, each reads back complete with its route's parts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playground.assets import SAMPLE_CAPTURES, sample_capture
from playground.cli.inspect import decode_file, state_json
from playground.protocol.capture import read_capture
from playground.protocol.requests import ROUTE_NAMES


def test_there_is_one_sample_per_route() -> None:
    assert list(SAMPLE_CAPTURES) == list(ROUTE_NAMES)
    for route in ROUTE_NAMES:
        assert sample_capture(route).is_file(), route


@pytest.mark.parametrize("route", ROUTE_NAMES)
def test_each_sample_reads_back_complete_without_warnings(route: str) -> None:
    path = sample_capture(route)
    capture = read_capture(path, strict=True)  # the window's own reader, strict: a whole file
    assert capture.route == route and capture.response_status == 200
    assert capture.end_status == "complete"  # the verdict recorded when it was made...
    state = state_json(decode_file(Path(path).read_bytes()))
    assert state["route"] == route and state["status"] == "complete"  # ...and decoded again
    worrying = [f for f in state["findings"] if f["severity"] in ("warning", "error")]
    assert worrying == []
    assert state["error"] is None


def _sample(route: str) -> dict[str, Any]:
    return state_json(decode_file(sample_capture(route).read_bytes()))


def test_the_text_samples_carry_reasoning_and_tool_calls() -> None:
    chat, responses, messages = (_sample(r) for r in ("chat", "responses", "messages"))
    assert chat["reasoning"] and [c["name"] for c in chat["tool_calls"]] == ["get_weather"]
    assert responses["reasoning"] and responses["text"]
    assert messages["reasoning"] and messages["signatures"]  # thinking with its signature
    assert [c["name"] for c in messages["tool_calls"]] == ["get_weather"]


def test_the_media_samples_carry_images_audio_and_a_transcript() -> None:
    images = _sample("images")["images"]
    assert [i["final"] for i in images] == [False, False, True]  # two partials, then the image
    for route in ("speech", "music"):
        assert _sample(route)["audio"]["seconds"] > 1.0, route
    assert _sample("transcription")["text"] == (
        "Hello from the playground. This sentence was spoken by the simulator."
    )


def test_no_sample_holds_a_key() -> None:
    for route in ROUTE_NAMES:
        capture = read_capture(sample_capture(route))
        headers = {k.lower() for k in (capture.request or {}).get("headers", {})}
        assert not headers & {"authorization", "x-api-key", "api-key"}
