"""The bug-report zip: redacted request, capture, findings, timing and versions; never the key."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from capture_helpers import RecordedCapture

from playground.runs.bundle import make_bundle
from playground.runs.journal import CaptureJournal, read_journal

KEY = "sk-bundle-SECRET-1234abcd5678"


def _capture(
    path: Path,
    chunks: list[tuple[float, bytes]],
    status: int = 200,
    ctype: str = "text/event-stream",
    route: str = "chat",
) -> Path:
    journal = CaptureJournal(path, route, secrets=(KEY,))
    journal.on_request(
        "POST",
        "https://api.vultrinference.com/v1/chat/completions",
        {"Authorization": "Bearer [redacted]", "Content-Type": "application/json"},
        json.dumps({"model": "m", "stream": True, "note": KEY}).encode(),
    )
    journal.on_response(status, [("Content-Type", ctype), ("Set-Cookie", "a=b")], 0.05)
    for t, data in chunks:
        journal.on_chunk(t, data)
    journal.on_end(chunks[-1][0] + 0.01 if chunks else 0.06)
    return path


CHAT = [
    (0.10, b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'),
    (0.20, b'data: {"choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\n'),
    (
        0.30,
        b'data: {"choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"stop"}]}\n\n',
    ),
    (0.35, b"data: {not json}\n\n"),
    (
        0.40,
        b'data: {"choices":[],"usage":'
        b'{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n',
    ),
    (0.45, b"data: [DONE]\n\n"),
]


def _zip(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def test_bundle_holds_everything_and_no_key(tmp_path: Path) -> None:
    capture = _capture(tmp_path / "run.capture.jsonl", CHAT)
    # Even a capture tampered with by hand (a raw key in its header) is cleaned in the bundle.
    lines = capture.read_text().splitlines()
    head = json.loads(lines[0])
    head["request"]["headers"]["Authorization"] = f"Bearer {KEY}"
    capture.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")

    out = make_bundle(capture, tmp_path / "out" / "report.zip", notes="it broke", secrets=(KEY,))
    files = _zip(out)
    assert set(files) == {
        "README.txt",
        "request.json",
        "capture.jsonl",
        "result.json",
        "findings.json",
        "timing.json",
        "versions.json",
        "run.json",
    }
    for name, text in files.items():
        assert KEY not in text, name
    request = json.loads(files["request.json"])
    assert request["headers"]["Authorization"] == "Bearer [redacted]"
    assert request["url"] == "https://api.vultrinference.com/v1/chat/completions"
    result = json.loads(files["result.json"])
    assert result["status"] == "complete" and result["text"] == "Hello world"
    findings = json.loads(files["findings.json"])
    assert findings and all({"severity", "code", "message"} <= set(f) for f in findings)
    timing = json.loads(files["timing.json"])
    assert timing["transport"]["t_first_byte"] == 0.1 and timing["transport"]["chunks"] == 6
    versions = json.loads(files["versions.json"])
    assert versions["python"].count(".") == 2 and "httpx" in versions["packages"]
    run = json.loads(files["run.json"])
    assert run["notes"] == "it broke" and run["response_status"] == 200
    # The bundled capture is itself a readable capture with the same bytes.
    (tmp_path / "again.jsonl").write_text(files["capture.jsonl"])
    assert read_journal(tmp_path / "again.jsonl").chunks == read_journal(capture).chunks
    assert not list((tmp_path / "out").glob("*.part"))


def test_bundle_of_an_http_error(tmp_path: Path) -> None:
    body = b'{"error":{"message":"Rate limit exceeded","code":429}}'
    capture = _capture(tmp_path / "e.capture.jsonl", [(0.06, body)], 429, "application/json")
    files = _zip(make_bundle(capture, tmp_path / "e.zip"))
    result = json.loads(files["result.json"])
    assert result["status"] == "failed" and result["http_status"] == 429
    assert "Rate limit exceeded" in result["error"]["message"]


def _chat_writer(
    path: Path, headers: dict[str, str], chunks: list[tuple[float, bytes]]
) -> RecordedCapture:
    """A chat capture written by the protocol's own writer: its 200 head, then ``chunks``."""
    writer = RecordedCapture(
        path,
        route="chat",
        method="POST",
        url="http://127.0.0.1:1/v1/chat/completions",
        headers=headers,
        body=b'{"model": "m"}',
    )
    writer.response(200, {"content-type": "text/event-stream"}, 0.05)
    for t, data in chunks:
        writer.chunk(t, data)
    return writer


def test_bundle_of_a_protocol_writer_capture(tmp_path: Path) -> None:
    writer = _chat_writer(tmp_path / "w.jsonl", {"Authorization": f"Bearer {KEY}"}, CHAT)
    path = writer.finalize(0.5, "complete")
    files = _zip(make_bundle(path, tmp_path / "w.zip", secrets=(KEY,)))
    assert json.loads(files["result.json"])["text"] == "Hello world"
    assert all(KEY not in text for text in files.values())


def test_bundle_of_a_run_the_user_stopped_says_cancelled(tmp_path: Path) -> None:
    writer = _chat_writer(tmp_path / "c.jsonl", {}, CHAT[:2])
    files = _zip(make_bundle(writer.finalize(0.25, "cancelled"), tmp_path / "c.zip"))
    result = json.loads(files["result.json"])
    assert result["status"] == "cancelled" and result["text"] == "Hello"
    # Stopped by the user: no "no terminator" finding for the bytes it did not wait for.
    assert "no_terminator" not in {f["code"] for f in json.loads(files["findings.json"])}
