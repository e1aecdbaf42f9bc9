"""The headless contract's layout side: --size screenshots, --dump-during, status_line, layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PLAYGROUND_SETTINGS"] = str(tmp / "settings.ini")
    env["PLAYGROUND_DATA_DIR"] = str(tmp / "data")
    proc = subprocess.run(
        [sys.executable, "-m", "playground", *args, "--exit-when-done"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.mark.parametrize("size", [(1024, 700), (1280, 720), (1920, 1080)])
def test_size_gives_a_screenshot_of_exactly_that_size(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    from PySide6.QtGui import QImage

    shot, dump = tmp_path / "shot.png", tmp_path / "dump.json"
    _run(
        tmp_path,
        "--route",
        "chat",
        "--prompt",
        "Write a short list",
        "--pace",
        "instant",
        "--size",
        f"{size[0]}x{size[1]}",
        "--screenshot",
        str(shot),
        "--dump-state",
        str(dump),
    )
    image = QImage(str(shot))
    assert (image.width(), image.height()) == size
    state = json.loads(dump.read_text())
    assert state["layout"]["overlaps"] == []
    assert state["layout"]["min_width"] <= 960 and state["layout"]["min_height"] <= 600
    assert state["status_line"].startswith("complete · HTTP 200 · ")


def test_dump_during_is_written_while_the_stream_runs(tmp_path: Path) -> None:
    during, end = tmp_path / "during.json", tmp_path / "end.json"
    _run(
        tmp_path,
        "--route",
        "chat",
        "--prompt",
        "Tell me about streaming",
        "--pace",
        "20",
        "--dump-during",
        f"300:{during}",
        "--dump-state",
        str(end),
    )
    mid, last = json.loads(during.read_text()), json.loads(end.read_text())
    assert mid["status"] == "streaming"
    assert mid["status_line"].startswith("streaming · HTTP 200")
    assert mid["timing"]["end"] is None
    assert 0 < len(mid["text"] + mid["reasoning"]) < len(last["text"] + last["reasoning"])
    assert last["status"] == "complete"
    # The transcript: the streaming answer is the last turn, then the same turn done.
    assert [t["role"] for t in mid["transcript"]["turns"]] == ["user", "assistant"]
    assert mid["transcript"]["turns"][-1]["state"] == "streaming"
    assert last["transcript"]["turns"][-1]["state"] == "done"
    assert len(last["transcript"]["turns"]) == 2
    assert mid["window"] == last["window"] and len(last["window"]) == 2


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_the_transcript_takes_half_the_window_at_1024_by_700(tmp_path: Path, route: str) -> None:
    def dump(*args: str) -> dict[str, object]:
        target = tmp_path / "dump.json"
        _run(tmp_path, "--route", route, "--size", "1024x700", "--dump-state", str(target), *args)
        state: dict[str, object] = json.loads(target.read_text())
        return state

    state: dict[str, Any] = dump("--prompt", "A table, please", "--pace", "instant")
    assert state["window"] == [1024, 700]
    x, y, w, h = state["transcript"]["rect"]
    assert w >= 512 and h > 0
    last = state["transcript"]["turns"][-1]
    assert last["role"] == "assistant" and last["state"] == "done"
    lx, ly, lw, lh = last["rect"]
    assert x <= lx and y <= ly and lx + lw <= x + w and ly + lh <= y + h and lh > 0
    failed: dict[str, Any] = dump("--prompt", "Again", "--fault", "http-500")
    assert failed["transcript"]["turns"][-1]["state"] == "failed"
