"""The playground-capture/1 file: journaled writer, atomic finalize, reader, raw curl -N import."""

from __future__ import annotations

import json
from pathlib import Path

from playground.protocol.capture import FORMAT, CaptureWriter, read_capture, redact_headers


def test_redact_headers_hides_every_secret_header() -> None:
    headers = {
        "Authorization": "Bearer sk-secret",
        "x-api-key": "sk-ant-secret",
        "API-Key": "azure-secret",
        "Cookie": "session=secret",
        "Content-Type": "application/json",
    }
    out = redact_headers(headers)
    assert out == {
        "Authorization": "[redacted]",
        "x-api-key": "[redacted]",
        "API-Key": "[redacted]",
        "Cookie": "[redacted]",
        "Content-Type": "application/json",
    }
    assert redact_headers([("authorization", "x")]) == {"authorization": "[redacted]"}
    assert headers["Authorization"] == "Bearer sk-secret"  # a copy, the input is untouched


def test_writer_journals_then_replaces_atomically(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "run.jsonl"
    writer = CaptureWriter(
        target,
        route="chat",
        method="POST",
        url="http://127.0.0.1:1/v1/chat/completions",
        headers={"Authorization": "Bearer sk-live-123", "Accept": "text/event-stream"},
        body=b'{"model": "m", "stream": true}',
    )
    writer.response(200, {"content-type": "text/event-stream", "set-cookie": "a=b"}, 0.05)
    writer.chunk(0.1, b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n')
    # Journaled: the lines are on disk (in the temp file) before finalize, the target is absent.
    assert not target.exists()
    assert writer.temp_path.read_bytes().count(b"\n") == 3
    writer.chunk(0.2, b"data: [DONE]\n\n")
    assert writer.finalize(0.25, "complete") == target
    assert not writer.temp_path.exists()
    text = target.read_text()
    assert "sk-live-123" not in text and "a=b" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["format"] == FORMAT
    assert lines[0]["request"]["body"] == {"model": "m", "stream": True}
    assert lines[-1] == {"end": 0.25, "status": "complete"}

    capture = read_capture(target)
    assert (capture.route, capture.response_status, capture.end_status) == ("chat", 200, "complete")
    assert (
        capture.request is not None and capture.request["headers"]["Authorization"] == "[redacted]"
    )
    assert capture.content_type == "text/event-stream"
    assert [t for t, _ in capture.chunks] == [0.1, 0.2]
    assert capture.body.endswith(b"data: [DONE]\n\n")
    assert not capture.raw


def test_abort_leaves_nothing(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path / "x.jsonl", route="chat", method="POST", url="u")
    writer.abort()
    assert list(tmp_path.iterdir()) == []


def test_reader_accepts_raw_curl_output(tmp_path: Path) -> None:
    raw = b'data: {"a": 1}\n\ndata: [DONE]\n\n'
    capture = read_capture(raw)
    assert capture.raw and capture.chunks == [(0.0, raw)]
    path = tmp_path / "curl.sse"
    path.write_bytes(raw)
    assert read_capture(path).chunks == [(0.0, raw)]
    assert read_capture(b"").chunks == []


def test_reader_survives_damaged_lines() -> None:
    data = (
        json.dumps({"format": FORMAT, "route": "messages"}).encode()
        + b"\nnot json\n[1]\n"
        + b'{"t": 0.5, "b64": "@@@"}\n{"t": 0.6, "b64": "aGk="}\n{"weird": 1}\n'
    )
    capture = read_capture(data)
    assert capture.route == "messages"
    assert capture.chunks == [(0.6, b"hi")]
    assert len(capture.problems) == 4
