"""The run files' writer: jobs in order on its own thread, the index's last write wins, failures
said (in the history's messages, the journal's write_error or the writer's errors), flush and
close lose nothing."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from playground.runs.history import RunHistory
from playground.runs.journal import CaptureJournal, read_journal
from playground.runs.writer import FileWriter


def test_jobs_run_in_order_off_the_caller_and_a_keyed_job_replaces_a_queued_one() -> None:
    writer = FileWriter()
    gate = threading.Event()
    done: list[str] = []
    threads: set[str] = set()

    def job(name: str) -> None:
        threads.add(threading.current_thread().name)
        done.append(name)

    def hold() -> None:
        gate.wait()

    writer.submit(hold)  # holds the thread so the next ones stay queued
    writer.submit(lambda: job("a"))
    writer.submit(lambda: job("index 1"), key="index")
    writer.submit(lambda: job("b"))
    writer.submit(lambda: job("index 2"), key="index")
    assert writer.pending() and done == []
    gate.set()
    assert writer.flush(5)
    assert done == ["a", "b", "index 2"] and threads == {"run-files"}
    assert writer.close(5) and not writer.pending()
    writer.submit(lambda: job("after close"))  # inline: nothing is lost after the close
    assert done[-1] == "after close" and threading.current_thread().name in threads


def test_a_job_that_raises_is_said_not_lost() -> None:
    writer = FileWriter()

    def broken() -> None:
        raise ValueError("no such thing")

    writer.submit(broken)
    writer.submit(lambda: None)
    assert writer.flush(5)
    assert writer.errors == ["A run file could not be written (ValueError: no such thing)."]
    writer.close(5)


def test_history_with_a_writer_fsyncs_on_its_thread_and_reads_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = FileWriter()
    history = RunHistory(tmp_path, writer=writer)
    callers: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        callers.append(threading.current_thread().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    rec = history.start_run("chat")
    rec.on_request("POST", "http://127.0.0.1:1/v1", {}, b'{"model": "m"}')
    rec.on_response(200, [("content-type", "text/event-stream")], 0.01)
    rec.on_chunk(0.02, b"data: 1\n\n")
    rec.on_end(0.5)
    rec.finish("complete", preview="one")
    run = history.load_run(rec.run_id)  # waits for the writer: the file is in place, whole
    assert run.end == {"end": 0.5, "status": None} and run.path == history.capture_path(rec.run_id)
    assert callers and set(callers) == {"run-files"}
    index = json.loads(history.index_path.read_text())
    assert index["runs"][0]["status"] == "complete" and index["runs"][0]["preview"] == "one"
    writer.close(5)


def test_failures_on_the_writer_are_said_as_before(tmp_path: Path) -> None:
    writer = FileWriter()
    history = RunHistory(tmp_path / "h", writer=writer)
    history.index_path.unlink()
    history.index_path.mkdir()  # something in the index's place: its rename fails
    rec = history.start_run("chat")
    rec.on_request("POST", "http://x/v1", {}, None)
    rec.on_end(0.1)
    assert writer.flush(5)
    assert history.messages == ["The run history could not be saved (Is a directory)."]
    journal = CaptureJournal(tmp_path / "run.capture.jsonl", "chat", writer=writer)
    journal.on_request("POST", "http://x/v1", {}, b"{}")
    journal.part_path.unlink()  # the rename at the end fails, on the writer's thread
    journal.on_end(0.3)
    assert writer.flush(5)
    assert journal.write_error is not None and "could not be saved" in journal.write_error
    assert writer.errors == []
    writer.close(5)
    assert not journal.path.exists()
    with pytest.raises(Exception, match="cannot be read"):
        read_journal(journal.path)
