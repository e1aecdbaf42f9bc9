"""The run history: journaled as it streams, newest first, reopened, crash- and corruption-safe."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.runs.history import HistoryError, RunHistory
from playground.runs.journal import CAPTURE_FORMAT, read_journal
from playground.runs.paths import data_dir
from playground.transport.client import stream_request
from playground.transport.errors import TransportError
from playground.transport.pipeline import TeeSink
from playground.transport.spec import RequestSpec

KEY = "sk-hist-SECRET-0a1b2c3d4e5f"


def record(
    history: RunHistory,
    route: str = "chat",
    chunks: tuple[bytes, ...] = (b"data: 1\n\n",),
    status: int = 200,
    end: bool = True,
    model: str = "m",
) -> str:
    rec = history.start_run(route, provider_id="custom")
    rec.on_request(
        "POST",
        "http://127.0.0.1:1/v1/chat/completions",
        {"Authorization": "Bearer [redacted]"},
        json.dumps({"model": model}).encode(),
    )
    rec.on_response(status, [("content-type", "text/event-stream")], 0.01)
    for i, data in enumerate(chunks):
        rec.on_chunk(0.02 + i * 0.01, data)
    if end:
        rec.on_end(0.5)
    else:
        _UNENDED.append(rec)
    return rec.run_id


# Runs left mid-stream on purpose (a program that died): their files are closed after the test,
# as the system would close a dead program's files.
_UNENDED: list[Any] = []


@pytest.fixture(autouse=True)
def _close_unended() -> Iterator[None]:
    yield
    while _UNENDED:
        _UNENDED.pop().close()


def test_data_dir_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path / "d"))
    assert data_dir() == tmp_path / "d"
    monkeypatch.delenv("PLAYGROUND_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "playground"
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path / "e"))
    assert RunHistory().root == tmp_path / "e" / "history"


def test_runs_listed_newest_first_per_route_and_reopened(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    first = record(history, "chat", (b"data: a\n\n",), model="m1")
    second = record(history, "chat", (b"data: b\n\n", b"data: c\n\n"), model="m2")
    other = record(history, "messages")
    assert [r.id for r in history.list_runs("chat")] == [second, first]
    assert [r.id for r in history.list_runs("messages")] == [other]
    assert len(history.list_runs()) == 3
    summary = history.list_runs("chat")[0]
    assert summary.model == "m2" and summary.http_status == 200 and summary.bytes == 18
    run = history.load_run(second)
    assert run.chunks == [(0.02, b"data: b\n\n"), (0.03, b"data: c\n\n")]
    assert run.response_status == 200 and run.content_type == "text/event-stream"
    assert run.request["body"] == {"model": "m2"} and run.end is not None
    # A fresh instance (the next start of the program) sees the same list.
    again = RunHistory(tmp_path)
    assert [r.id for r in again.list_runs("chat")] == [second, first]
    assert again.messages == []


def test_finish_sets_status_and_preview(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    rec = history.start_run("chat", status_source=lambda: "incomplete")
    rec.on_request("POST", "http://x/v1", {}, None)
    rec.on_end(0.1)
    assert history.list_runs()[0].status == "incomplete"
    rec.finish(preview="Hello\n  world " * 30)
    summary = RunHistory(tmp_path).list_runs()[0]
    assert summary.status == "incomplete" and summary.preview.startswith("Hello world Hello")
    assert len(summary.preview) == 120


def test_transport_error_marks_failed(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    rec = history.start_run("chat")
    rec.on_request("POST", "http://x/v1", {}, None)
    rec.on_transport_error(TransportError("dns", "The name x does not resolve."), 0.01)
    rec.on_end(0.02)
    summary = history.list_runs()[0]
    assert summary.status == "failed" and summary.error == "The name x does not resolve."
    assert history.load_run(summary.id).end["transport_error"]["kind"] == "dns"  # type: ignore[index]


def test_journaled_while_streaming_and_recovered_after_a_crash(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    run_id = record(history, chunks=(b"data: 1\n\n", b"data: 2\n\n"), end=False)
    # Mid-stream: everything received is already on disk, in the .part journal.
    part = history.capture_path(run_id).with_name(history.capture_path(run_id).name + ".part")
    assert part.exists() and not history.capture_path(run_id).exists()
    lines = part.read_text().splitlines()
    assert json.loads(lines[0])["format"] == CAPTURE_FORMAT
    assert [base64.b64decode(json.loads(x)["b64"]) for x in lines[2:]] == [
        b"data: 1\n\n",
        b"data: 2\n\n",
    ]
    assert history.list_runs()[0].status == "streaming"
    # The program dies here (no on_end); half a line was being written.
    with part.open("a") as f:
        f.write('{"t": 0.9, "b64": "ZGF0')
    restarted = RunHistory(tmp_path)
    assert any("recovered" in m for m in restarted.messages)
    summary = restarted.list_runs()[0]
    assert summary.id == run_id and summary.status == "truncated"
    run = restarted.load_run(run_id)
    assert [d for _t, d in run.chunks] == [b"data: 1\n\n", b"data: 2\n\n"] and run.end is None


def test_corrupt_index_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    run_id = record(history)
    history.index_path.write_text("{ this is not json")
    restarted = RunHistory(tmp_path)
    assert (tmp_path / "index.json.corrupt").read_text() == "{ this is not json"
    assert (
        len(restarted.messages) == 1 and "set aside as index.json.corrupt" in restarted.messages[0]
    )
    assert [r.id for r in restarted.list_runs()] == [run_id]  # rebuilt from the capture files
    assert json.loads(restarted.index_path.read_text())["runs"][0]["id"] == run_id
    # Garbage of the wrong shape is set aside too (numbered, the first is kept).
    restarted.index_path.write_text('{"format": "playground-history/1", "runs": 42}')
    third = RunHistory(tmp_path)
    assert (tmp_path / "index.json.1.corrupt").exists() and third.list_runs()[0].id == run_id


def test_corrupt_capture_is_set_aside(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    keep = record(history)
    broken = record(history)
    history.capture_path(broken).write_bytes(b"\x00\xffnot a capture\n{}\n")
    history.index_path.unlink()  # force a rescan, as after a lost index
    restarted = RunHistory(tmp_path)
    assert [r.id for r in restarted.list_runs()] == [keep]
    assert any("set aside" in m for m in restarted.messages)
    assert (
        history.capture_path(broken)
        .with_name(history.capture_path(broken).name + ".corrupt")
        .exists()
    )


def test_load_run_of_corrupt_file_raises_clear_error(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    run_id = record(history)
    history.capture_path(run_id).write_text("garbage\nmore garbage\n")
    with pytest.raises(HistoryError, match="cannot be reopened"):
        history.load_run(run_id)
    assert history.list_runs() == []
    with pytest.raises(HistoryError, match="no run"):
        history.load_run("nope")


def test_pruning_keeps_the_newest(tmp_path: Path) -> None:
    history = RunHistory(tmp_path, max_runs_per_route=3)
    ids = [record(history) for _ in range(5)]
    assert [r.id for r in history.list_runs("chat")] == ids[:1:-1]
    assert sorted(p.name for p in history.runs_dir.iterdir()) == sorted(
        f"{i}.capture.jsonl" for i in ids[2:]
    )


class BodySink:
    """The panel's side of a TeeSink, reduced to the bytes it was given."""

    def __init__(self) -> None:
        self.body = b""

    def on_request(self, *args: object) -> None:
        pass

    def on_response(self, *args: object) -> None:
        pass

    def on_chunk(self, t: float, data: bytes) -> None:
        self.body += data

    def on_transport_error(self, *args: object) -> None:
        raise AssertionError(args)

    def on_end(self, t: float) -> None:
        pass


