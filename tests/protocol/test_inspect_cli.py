"""`playground inspect` as a user runs it: a subprocess, the DESIGN.md contract exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from capture_helpers import RecordedCapture
from protocol_helpers import CAPTURES, all_captures

ROOT = Path(__file__).resolve().parents[2]
KEYS = {
    "route",
    "status",
    "finish",
    "text",
    "reasoning",
    "tool_calls",
    "images",
    "audio",
    "usage",
    "error",
    "events",
    "comments",
    "findings",
}


def _run(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONIOENCODING="ascii")  # output must not depend on the locale
    return subprocess.run(
        [sys.executable, "-m", "playground", "inspect", *args],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        env=env,
    )


def _json(*args: str) -> dict[str, Any]:
    result = _run(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_midstream_error_capture(captures_dir: Path) -> None:
    out = _json(str(captures_dir / "chat" / "openrouter-minimax-midstream-error.sse"))
    assert set(out) >= KEYS
    assert out["status"] == "failed"
    assert out["error"] == "Token limit reached"
    assert out["reasoning"] == "We need to respond to a greeting. The user"
    assert out["comments"] == 17
    assert out["route"] == "chat" and out["finish"] == "length"
    for finding in out["findings"]:
        assert set(finding) == {"severity", "code", "message", "event"}


def test_route_flag_and_tool_calls(captures_dir: Path) -> None:
    path = str(captures_dir / "responses" / "openai-gpt4omini-function-call.sse")
    out = _json(path, "--route", "responses")
    assert out["tool_calls"][0]["id"] == "call_0UFGPwrziw5rbinYp7rthrTb"
    assert out["finish"] == "response.completed"


@pytest.mark.parametrize("path", all_captures(CAPTURES)[::4], ids=lambda p: p.stem)
def test_output_does_not_change_with_chunk_size(path: Path) -> None:
    whole = _run(str(path), "--json", "--events")
    pieces = _run(str(path), "--json", "--events", "--chunk-size", "5")
    assert whole.returncode == pieces.returncode == 0
    assert whole.stdout == pieces.stdout


def test_events_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.sse"
    path.write_bytes(b": hi\n\nid: 7\nretry: 100\nevent: x\ndata: 1\n\ndata: 2\n\ndata: cut")
    result = _run(str(path), "--events")
    assert result.returncode == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0] == {"comment": "hi"}
    assert lines[1] == {"event": "x", "data": "1", "id": "7", "retry": 100}
    assert lines[2] == {"event": "message", "data": "2", "id": "7", "retry": None}
    assert set(lines[3]) == {"unterminated"}
    assert lines[3]["unterminated"]["raw"] == "data: cut"


def test_human_summary_is_readable(captures_dir: Path) -> None:
    result = _run(str(captures_dir / "chat" / "openai-gpt4o-parallel-tool-calls.sse"))
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "route:      chat" in text and "status:     complete" in text
    assert "GetWeatherArgs" in text and "get_stock_price" in text
    assert "usage:" in text and "findings" in text


def test_reads_the_project_capture_format(tmp_path: Path) -> None:
    writer = RecordedCapture(tmp_path / "c.jsonl", route="chat", method="POST", url="u", headers={})
    writer.response(200, {"Content-Type": "text/event-stream"}, 0.0)
    writer.chunk(
        0.1, b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n'
    )
    writer.finalize(0.2, "complete")
    out = _json(str(tmp_path / "c.jsonl"))
    assert (out["text"], out["status"]) == ("Hi", "complete")

    failed = RecordedCapture(tmp_path / "e.jsonl", route="chat", method="POST", url="u")
    failed.response(429, {"Retry-After": "3"}, 0.0)
    failed.chunk(0.1, b'{"error":{"code":429,"message":"Slow down"}}')
    failed.finalize(0.1, "failed")
    out = _json(str(tmp_path / "e.jsonl"))
    assert (out["status"], out["error"]) == ("failed", "Slow down")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00" * 1000,
        bytes(range(256)) * 50,
        b"data: \xff\xfe\xc3\n\n",
        b"data: " + b"x" * 6_000_000 + b"\n\n",
    ],
    ids=["empty", "nul", "garbage", "bad-utf8", "6mb-line"],
)
def test_hostile_files_are_read(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "f.sse"
    path.write_bytes(content)
    for extra in ([], ["--json"], ["--events", "--chunk-size", "4096"]):
        result = _run(str(path), *extra)
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["/nonexistent/file.sse"],
        ["."],
        [],
        ["x", "--route", "bogus"],
        ["x", "--chunk-size", "0"],
        ["x", "--chunk-size", "a"],
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    result = _run(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    assert len(result.stderr.decode().strip().splitlines()) == 1
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("tail", [b"", b"\n"], ids=["bare", "newline"])
def test_raw_error_envelope_is_a_body_line_and_the_error(tmp_path: Path, tail: bytes) -> None:
    # Not SSE at all: by the WHATWG rules no event is dispatched, so no {"event": ...} line.
    path = tmp_path / "error.json"
    envelope = {"error": {"message": "model not found", "code": 404}}
    path.write_bytes(json.dumps(envelope).encode() + tail)
    result = _run(str(path), "--events")
    assert result.returncode == 0
    assert [json.loads(line) for line in result.stdout.splitlines()] == [{"body": envelope}]
    out = _json(str(path))
    assert (out["status"], out["error"]) == ("failed", "model not found")
    assert [(f["severity"], f["code"]) for f in out["findings"]] == [("error", "error_body")]


def test_capture_of_an_http_error_is_a_body_line_and_http_error_only(tmp_path: Path) -> None:
    writer = RecordedCapture(tmp_path / "e.jsonl", route="chat", method="POST", url="u")
    writer.response(503, {"Content-Type": "application/json"}, 0.0)
    writer.chunk(0.1, b'{"error":{"code":503,"message":"Overloaded"}}')
    writer.finalize(0.1, "failed")
    result = _run(str(tmp_path / "e.jsonl"), "--events")
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"body": {"error": {"code": 503, "message": "Overloaded"}}}
    ]
    out = _json(str(tmp_path / "e.jsonl"))
    assert out["status"] == "failed"
    assert [f["code"] for f in out["findings"]] == ["http_error"]


def test_a_capture_carries_its_request_into_the_checks(tmp_path: Path) -> None:
    stream = (
        b'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    asked = {"model": "m", "stream": True, "stream_options": {"include_usage": True}}
    writer = RecordedCapture(
        tmp_path / "c.jsonl", route="chat", method="POST", url="u", headers={}, body=asked
    )
    writer.response(200, {"Content-Type": "text/event-stream"}, 0.0)
    writer.chunk(0.1, stream)
    writer.finalize(0.2, "complete")
    out = _json(str(tmp_path / "c.jsonl"))
    assert out["status"] == "complete"
    assert [(f["severity"], f["code"]) for f in out["findings"]] == [("warning", "no_usage")]
    # The same bytes as raw SSE carry no request: no request-aware check runs.
    (tmp_path / "raw.sse").write_bytes(stream)
    assert _json(str(tmp_path / "raw.sse"))["findings"] == []
