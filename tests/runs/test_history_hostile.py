"""A history index or folder damaged on disk never turns History off: set aside, runs kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playground.runs.history import RunHistory, RunRecorder


def _record(
    history: RunHistory, chunks: tuple[bytes, ...] = (b"data: 1\n\n",), end: bool = True
) -> RunRecorder:
    rec = history.start_run("chat", provider_id="custom")
    rec.on_request("POST", "http://127.0.0.1:1/v1/chat/completions", {}, b'{"model": "m"}')
    rec.on_response(200, [("content-type", "text/event-stream")], 0.01)
    for i, data in enumerate(chunks):
        rec.on_chunk(0.02 + i * 0.01, data)
    if end:
        rec.on_end(0.5)
    return rec


def _index(history: RunHistory) -> dict[str, Any]:
    history.writer.flush()
    data: dict[str, Any] = json.loads(history.index_path.read_text())
    return data


def _rewrite_first_record(tmp_path: Path, **fields: object) -> None:
    path = tmp_path / "index.json"
    data = json.loads(path.read_text())
    data["runs"][0].update(fields)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "fields",
    [
        {"started_at": 5},
        {"started_at": None},
        {"http_status": "x"},
        {"http_status": True},
        {"bytes": -3},
        {"bytes": "many"},
        {"duration": "slow"},
        {"model": ["m"]},
        {"preview": {"a": 1}},
        {"status": 7},
    ],
    ids=repr,
)
def test_a_record_of_the_wrong_type_is_skipped_and_rebuilt_from_its_capture(
    tmp_path: Path, fields: dict[str, object]
) -> None:
    first = _record(RunHistory(tmp_path)).run_id
    second = _record(RunHistory(tmp_path)).run_id
    _rewrite_first_record(tmp_path, **fields)
    again = RunHistory(tmp_path)
    # The other record is read as it was; the bad one is listed again from its capture file.
    assert sorted(r.id for r in again.list_runs()) == sorted([first, second])
    for run in again.list_runs():
        assert isinstance(run.started_at, str) and isinstance(run.bytes, int)
        assert run.http_status is None or isinstance(run.http_status, int)
    assert any("wrong type" in m for m in again.messages)
    assert not list(tmp_path.glob("*.corrupt"))  # one bad record does not set aside the index
    # New work is saved.
    third = _record(again).run_id
    assert third in {r["id"] for r in _index(again)["runs"]}


def test_a_record_without_its_capture_is_dropped_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir(parents=True)
    (tmp_path / "index.json").write_text(
        json.dumps(
            {
                "format": "playground-history/1",
                "runs": [{"id": "a", "route": "chat", "started_at": None}],
            }
        )
    )
    history = RunHistory(tmp_path)
    assert history.list_runs() == []
    assert any("wrong type" in m for m in history.messages)


@pytest.mark.parametrize(
    "content",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"format": "playground-history/1", "runs": ' + "[" * 5000 + "]" * 5000 + "}",
        "\x00\xff garbage",
        '"just a string"',
    ],
    ids=["deep", "deep-runs", "garbage", "string"],
)
def test_an_unreadable_index_is_set_aside_and_new_runs_are_saved(
    tmp_path: Path, content: str
) -> None:
    kept = _record(RunHistory(tmp_path)).run_id
    (tmp_path / "index.json").write_text(content, encoding="utf-8", errors="surrogateescape")
    history = RunHistory(tmp_path)
    assert (tmp_path / "index.json.corrupt").exists()
    assert len(history.messages) == 1 and "set aside as index.json.corrupt" in history.messages[0]
    assert [r.id for r in history.list_runs()] == [kept]
    new = _record(history).run_id
    assert {r["id"] for r in _index(history)["runs"]} == {kept, new}


def test_a_folder_in_the_index_place_is_set_aside(tmp_path: Path) -> None:
    kept = _record(RunHistory(tmp_path)).run_id
    (tmp_path / "index.json").unlink()
    (tmp_path / "index.json").mkdir()
    history = RunHistory(tmp_path)
    assert (tmp_path / "index.json.corrupt").is_dir()
    assert history.messages and "set aside" in history.messages[0]
    new = _record(history).run_id
    assert {r["id"] for r in _index(history)["runs"]} == {kept, new}


def test_a_file_in_the_runs_folder_place_is_set_aside(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "runs").write_text("not a folder")
    history = RunHistory(tmp_path)
    assert (tmp_path / "runs.corrupt").read_text() == "not a folder"
    assert any("set aside as runs.corrupt" in m for m in history.messages)
    run_id = _record(history).run_id
    assert history.load_run(run_id).chunks


def test_a_run_recovered_after_a_crash_shows_its_real_byte_count(tmp_path: Path) -> None:
    history = RunHistory(tmp_path)
    rec = _record(history, chunks=(b"data: 1\n\n", b"data: 22\n\n"), end=False)
    assert history.list_runs()[0].bytes == 0  # the index was written as the run began
    rec._file.close()  # type: ignore[union-attr]  # as the system closes a dead program's files
    restarted = RunHistory(tmp_path)
    summary = restarted.list_runs()[0]
    assert summary.status == "truncated" and summary.bytes == 19
    assert summary.duration == 0.03
