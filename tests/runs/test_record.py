"""RunRecord: a run to a Capture and back, and to a capture file through the one writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.protocol.capture import read_capture
from playground.runs.record import RunRecord, write_capture

KEY = "sk-record-SECRET-9f8e7d"


def _run() -> RunRecord:
    return RunRecord(
        route="chat",
        method="POST",
        url="http://127.0.0.1:1/v1/chat/completions",
        headers={"Authorization": "Bearer [redacted]"},
        body=b'{"model": "m", "note": "' + KEY.encode() + b'"}',
        status=200,
        response_headers=[("content-type", "text/event-stream"), ("x-a", "1")],
        chunks=[(0.1, b'data: {"x": 1}\n\n'), (0.2, b"data: [DONE]\n\n")],
        started_at=1_700_000_000.0,
        t_headers=0.05,
        t_end=0.25,
    )


def test_a_run_becomes_a_capture_with_its_request_bytes_and_end() -> None:
    capture = _run().to_capture("complete")
    assert capture.route == "chat" and capture.response_status == 200
    assert capture.request is not None and capture.request["body"]["model"] == "m"
    assert capture.chunks == _run().chunks
    assert capture.end_t == 0.25 and capture.end_status == "complete"
    assert capture.response_headers == {"content-type": "text/event-stream", "x-a": "1"}


def test_a_written_run_reads_back_as_the_same_run_with_the_key_scrubbed(tmp_path: Path) -> None:
    path = write_capture(_run(), tmp_path / "r.capture.jsonl", "complete", secrets=(KEY,))
    capture = read_capture(path)
    assert KEY not in path.read_text()
    again = RunRecord.from_capture(capture)
    assert again.replay and again.route == "chat" and again.method == "POST"
    assert again.url == _run().url and again.status == 200
    assert again.response_headers == _run().response_headers
    assert again.chunks == _run().chunks
    assert again.t_headers == 0.05 and again.t_end == 0.25
    assert again.t_first_byte == 0.1 and again.t_last_byte == 0.2
    assert again.body is not None and b"[redacted]" in again.body


def test_an_empty_record_is_not_saved(tmp_path: Path) -> None:
    assert not RunRecord().has_run()
    with pytest.raises(ValueError, match="no run"):
        write_capture(RunRecord(), tmp_path / "x.jsonl")
