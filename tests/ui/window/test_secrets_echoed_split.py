"""A gateway that echoes the key in its response headers and in its body, the key cut across two
reads: in the real window, the Response tab, the history, --save-capture and the bug-report
bundle never hold it (the scrubber carries each read's tail to the next)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from test_secrets_in_window import _grep, _texts

SECRET = "sk-failures-SECRET-0123456789abcdefXYZ"  # the key _grep looks for


@pytest.mark.parametrize("cut", [1, 9, len(SECRET) - 1])
def test_an_echoed_key_split_across_reads_reaches_no_file_and_no_tab(
    qloop: Any, sim: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any, cut: int
) -> None:
    from PySide6.QtCore import QSettings

    from playground.runs.bundle import make_bundle
    from playground.ui.app import _journal_to
    from playground.ui.window.shell import MainWindow

    data = tmp_path / "data"
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(data))
    monkeypatch.setenv("PLAYGROUND_API_KEY", SECRET)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length:
            await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + f"X-Echo: {SECRET}\r\nX-Auth-Token: {SECRET}\r\nConnection: close\r\n\r\n".encode()
        )
        event = (
            'data: {"choices":[{"index":0,"delta":{"content":"ok ' + SECRET + '"}}]}\n\n'
        ).encode()
        at = event.index(SECRET.encode()) + cut
        for part in (event[:at], event[at:], b"data: [DONE]\n\n"):
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(0.05)
        writer.close()

    server = qloop.run(asyncio.start_server(echo, "127.0.0.1", 0))
    echo_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    qtbot.addWidget(win)
    try:
        win.show()
        win.provider_bar.set_provider("custom")
        win.provider_bar.base_url_edit.setText(echo_url)
        win.provider_bar.base_url_edit.editingFinished.emit()
        panel = win.show_panel("chat")
        panel.editor.set_prompt("Explain server-sent events in two short paragraphs.")
        capture_path = data / "saved.capture.jsonl"
        series = _journal_to(panel, str(capture_path))
        qloop.do(panel.send)
        qloop.run(panel.session.wait(), 30)
        qloop.sleep(0.1)
        series.finish()  # the conversation is over: its last exchange at the path asked for
        response_tab = win.inspector.response_view.toPlainText()
        assert "x-echo: [redacted]" in response_tab.lower() and SECRET not in response_tab
        assert SECRET not in win.inspector.request_view.toPlainText()
        tabs = [(where, text) for where, text in _texts(win) if where.startswith("ExchangeView")]
        assert tabs and all(SECRET not in text for _where, text in tabs)
        history = win.history
        assert history is not None
        history.writer.flush()
        run = history.list_runs("chat")[0]
        make_bundle(history.run_file(run.id), data / "bundle.zip")
        assert win.grab().save(str(data / "shot.png"))
    finally:
        win._closing = True
        for p in win.panels.values():
            p.session.stop()
        qloop.run(win.shutdown(), 10)
        win.close()
        server.close()
        with contextlib.suppress(Exception):
            qloop.run(server.wait_closed(), 2)
    assert capture_path.exists()
    assert _grep(data) == []
