"""The playground-capture/1 file: journaled writer, atomic finalize, reader, raw curl -N import."""

from __future__ import annotations

import base64
import json
import tracemalloc
from pathlib import Path

from capture_helpers import RecordedCapture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.protocol.capture import FORMAT, PIECE, read_capture, redact_headers


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
    writer = RecordedCapture(
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
    assert writer.part_path.read_bytes().count(b"\n") == 3
    writer.chunk(0.2, b"data: [DONE]\n\n")
    assert writer.finalize(0.25, "complete") == target
    assert not writer.part_path.exists()
    text = target.read_text()
    assert "sk-live-123" not in text and "a=b" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["format"] == FORMAT
    assert lines[0]["request"]["body"] == {"model": "m", "stream": True}
    assert lines[-1] == {"end": 0.25, "status": "complete"}

    capture = read_capture(target)
    assert (capture.route, capture.response_status, capture.end_status) == ("chat", 200, "complete")
    assert (
        capture.request is not None
        and capture.request["headers"]["Authorization"] == "Bearer [redacted]"
    )
    assert capture.content_type == "text/event-stream"
    assert [t for t, _ in capture.chunks] == [0.1, 0.2]
    assert capture.body.endswith(b"data: [DONE]\n\n")
    assert not capture.raw


def test_reader_accepts_raw_curl_output(tmp_path: Path) -> None:
    raw = b'data: {"a": 1}\n\ndata: [DONE]\n\n'
    capture = read_capture(raw)
    assert capture.raw and capture.chunks == [(0.0, raw)]
    path = tmp_path / "curl.sse"
    path.write_bytes(raw)
    assert read_capture(path).chunks == [(0.0, raw)]
    assert read_capture(b"").chunks == []


def test_a_big_chunk_is_read_back_in_pieces_each_ending_after_a_blank_line() -> None:
    event = b'data: {"a": "' + b"x" * 1000 + b'"}\n\n'
    raw = event * 300  # 300 KB: more than a socket's read
    capture = read_capture(raw)
    assert b"".join(chunk for _, chunk in capture.chunks) == raw == capture.body
    assert {t for t, _ in capture.chunks} == {0.0}
    assert len(capture.chunks) > 1 and all(len(c) <= PIECE for _, c in capture.chunks)
    assert all(chunk.endswith(b"\n\n") for _, chunk in capture.chunks)
    # A record of a capture file is cut the same way, at its own time.
    record = {"t": 0.25, "b64": base64.b64encode(raw).decode()}
    head = {"format": FORMAT, "route": "chat"}
    journal = (json.dumps(head) + "\n" + json.dumps(record) + "\n").encode()
    for strict in (False, True):
        chunks = read_capture(journal, strict=strict).chunks
        assert chunks == [(0.25, chunk) for _, chunk in capture.chunks]
    line = b"data: " + b"x" * (3 * PIECE)  # no blank line to cut after: cut at the size
    assert [len(c) for _, c in read_capture(line).chunks] == [PIECE] * 3 + [6]


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


def test_strict_reader_tolerates_only_a_cut_last_line() -> None:
    from playground.protocol.capture import CaptureError

    head = json.dumps({"format": FORMAT, "route": "chat", "request": {"url": "u"}}).encode()
    chunk = b'{"t": 0.25, "b64": "aGk="}'
    cut = read_capture(head + b"\n" + chunk + b'\n{"t": 0.3, "b6', strict=True)
    assert cut.chunks == [(0.25, b"hi")] and cut.end is None and cut.problems == []
    for bad, message in (
        (head + b"\nnot json\n" + chunk + b"\n", "line 2 is not a capture record"),
        (head + b'\n{"t": 1, "b64": 5}\n' + chunk + b"\n", "a record is malformed"),
        (b'{"format": "other"}\n' + chunk + b"\n", f"is not a {FORMAT} file"),
        (b"", f"is not a {FORMAT} file"),
    ):
        try:
            read_capture(bad, strict=True)
        except CaptureError as exc:
            assert message in str(exc) and b"aGk" not in str(exc).encode()
        else:
            raise AssertionError(f"strict read accepted {bad!r}")
    # the lenient reader takes the same damaged file and lists the problem instead
    assert read_capture(head + b"\nnot json\n" + chunk + b"\n").problems == ["line 2: not JSON"]


def test_reader_keeps_header_pairs_response_time_and_closing_record() -> None:
    lines = [
        {"format": FORMAT, "route": "chat", "request": {"url": "u"}, "started_at": "now"},
        {
            "response": {
                "status": 200,
                "headers": [["Set-Cookie", "a"], ["set-cookie", "b"]],
                "t": 0.1,
            }
        },
        {"t": 0.2, "b64": "aGk="},
        {"end": 0.3, "status": "complete", "transport_error": None},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    for strict in (False, True):
        capture = read_capture(data, strict=strict)
        assert capture.header_pairs == [("Set-Cookie", "a"), ("set-cookie", "b")]
        assert capture.header("SET-COOKIE") == "a"  # the first when repeated
        assert (capture.response_at, capture.end_t, capture.end_status) == (0.1, 0.3, "complete")
        assert capture.end == lines[-1]


def test_line_encoding_survives_integers_beyond_64_bits() -> None:
    from playground.protocol.capture import chunk_record, encode_line, header_record

    line = encode_line(header_record("chat", {"body": {"seed": 2**70}}, "now"))
    assert line.endswith(b"\n") and json.loads(line)["request"]["body"]["seed"] == 2**70
    assert json.loads(encode_line(chunk_record(0.5, b"\xff"))) == {"t": 0.5, "b64": "/w=="}


_STRETCHES = st.sampled_from([b"x", b"\n", b"\n\n", b"data: a\n\n", b"\r\n", b"y" * 4000])


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_STRETCHES, st.integers(1, 40)), max_size=12))
def test_raw_sse_read_from_a_file_is_cut_as_the_same_bytes_would_be(
    tmp_path: Path, stretches: list[tuple[bytes, int]]
) -> None:
    """A file of raw SSE is read a piece at a time (never whole and cut beside it): the pieces
    are exactly those of its bytes read whole, and joined they are every byte of it."""
    raw = b"".join(stretch * count for stretch, count in stretches)
    raw = raw * (1 + 3 * PIECE // max(1, len(raw))) if raw and len(raw) < PIECE else raw
    path = tmp_path / "stream.sse"
    path.write_bytes(raw)
    capture = read_capture(path)
    assert capture.raw and capture.chunks == read_capture(raw).chunks
    assert capture.body == raw


def test_an_endless_line_is_read_from_its_file_without_a_second_copy(tmp_path: Path) -> None:
    path = tmp_path / "line.sse"
    path.write_bytes(b"data: " + b"x" * (8 * 1024 * 1024))
    tracemalloc.start()
    try:
        capture = read_capture(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert capture.body == path.read_bytes()
    assert peak < 8 * 1024 * 1024 * 1.2  # the pieces, and one piece being read