def test_live_run_through_tee_sink_never_writes_the_key(tmp_path: Path) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        body = b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    history = RunHistory(tmp_path)

    async def main() -> BodySink:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            ui = BodySink()
            rec = history.start_run("chat", secrets=(KEY,))
            spec = RequestSpec(
                "custom",
                "POST",
                f"http://127.0.0.1:{port}/v1/chat/completions",
                {"Authorization": f"Bearer {KEY}", "x-api-key": KEY},
                {"model": "m", "stream": True, "note": f"pasted {KEY} by mistake"},
            )
            await stream_request(spec, TeeSink(ui, rec))
            return ui

    ui = asyncio.run(main())
    assert ui.body.endswith(b"data: [DONE]\n\n")
    run = history.load_run(history.list_runs()[0].id)
    assert b"".join(d for _t, d in run.chunks) == ui.body
    assert run.request["headers"]["Authorization"] == "Bearer [redacted]"
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 2
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert read_journal(history.capture_path(run.summary.id)).route == "chat"


def test_history_files_read_by_the_protocol_reader(tmp_path: Path) -> None:
    capture_mod = pytest.importorskip("playground.protocol.capture")
    history = RunHistory(tmp_path)
    run_id = record(history, chunks=(b"data: 1\n\n", b"data: [DONE]\n\n"))
    ours = history.load_run(run_id)
    theirs = capture_mod.read_capture(history.capture_path(run_id))
    assert theirs.problems == [] and not theirs.raw
    assert theirs.route == "chat" and theirs.request == ours.request
    assert theirs.chunks == ours.chunks and theirs.response_status == 200
    assert theirs.content_type == "text/event-stream" and theirs.end_t == 0.5


def test_an_unwritable_place_never_breaks_the_run(tmp_path: Path) -> None:
    from playground.runs.journal import CaptureJournal

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    journal = CaptureJournal(blocker / "run.capture.jsonl", "chat")
    journal.on_request("POST", "http://x/v1", {}, b"{}")
    journal.on_response(200, [], 0.1)
    journal.on_chunk(0.2, b"data: 1\n\n")
    journal.on_end(0.3)
    assert journal.write_error is not None and "could not be saved" in journal.write_error


def test_streaming_status_is_not_a_verdict(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    rec = history.start_run("chat", status_source=lambda: "streaming")
    rec.on_request("POST", "http://x/v1", {}, None)
    rec.on_response(200, [], 0.1)
    rec.on_end(0.2)
    assert history.list_runs()[0].status is None
    assert history.load_run(rec.run_id).end == {"end": 0.2, "status": None}
