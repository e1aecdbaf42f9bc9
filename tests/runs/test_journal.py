"""CaptureJournal writes the protocol's capture format; read_journal is the strict read of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.protocol.capture import Capture, CaptureError, read_capture
from playground.runs.journal import CaptureJournal, JournalError, JournalRun, read_journal

KEY = "sk-test-journal-0123456789"


def _journal(path: Path) -> CaptureJournal:
    journal = CaptureJournal(path, "chat", secrets=(KEY,), status_source=lambda: "complete")
    journal.on_request("POST", "http://127.0.0.1/v1", {"Authorization": "Bearer x"}, b'{"a": 1}')
    journal.on_response(
        200, [("content-type", "text/event-stream"), ("x-a", "1"), ("x-a", "2")], 0.1
    )
    journal.on_chunk(0.2, b"data: 1\n\n")
    return journal


def test_journal_file_reads_the_same_leniently_and_strictly(tmp_path: Path) -> None:
    path = tmp_path / "run.capture.jsonl"
    journal = _journal(path)
    assert journal.part_path.exists() and not path.exists()  # journaled into .part until the end
    journal.on_end(0.3)
    assert path.exists() and not journal.part_path.exists()
    strict, lenient = read_journal(path), read_capture(path)
    assert JournalRun is Capture and isinstance(strict, Capture)
    for run in (strict, lenient):
        assert (run.route, run.response_status, run.response_at) == ("chat", 200, 0.1)
        assert run.header_pairs == [
            ("content-type", "text/event-stream"),
            ("x-a", "1"),
            ("x-a", "2"),
        ]
        assert run.content_type == "text/event-stream" and run.problems == []
        assert run.end == {"end": 0.3, "status": "complete"}
        assert run.request is not None and run.request["body"] == {"a": 1}
    assert strict.chunks == lenient.chunks == [(0.2, b"data: 1\n\n")]


def test_a_crash_mid_line_is_tolerated_other_damage_raises(tmp_path: Path) -> None:
    path = tmp_path / "run.capture.jsonl"
    journal = _journal(path)
    journal._file.write(b'{"t": 0.25, "b6')  # type: ignore[union-attr]  # the program died here
    journal._file.flush()  # type: ignore[union-attr]
    run = read_journal(journal.part_path)
    assert run.end is None and [d for _t, d in run.chunks] == [b"data: 1\n\n"]
    journal._file.write(b"\n{}\n")  # type: ignore[union-attr]  # the cut line is no longer last
    journal._file.flush()  # type: ignore[union-attr]
    with pytest.raises(JournalError, match="line 4 is not a capture record") as info:
        read_journal(journal.part_path)
    assert isinstance(info.value, CaptureError) and KEY not in str(info.value)
    with pytest.raises(JournalError, match="cannot be read"):
        read_journal(tmp_path / "missing.jsonl")
    journal.close()
