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


def test_with_a_writer_every_line_is_encoded_and_written_on_its_thread_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import playground.runs.journal as journal_module
    from playground.protocol.capture import encode_line
    from playground.runs.writer import FileWriter

    writer = FileWriter(name="test-run-files")
    threads: list[str] = []
    real_encode = encode_line  # the journal's own (it imports it from the capture module)

    def encode(record: dict[str, object]) -> bytes:
        threads.append(threading.current_thread().name)
        return real_encode(record)

    monkeypatch.setattr(journal_module, "encode_line", encode)
    path = tmp_path / "run.capture.jsonl"
    journal = CaptureJournal(path, "chat", status_source=lambda: "complete", writer=writer)
    journal.on_request("POST", "http://127.0.0.1/v1", {}, b"{}")
    journal.on_response(200, [("content-type", "text/event-stream")], 0.1)
    for i in range(200):
        journal.on_chunk(0.2 + i * 1e-3, b"data: %d\n\n" % i)
    journal.on_end(0.5)
    assert writer.flush(10)
    assert threads and set(threads) == {"test-run-files"}  # none on the caller's thread
    run = read_journal(path)
    assert [data for _t, data in run.chunks] == [b"data: %d\n\n" % i for i in range(200)]
    assert run.end == {"end": 0.5, "status": "complete"} and journal.write_error is None
    writer.close(10)


def test_a_line_that_cannot_be_written_is_said_and_the_run_goes_on(tmp_path: Path) -> None:
    import errno

    from playground.runs.writer import FileWriter

    writer = FileWriter(name="test-run-files")
    path = tmp_path / "run.capture.jsonl"
    journal = CaptureJournal(path, "chat", writer=writer)
    journal.on_request("POST", "http://127.0.0.1/v1", {}, None)
    assert writer.flush(10)
    file = journal._file
    assert file is not None

    def full(_data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    file.write = full  # type: ignore[method-assign,assignment]  # the disk fills up mid-run
    journal.on_chunk(0.1, b"data: 1\n\n")
    journal.on_chunk(0.2, b"data: 2\n\n")  # queued before the first failed: skipped, not raised
    journal.on_end(0.3)
    assert writer.flush(10) and writer.errors == []
    assert journal.write_error == "The run could not be saved (No space left on device)."
    assert not path.exists() and journal.part_path.exists()  # never renamed as if whole
    writer.close(10)
