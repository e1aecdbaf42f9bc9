"""Settings dialog on a machine without a keyring: a saved key is kept in memory, said so next to
the key, used by the next run, and written to no file."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.transport import secrets

SECRET = "sk-session-only-SECRET-4242abcd"


@pytest.fixture
def no_session_keys() -> Iterator[None]:
    secrets.forget_session_keys()
    yield
    secrets.forget_session_keys()


def _chat_stream() -> bytes:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    events = [
        chunk | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]},
        chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return body + b"data: [DONE]\n\n"


def test_a_key_saved_without_keyring_is_used_and_never_written(
    window: Any,
    qloop: Any,
    qtbot: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_session_keys: None,
) -> None:
    from playground.ui.window.settings_dialog import SettingsDialog

    monkeypatch.delenv("PLAYGROUND_API_KEY", raising=False)
    seen: list[str] = []

    # A gateway on loopback that records the Authorization header it is sent.
    async def gateway(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
            if name.lower() == "authorization":
                seen.append(value.strip())
        if length:
            await reader.readexactly(length)
        body = _chat_stream()
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    server = qloop.run(asyncio.start_server(gateway, "127.0.0.1", 0))
    try:
        bar = window.provider_bar
        bar.set_provider("custom")
        bar.base_url_edit.setText(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1")
        bar.base_url_edit.editingFinished.emit()
        bar.update_key_label()
        assert bar.key_label.text() == "no key"

        dialog = SettingsDialog(window.settings, window)
        qtbot.addWidget(dialog)
        row = dialog.rows["custom"]
        row.edit.setText(SECRET)
        row.save.click()
        assert row.edit.text() == ""
        assert row.note.text() == "kept until you quit: this system has no keyring"
        dialog.accept()
        bar.update_key_label()  # what the window does when the dialog closes
        assert bar.key_label.text() == "key: until you quit"

        panel = window.show_panel("chat")
        qloop.do(panel.send)
        assert qloop.run(panel.session.wait(), 30) == "complete"
        assert seen == [f"Bearer {SECRET}"]  # the next run used the key
    finally:
        server.close()
        qloop.run(server.wait_closed(), 5)

    # No file the program wrote holds the key: the settings files, history, captures.
    window.settings.sync()
    roots = [tmp_path, Path(window.settings.fileName()).parent]
    for env in ("PLAYGROUND_DATA_DIR", "PLAYGROUND_SETTINGS"):
        value = os.environ.get(env)
        if value:
            roots.append(Path(value).parent if env == "PLAYGROUND_SETTINGS" else Path(value))
    assert Path(window.settings.fileName()).is_file()
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path
    # Forget removes it again; the row then shows where a key could come from.
    dialog = SettingsDialog(window.settings, window)
    qtbot.addWidget(dialog)
    assert dialog.rows["custom"].note.text() == "kept until you quit: this system has no keyring"
    dialog.rows["custom"].forget.click()
    assert dialog.rows["custom"].note.text() == "none (or set $PLAYGROUND_API_KEY)"
    assert secrets.get_key(window.provider_bar.provider()) is None
