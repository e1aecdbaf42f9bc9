"""`playground sim --replay`: a capture's answer served with its timing, faults applied to it."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from capture_helpers import RecordedCapture

from playground.assets import sample_capture
from playground.cli.inspect import decode_file
from playground.runs.journal import CaptureJournal
from playground.sim.cli import main
from playground.sim.recording import RecordingError, read_recording
from playground.sim.replay import create_replay_app
from playground.sim.replay_faults import plan_body
from playground.sim.server import SimServer

TEXT = "Grüße — 世界 ✓"
EVENTS = [
    f'data: {{"choices":[{{"index":0,"delta":{{"content":"{word} "}}}}]}}\n\n'.encode()
    for word in TEXT.split()
] * 4 + [b"data: [DONE]\n\n"]


def _write(path: Path, chunks: list[tuple[float, bytes]], status: int = 200) -> Path:
    """A capture as the app journals one (CaptureJournal keeps repeated headers as pairs)."""
    journal = CaptureJournal(path, "chat")
    journal.on_request(
        "POST",
        "http://127.0.0.1:9/v1/chat/completions",
        {"Authorization": "Bearer [redacted]"},
        b'{"model":"m","stream":true}',
    )
    headers = [
        ("content-type", "text/event-stream"),
        ("x-dup", "a"),
        ("x-dup", "b"),
        ("content-length", "999"),
        ("retry-after", "7"),
    ]
    journal.on_response(status, headers, 0.05)
    for t, data in chunks:
        journal.on_chunk(t, data)
    journal.on_end(chunks[-1][0] if chunks else 0.0)
    return path


@pytest.fixture
def timed(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "timed.capture.jsonl", [(0.1 + 0.01 * i, e) for i, e in enumerate(EVENTS)]
    )


def _serve(path: Path, speed: float = 0.0, fault: str = "none") -> SimServer:
    return SimServer(app=create_replay_app(read_recording(path), speed=speed, fault=fault))


@pytest.fixture
def served(timed: Path) -> Iterator[SimServer]:
    with _serve(timed) as server:
        yield server


def _read(url: str, **headers: str) -> tuple[httpx.Response, list[tuple[float, bytes]]]:
    start = time.monotonic()
    got: list[tuple[float, bytes]] = []
    with httpx.stream("POST", url + "/chat/completions", json={}, headers=headers) as r:
        for data in r.iter_raw():
            got.append((time.monotonic() - start, data))
    return r, got


def _recorded_chat(path: Path) -> Path:
    """A chat answer of the live simulator, recorded read by read with the project's writer."""
    body = {"model": "sim-chat", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
    with SimServer() as sim:
        writer = RecordedCapture(
            path, route="chat", method="POST", url=sim.base_url + "/chat/completions", body=body
        )
        start = time.monotonic()
        with httpx.stream(
            "POST", sim.base_url + "/chat/completions", json=body, headers={"X-Sim-Pace": "fast"}
        ) as r:
            writer.response(r.status_code, list(r.headers.multi_items()), time.monotonic() - start)
            for data in r.iter_raw():
                writer.chunk(time.monotonic() - start, data)
        writer.finalize(time.monotonic() - start, "complete")
    return path


@pytest.mark.parametrize("route", ["chat", "responses"])
def test_the_openai_sdk_reads_a_replayed_capture_as_its_text(route: str, tmp_path: Path) -> None:
    if route == "chat":
        path = _recorded_chat(tmp_path / "chat.capture.jsonl")
    else:
        path = sample_capture(route)  # the bundled sample (resources/captures)
    expected = decode_file(path.read_bytes()).state.text
    assert expected
    with (
        _serve(path) as server,
        openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0) as client,
    ):
        if route == "chat":
            chunks = client.chat.completions.create(model="m", messages=[], stream=True)
            text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        else:
            events = client.responses.create(model="m", input="x", stream=True)
            text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == expected


