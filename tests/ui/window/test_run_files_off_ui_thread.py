"""A run's durable writes (the history index, the capture) never wait on the disk on the UI thread,
and a quit right after a run still leaves both files complete: the real window, the simulator."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from panel_helpers import say

from playground.runs.journal import read_journal
from playground.runs.writer import flush_shared


@pytest.fixture
def own_window(
    qloop: Any, sim: Any, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """A window whose history lives in this test's folder; closed by the test or afterwards."""
    from playground.ui.window.shell import MainWindow

    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path / "data"))
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.show()
    assert win.history is not None  # opened now: start-up's own index write is not the run's
    yield win
    if not win._closing:
        win._closing = True
        qloop.run(win.shutdown(), 20)
    win.close()
    win.deleteLater()


def _record_fsync(monkeypatch: pytest.MonkeyPatch, delay: float = 0.0) -> list[str]:
    """Every os.fsync from now on: the name of its calling thread (``delay``: a slow disk)."""
    calls: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(threading.current_thread().name)
        if delay:
            time.sleep(delay)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _assert_complete(history: Any, route: str) -> None:
    """The run is listed complete in the index on disk and its capture is whole and in place."""
    (summary,) = history.list_runs(route)
    assert [p.name for p in history.runs_dir.iterdir() if p.name.endswith(".part")] == []
    capture = read_journal(history.capture_path(summary.id))
    assert capture.end is not None and capture.end["status"] == "complete"
    assert capture.chunks and capture.request is not None
    index = json.loads(history.index_path.read_text(encoding="utf-8"))
    (entry,) = [r for r in index["runs"] if r["id"] == summary.id]
    assert entry["status"] == "complete" and entry["bytes"] == sum(
        len(d) for _t, d in capture.chunks
    )
    assert entry["preview"]


def test_a_runs_start_and_end_never_fsync_on_the_ui_thread(
    own_window: Any, qloop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _record_fsync(monkeypatch)
    panel = own_window.show_panel("chat")
    panel.set_pace("instant")
    for text in ("Hello there", "And once more"):
        assert say(qloop, panel, text) == "complete"
    assert flush_shared(10)
    ui = threading.main_thread().name
    # Two runs: each one's capture and at least one index write were made durable, elsewhere.
    assert len(calls) >= 4, calls
    assert ui not in calls, calls
    history = own_window.history
    assert len(history.list_runs("chat")) == 2
    for summary in history.list_runs("chat"):
        assert history.load_run(summary.id).end["status"] == "complete"


def test_a_quit_right_after_a_run_leaves_complete_files(
    own_window: Any, qloop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A slow disk: each fsync takes 0.5 s, so the run's writes are still queued when it ends.
    calls = _record_fsync(monkeypatch, delay=0.5)
    panel = own_window.show_panel("chat")
    panel.set_pace("instant")
    assert say(qloop, panel, "Hello there") == "complete"
    history = own_window.history
    assert len(history.list_runs("chat")) == 1
    assert history.writer.pending()  # the quit below comes before the disk is done
    # The app's quit path (ui/app.py's _amain ends with stop_all, then shutdown).
    own_window.stop_all()
    own_window._closing = True
    qloop.run(own_window.shutdown(), 20)
    assert not history.writer.pending() and calls
    _assert_complete(history, "chat")
    assert history.messages == [] and history.writer.errors == []
