"""Secrets: with a key set, run streams (one failing), save a capture, export the request,
write the history and a bug-report bundle, take a screenshot; then grep every file the program
wrote and every text the window shows for the key: it is never there."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SECRET = "sk-failures-SECRET-0123456789abcdefXYZ"


def _texts(window: Any) -> Iterator[tuple[str, str]]:
    """Every text a widget of the window shows (labels, editors, buttons, tooltips, tab titles)."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QLabel,
        QLineEdit,
        QPlainTextEdit,
        QTabWidget,
        QTextEdit,
        QWidget,
    )

    yield "title", window.windowTitle()
    yield "status bar", window.statusBar().currentMessage()
    for widget in window.findChildren(QWidget):
        name = type(widget).__name__
        yield f"{name} tooltip", widget.toolTip()
        if isinstance(widget, QLabel | QLineEdit | QAbstractButton):
            yield name, widget.text()
        elif isinstance(widget, QPlainTextEdit | QTextEdit):
            yield name, widget.toPlainText()
        elif isinstance(widget, QTabWidget):
            for i in range(widget.count()):
                yield f"{name} tab", widget.tabText(i)


def _grep(root: Path) -> list[str]:
    hits = []
    needle = SECRET.encode()
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if needle in data:
            hits.append(str(path))
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as bundle:
                for name in bundle.namelist():
                    if needle in bundle.read(name):
                        hits.append(f"{path}!{name}")
    return hits


@pytest.mark.parametrize("echo", [False, True], ids=["stream", "error-echoes-key"])
def test_the_key_never_leaves_a_trace(
    qloop: Any,
    sim: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    qtbot: Any,
    echo: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``echo``: then a gateway answers 401 with the Authorization header in its message (proxies
    do that); the program knows the key, so it must scrub it from what it shows and writes."""
    from PySide6.QtCore import QSettings

    from playground.protocol.capture import read_capture
    from playground.runs.bundle import make_bundle
    from playground.runs.export import export_request
    from playground.ui.app import _journal_to
    from playground.ui.window.shell import MainWindow

    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(data))
    monkeypatch.setenv("PLAYGROUND_API_KEY", SECRET)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)

    # A gateway that answers 401 and echoes the Authorization header, as some proxies do.
    async def echo_401(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        auth = ""
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
            if name.lower() == "authorization":
                auth = value.strip()
        if length:
            await reader.readexactly(length)
        body = json.dumps(
            {"error": {"message": f"Incorrect API key provided: {auth}", "type": "auth"}}
        ).encode()
        writer.write(
            b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    server = qloop.run(asyncio.start_server(echo_401, "127.0.0.1", 0))
    echo_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"

    caplog.set_level(logging.DEBUG)  # every logger, every level: no record may carry the key
    problems: list[str] = []
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    qtbot.addWidget(win)
    try:
        win.show()
        win.provider_bar.set_provider("custom")
        win.provider_bar.base_url_edit.setText(sim.base_url)
        win.provider_bar.base_url_edit.editingFinished.emit()
        panel = win.show_panel("chat")
        panel.editor.set_prompt("Explain server-sent events in two short paragraphs.")

        # 1. A stream, journaled to a capture file and to the history.
        capture_path = data / "saved.capture.jsonl"
        series = _journal_to(panel, str(capture_path))
        qloop.do(panel.send)
        assert qloop.run(panel.session.wait(), 30) == "complete"
        qloop.sleep(0.1)
        series.finish()  # the conversation is over: its last exchange at the path asked for
        sent = panel.session.run.headers
        assert any(v == "Bearer [redacted]" for v in sent.values()), sent  # the key was used

        # 2. Export the request in every format, and a bug-report bundle.
        capture = read_capture(capture_path)
        assert capture.request is not None
        for fmt in ("curl", "python", "typescript"):
            (data / f"export.{fmt}.txt").write_text(export_request(capture.request, "chat", fmt))
        make_bundle(capture_path, data / "bundle.zip")

        # 3. A screenshot.
        assert win.grab().save(str(data / "shot.png"))

        texts = [(where, text) for where, text in _texts(win) if SECRET in (text or "")]
        assert texts == [], texts
        assert SECRET not in json.dumps(panel.dump_state(), default=str)

        # 4. A failure whose body echoes the key: the banner and inspector must not show it.
        if echo:
            win.provider_bar.base_url_edit.setText(echo_url)
            win.provider_bar.base_url_edit.editingFinished.emit()
            panel.editor.set_prompt("And again?")  # the next turn
            qloop.do(panel.send)
            assert qloop.run(panel.session.wait(), 30) == "failed"
            qloop.sleep(0.1)
            assert "401" in panel.banner.text
            shown = [f"{where}: {text[:120]!r}" for where, text in _texts(win) if SECRET in text]
            problems += shown
            assert panel.session.state is not None
            error = panel.session.state.error
            assert error is not None
            if SECRET in error.message:
                problems.append(f"state.error.message: {error.message!r}")
    finally:
        win._closing = True
        for p in win.panels.values():
            p.session.stop()
        qloop.run(win.shutdown(), 10)
        win.close()
        server.close()
        with contextlib.suppress(Exception):
            qloop.run(server.wait_closed(), 2)
    settings.sync()
    hits = sorted(set(_grep(data) + _grep(home) + _grep(tmp_path)))
    hits += [f"log: {r.getMessage()[:120]}" for r in caplog.records if SECRET in r.getMessage()]
    assert problems + hits == [], "\n".join(problems + hits)
