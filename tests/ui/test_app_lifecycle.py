"""The program's life: closing with streams in flight on every panel exits cleanly
(no asyncio warnings); a corrupt settings or history file at start-up is set aside, with a note."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from headless_helpers import async_warnings, headless_env

# The real entry point (`playground.ui.app.main`, its own shutdown path), with streams started on
# several panels at once before the window is closed by --quit-after.
_CLOSE_SCRIPT = textwrap.dedent(
    """
    import sys
    import playground.ui.app as app

    ROUTES = ("chat", "responses", "messages", "images", "speech", "music")
    original = app.run_headless

    async def many(window, args):
        for route in ROUTES[1:]:
            panel = window.show_panel(route)
            panel.set_pace("realtime")
            panel.send()
        window.show_panel("chat")
        return await original(window, args)

    app.run_headless = many
    code = app.main(["--route", "chat", "--prompt", "hi", "--pace", "realtime",
                     "--quit-after", sys.argv[1]])
    print("EXIT", code, flush=True)
    sys.exit(code)
    """
)


def test_closing_with_streams_in_flight_on_every_panel_exits_cleanly(tmp_path: Path) -> None:
    script = tmp_path / "close_many.py"
    script.write_text(_CLOSE_SCRIPT)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-X", "dev", str(script), "2.0"],
        capture_output=True,
        text=True,
        timeout=120,
        env=headless_env(tmp_path),
    )
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "EXIT 0" in proc.stdout
    assert async_warnings(proc.stderr) == [], proc.stderr[-3000:]
    assert "Exception" not in proc.stderr, proc.stderr[-3000:]
    assert elapsed < 60, f"closing took {elapsed:.1f} s"


def test_corrupt_settings_file_is_set_aside_and_the_program_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qapp: Any
) -> None:
    from playground.ui.app import _settings

    path = tmp_path / "settings.ini"
    path.write_text("[General\nprovider=sim\n\x00\x01garbage")
    monkeypatch.setenv("PLAYGROUND_SETTINGS", str(path))
    settings, message = _settings()
    assert message is not None and "set aside" in message
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("settings.ini.corrupt")]
    assert len(aside) == 1 and b"garbage" in aside[0].read_bytes()
    settings.setValue("probe", "ok")
    settings.sync()
    from PySide6.QtCore import QSettings

    assert settings.status() == QSettings.Status.NoError


def test_corrupt_settings_headless_run_still_works(tmp_path: Path) -> None:
    from headless_helpers import run_headless_batch

    work = tmp_path / "run0"
    work.mkdir()
    (work / "settings.ini").write_text("[General\nthis is not ini\n")
    (work / "data" / "history").mkdir(parents=True)
    (work / "data" / "history" / "index.json").write_bytes(b"{not json\x00\xff")
    (result,) = run_headless_batch(
        tmp_path, [("--route", "chat", "--prompt", "hi", "--pace", "instant")], timeout=90
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert async_warnings(result.stderr) == [], result.stderr[-2000:]
    assert result.dump is not None and result.dump["status"] == "complete"
    assert any(p.name.startswith("settings.ini.corrupt") for p in work.iterdir())
    # Headless, each file set aside is said on stderr, one line each.
    assert "playground: The settings file was unreadable; it was set aside" in result.stderr
    assert "playground: The run history index was unreadable; it was set aside" in result.stderr
    history = work / "data" / "history"
    assert any(".corrupt" in p.name for p in history.iterdir()), list(history.iterdir())


def test_corrupt_history_is_set_aside_with_a_message_in_the_window(
    qloop: Any, sim: Any, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.window.shell import MainWindow

    data = tmp_path / "data"
    (data / "history" / "runs").mkdir(parents=True)
    (data / "history" / "index.json").write_bytes(b"\x00\xff{{{ not json")
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(data))
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    try:
        win.show()
        assert win.history is not None
        assert win.history.messages and "set aside" in " ".join(win.history.messages)
        assert "set aside" in win.statusBar().currentMessage()
        assert any(".corrupt" in p.name for p in (data / "history").iterdir())
    finally:
        win._closing = True
        qloop.run(win.shutdown(), 10)
        win.close()
        win.deleteLater()


def test_timeouts_come_from_the_settings(qloop: Any, sim: Any, settings: Any) -> None:
    """The first-byte timeout and the stall threshold are configurable."""
    from playground.ui.window.shell import MainWindow

    settings.setValue("first_byte_timeout", 0.75)
    settings.setValue("stall_seconds", 2.5)
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    try:
        for panel in win.panels.values():
            assert panel.session.first_byte_timeout == 0.75
            assert panel.session.stall_seconds == 2.5
    finally:
        win._closing = True
        qloop.run(win.shutdown(), 10)
        win.close()
        win.deleteLater()


def test_a_window_closed_before_its_contents_were_built_closes_cleanly(
    qloop: Any, qtbot: Any, settings: Any
) -> None:
    """The entry point shows the window empty before building it: a close in that moment (the
    user, the window manager) ends the program without remembering a layout it never had."""
    from playground.ui.window.shell import MainWindow

    win = MainWindow(settings, start_simulator=False, build=False)
    closed: list[bool] = []
    win.closed.connect(lambda: closed.append(True))
    win.show()
    qtbot.waitUntil(lambda: win.empty_painted, timeout=3000)
    assert not win.built and not win.painted  # its empty frame only
    win.close()
    assert closed == [True] and win.closing
    qloop.run(win.shutdown(), 10)
    assert "window/geometry" not in settings.allKeys()  # nothing remembered of no layout
    win.deleteLater()
