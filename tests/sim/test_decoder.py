"""The simulator's streams read by the project's own StreamDecoder: no findings when well formed."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from .conftest import INSTANT
from .decoder_cases import EXTRAS
from .helpers import BODIES

stream_mod = pytest.importorskip("playground.protocol.stream")

ROUTE = {
    "/chat/completions": "chat",
    "/responses": "responses",
    "/messages": "messages",
    "/images/generations": "images",
    "/audio/speech": "speech",
}
CASES = [(p, v) for p in ROUTE for v in ("plain", "extras")]


def _decode(
    base_url: str, path: str, body: dict[str, Any], fault: str = "none", route: str = "auto"
) -> Any:
    decoder = stream_mod.StreamDecoder(route)
    start = time.monotonic()
    try:
        with httpx.stream(
            "POST",
            base_url + path,
            json=body,
            timeout=30,
            headers=INSTANT | {"X-Sim-Fault": fault, "X-Sim-Stall-Seconds": "0.2"},
        ) as r:
            if r.status_code != 200:
                r.read()
                decoder.fail_before_stream(
                    r.status_code,
                    r.content,
                    r.headers.get("content-type"),
                    r.headers.get("retry-after"),
                )
                return decoder
            decoder.set_content_type(r.headers.get("content-type"))
            for chunk in r.iter_raw():
                decoder.feed(chunk, time.monotonic() - start)
    except httpx.RemoteProtocolError:
        pass  # the "drop" fault: the bytes ended early
    decoder.finish(time.monotonic() - start)
    return decoder


def _body(path: str, variant: str) -> dict[str, Any]:
    body: dict[str, Any] = BODIES[path] | (EXTRAS[path] if variant == "extras" else {})
    return body


@pytest.mark.parametrize(("path", "variant"), CASES)
@pytest.mark.parametrize("named", [False, True])
def test_well_formed_streams_have_no_findings(
    base_url: str, path: str, variant: str, named: bool
) -> None:
    d = _decode(base_url, path, _body(path, variant), route=ROUTE[path] if named else "auto")
    assert d.route == ROUTE[path]
    assert d.state.status == "complete"
    assert [f.as_json() for f in d.findings] == []
    if path in ("/chat/completions", "/responses", "/messages"):
        assert d.state.usage
        if variant == "extras":
            assert d.state.reasoning and d.state.tool_calls
            assert all(call.valid_json for call in d.state.tool_calls)
        else:
            assert d.state.text.startswith("## ")
    if path == "/images/generations":
        assert d.state.images[-1].final and d.state.images[-1].width == 64
    if path == "/audio/speech":
        assert d.state.audio is not None and d.state.audio.seconds > 0.3


def test_transcription_and_music_have_no_findings(base_url: str) -> None:
    wav = httpx.post(
        base_url + "/audio/speech",
        headers=INSTANT,
        json={"input": "Round trip.", "response_format": "wav"},
    ).content
    decoder = stream_mod.StreamDecoder("auto")
    with httpx.stream(
        "POST",
        base_url + "/audio/transcriptions",
        headers=INSTANT,
        files={"file": ("a.wav", wav, "audio/wav")},
        data={"model": "sim-transcribe", "stream": "true"},
    ) as r:
        decoder.set_content_type(r.headers.get("content-type"))
        for chunk in r.iter_raw():
            decoder.feed(chunk, 0.0)
    decoder.finish(0.0)
    assert decoder.route == "transcription" and decoder.state.status == "complete"
    assert decoder.state.text == "Round trip." and not decoder.findings

    job = httpx.post(
        base_url + "/music", headers=INSTANT, json={"prompt": "calm", "duration_seconds": 2}
    ).json()
    music = stream_mod.StreamDecoder("music")
    with httpx.stream("GET", job["stream_url"]) as r:
        music.set_content_type(r.headers.get("content-type"))
        for chunk in r.iter_raw():
            music.feed(chunk, 0.0)
    music.finish(0.0)
    assert music.state.audio is not None and music.state.audio.seconds == pytest.approx(2, 0.05)
    assert [f.as_json() for f in music.findings] == []


STATUS = {"midstream-error": "failed", "drop": "truncated"}


@pytest.mark.parametrize("path", list(ROUTE))
@pytest.mark.parametrize(
    "fault",
    [
        "midstream-error",
        "incomplete",
        "drop",
        "stall",
        "bad-json",
        "unknown-events",
        "garbage",
        "out-of-order",
        "after-terminator",
        "http-429",
        "http-503",
        "no-key",
        "non-json-error",
        "empty-error",
        "json-instead-of-stream",
    ],
)
def test_faults_read_without_crashing(base_url: str, path: str, fault: str) -> None:
    body = _body(path, "plain")
    d = _decode(base_url, path, body, fault)
    status = d.state.status
    if fault.startswith("http-") or fault in ("no-key", "non-json-error", "empty-error"):
        assert status == "failed" and d.state.error is not None and d.state.error.status
        if fault == "http-429":
            assert d.state.error.retry_after == "1"
    elif fault in STATUS:
        assert status == STATUS[fault]
        assert d.findings  # the error or the missing terminator is reported
    elif fault == "incomplete" and path in ("/chat/completions", "/responses", "/messages"):
        assert status == "incomplete"
    elif fault in ("bad-json", "after-terminator"):
        assert d.findings
    elif fault == "json-instead-of-stream" and path != "/audio/speech":
        assert d.findings  # a stream was asked for, a whole answer came
    if (
        fault
        in ("stall", "unknown-events", "garbage", "out-of-order", "after-terminator", "bad-json")
        and path != "/images/generations"
    ):
        assert status == "complete"


def test_huge_line_is_read(base_url: str) -> None:
    d = _decode(base_url, "/chat/completions", BODIES["/chat/completions"], "huge-line")
    assert d.state.status == "complete" and d.state.text


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        ("none", "complete"),
        ("midstream-error", "failed"),
        ("drop", "truncated"),
        ("http-500", "failed"),
        ("unknown-events", "complete"),
        ("after-terminator", "complete"),
    ],
)
def test_transcription_faults(base_url: str, fault: str, status: str) -> None:
    decoder = stream_mod.StreamDecoder("transcription")
    try:
        with httpx.stream(
            "POST",
            base_url + "/audio/transcriptions",
            headers=INSTANT | {"X-Sim-Fault": fault},
            files={"file": ("a.mp3", b"\xff\xfb" * 500, "audio/mpeg")},
            data={"stream": "true"},
        ) as r:
            if r.status_code != 200:
                r.read()
                decoder.fail_before_stream(r.status_code, r.content, r.headers.get("content-type"))
            else:
                decoder.set_content_type(r.headers.get("content-type"))
                for chunk in r.iter_raw():
                    decoder.feed(chunk, 0.0)
    except httpx.RemoteProtocolError:
        pass
    decoder.finish(0.0)
    assert decoder.state.status == status
    assert bool(decoder.findings) == (fault != "none")
    if fault == "none":
        assert decoder.state.text and decoder.state.usage


def test_n_choices_have_no_findings(base_url: str) -> None:
    d = _decode(base_url, "/chat/completions", BODIES["/chat/completions"] | {"n": 3})
    assert d.state.status == "complete" and not d.findings
    assert sorted(d.state.choices) == [0, 1, 2]
    assert all(c.text.value.startswith("## ") for c in d.state.choices.values())
