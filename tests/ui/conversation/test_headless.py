"""The headless contract end to end in a subprocess: `playground --route R ... --exit-when-done`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLE_TEXT = "Hello from the playground. This sentence was spoken by the simulator."
FIELDS = {
    "route",
    "status",
    "text",
    "reasoning",
    "tool_calls",
    "images",
    "audio_seconds",
    "timeline_rows",
    "findings",
    "usage",
    "error",
}


def _run(
    tmp: Path, *args: str, timeout: float = 90
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PLAYGROUND_SETTINGS"] = str(tmp / "settings.ini")
    env["PLAYGROUND_DATA_DIR"] = str(tmp / "data")
    env["PYTHONWARNINGS"] = "default"
    dump = tmp / "dump.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-m",
            "playground",
            *args,
            "--pace",
            "fast",
            "--dump-state",
            str(dump),
            "--exit-when-done",
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    for bad in ("Task was destroyed", "Unclosed", "never awaited", "Traceback"):
        assert bad not in proc.stderr, proc.stderr[-2000:]
    return proc, json.loads(dump.read_text())


def test_chat_headless_with_screenshot_and_capture(tmp_path: Path) -> None:
    shot = tmp_path / "chat.png"
    capture = tmp_path / "run.capture.jsonl"
    _, dump = _run(
        tmp_path,
        "--route",
        "chat",
        "--prompt",
        "Count to five",
        "--screenshot",
        str(shot),
        "--save-capture",
        str(capture),
    )
    assert dump.keys() >= FIELDS
    assert dump["route"] == "chat" and dump["status"] == "complete"
    assert "Count to five" in dump["text"] and dump["error"] is None
    assert dump["timeline_rows"] > 5 and dump["usage"]["total_tokens"] > 0
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert image.width() >= 1000 and image.height() >= 600
    # The capture replays to the same text and status (round trip).
    replay_dump = tmp_path / "replay"
    replay_dump.mkdir()
    _, again = _run(replay_dump, "--replay", str(capture), "--speed", "0")
    assert again["text"] == dump["text"] and again["status"] == "complete"


def test_images_headless(tmp_path: Path) -> None:
    _, dump = _run(tmp_path, "--route", "images", "--prompt", "a red kite")
    assert dump["status"] == "complete"
    assert len(dump["images"]) >= 2 and dump["images"][-1]["final"]


def test_speech_headless(tmp_path: Path) -> None:
    _, dump = _run(tmp_path, "--route", "speech", "--prompt", "One two three.")
    assert dump["status"] == "complete" and dump["audio_seconds"] > 0.5


@pytest.mark.parametrize("prompt", [(), ("--prompt", ""), ("--prompt", "  ")], ids=repr)
def test_transcription_headless_uses_the_shipped_sample(
    tmp_path: Path, prompt: tuple[str, ...]
) -> None:
    # An empty --prompt is no file: the sample is transcribed (it once sent nothing, exit 0).
    _, dump = _run(tmp_path, "--route", "transcription", *prompt)
    assert dump["status"] == "complete" and dump["text"] == SAMPLE_TEXT


def test_headless_says_why_nothing_was_sent(tmp_path: Path) -> None:
    # The run ends (exit 0, the headless contract) and says why on stderr, not only in the dump.
    missing = tmp_path / "no-such.wav"
    proc, dump = _run(tmp_path, "--route", "transcription", "--prompt", str(missing))
    assert "playground: nothing was sent: Cannot read the audio file no-such.wav" in proc.stderr
    assert (dump["status"], dump["error"]["type"], dump["timeline_rows"]) == (
        "failed",
        "not_sent",
        0,
    )


@pytest.mark.parametrize(
    ("fault", "status", "http"),
    [
        ("http-429", "failed", 429),
        ("midstream-error", "failed", None),
        ("drop", "truncated", None),
        ("bad-json", "complete", None),
    ],
)
def test_faults_headless(tmp_path: Path, fault: str, status: str, http: int | None) -> None:
    _, dump = _run(tmp_path, "--route", "chat", "--prompt", "hi", "--fault", fault)
    assert dump["status"] == status
    if status == "complete":
        assert dump["error"] is None and dump["findings"]
    else:
        assert dump["error"]["message"]
        assert dump["error"]["status"] == http
        assert "type" in dump["error"]


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for args in (
        ["--route", "nope"],
        ["--route", "chat", "--fault", "bogus"],
        ["--speed", "-1"],
        [str(tmp_path / "missing.sse")],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "playground", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_closing_with_a_stream_in_flight_exits_cleanly(tmp_path: Path) -> None:
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PLAYGROUND_DATA_DIR=str(tmp_path / "d"),
        PLAYGROUND_SETTINGS=str(tmp_path / "s.ini"),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-m",
            "playground",
            "--route",
            "chat",
            "--prompt",
            "hi",
            "--pace",
            "realtime",
            "--quit-after",
            "0.8",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    for bad in ("Task was destroyed", "Unclosed", "never awaited", "Traceback", "Exception"):
        assert bad not in proc.stderr, proc.stderr[-2000:]


def test_a_headless_run_leaves_the_remembered_settings_alone(tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    ini = tmp_path / "settings.ini"
    before = QSettings(str(ini), QSettings.Format.IniFormat)
    before.setValue("provider", "simulator")
    before.setValue("model/simulator/chat", "sim-chat")
    before.sync()
    _, dump = _run(tmp_path, "--route", "chat", "--prompt", "hi", "--model", "other-model")
    assert dump["status"] == "complete"
    after = QSettings(str(ini), QSettings.Format.IniFormat)
    assert after.value("model/simulator/chat") == "sim-chat"