def test_status_headers_and_bytes_are_the_recorded_ones(served: SimServer) -> None:
    r, got = _read(served.base_url)
    assert r.status_code == 200 and r.headers.get_list("x-dup") == ["a", "b"]
    assert r.headers["retry-after"] == "7" and "content-length" not in r.headers
    assert b"".join(d for _, d in got) == b"".join(EVENTS)
    # Any request on the route, with or without /v1, any method; other paths are not it.
    assert httpx.get(served.base_url.removesuffix("/v1") + "/chat/completions").status_code == 200
    other = httpx.post(served.base_url + "/messages")
    assert other.status_code == 404 and "/v1/chat/completions" in other.json()["error"]["message"]


def test_the_recorded_timing_is_kept_and_speed_scales_it(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.capture.jsonl", [(0.1 + 0.03 * i, e) for i, e in enumerate(EVENTS)])
    span = 0.03 * (len(EVENTS) - 1)  # from the first read to the last, as recorded

    def replayed(speed: float) -> tuple[float, float]:
        with _serve(path, speed=speed) as server:
            _, got = _read(server.base_url)
        return got[0][0], got[-1][0] - got[0][0]

    first, took = replayed(1.0)
    assert first >= 0.09 and took >= span - 0.02
    _, took = replayed(4.0)
    assert span / 4 - 0.02 <= took < span * 0.75
    _, took = replayed(0.0)
    assert took < span / 2


def test_drop_cuts_the_connection_after_what_was_recorded_before(served: SimServer) -> None:
    got = b""
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream(
            "POST", served.base_url + "/chat/completions", headers={"X-Sim-Fault": "drop"}
        ) as r,
    ):
        for data in r.iter_raw():
            got += data
    assert got == b"".join(EVENTS[:6])


def test_split_utf8_cuts_every_character_across_reads(served: SimServer) -> None:
    _, got = _read(served.base_url, **{"X-Sim-Fault": "split-utf8"})
    assert b"".join(d for _, d in got) == b"".join(EVENTS)
    cut = 0
    for _, data in got:
        try:
            data.decode()
        except UnicodeDecodeError:
            cut += 1
    assert cut >= TEXT.encode().count(b"\xe4")  # at least every CJK character was split


def test_midstream_error_and_http_faults(served: SimServer) -> None:
    _, got = _read(served.base_url, **{"X-Sim-Fault": "midstream-error"})
    decoder = decode_file(b"".join(d for _, d in got), route="chat")
    assert decoder.state.status == "failed" and decoder.state.error is not None
    r = httpx.post(served.base_url + "/chat/completions", headers={"X-Sim-Fault": "http-503"})
    assert r.status_code == 503 and r.json()["error"]["code"] == 503


def test_stall_is_silence_at_the_strike_then_the_rest(served: SimServer) -> None:
    _, got = _read(served.base_url, **{"X-Sim-Fault": "stall", "X-Sim-Stall-Seconds": "0.4"})
    assert b"".join(d for _, d in got) == b"".join(EVENTS)
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(got)]
    assert max(gaps) >= 0.35


def test_faults_on_bytes_keep_what_comes_before_the_strike() -> None:
    chunks = [(0.0, b"".join(EVENTS[:3])), (0.2, b"".join(EVENTS[3:]))]
    for fault in ("garbage", "unknown-events", "bad-json"):
        pieces = plan_body(chunks, fault, "chat")
        body = b"".join(p.data for p in pieces)
        assert body.startswith(b"".join(EVENTS[:6])) and body != b"".join(EVENTS), fault
    again = plan_body(chunks, "after-terminator", "chat")
    assert b"".join(p.data for p in again).endswith(b"data: [DONE]\n\n" + EVENTS[-2])


def test_a_file_that_is_not_a_capture_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw.sse"
    raw.write_bytes(b"data: hi\n\n")
    with pytest.raises(RecordingError, match=r"raw\.sse is not a playground-capture/1 file"):
        read_recording(raw)
    with pytest.raises(SystemExit):
        main(["--replay", str(raw)])


def test_the_command_refuses_faults_that_do_not_apply(
    timed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["--replay", str(timed), "--fault", "out-of-order"])
    assert "does not apply to a replay" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--fault", "split-utf8"])
    assert "applies to --replay only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--replay", str(timed), "--speed", "-1"])
