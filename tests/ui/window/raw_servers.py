"""The error tests' shared parts: misbehaving HTTP servers on 127.0.0.1 (on the test's qasync
loop), the fixture that refuses any dialog, the answers they send and what the tests check."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture(autouse=True)
def no_dialogs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Any QMessageBox (let alone one with a traceback) is a failure here: record and refuse it."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []

    def record(name: str) -> Callable[..., Any]:
        def fake(*args: Any, **kwargs: Any) -> Any:
            shown.append(f"{name}: {[str(a) for a in args[1:3]]}")
            return QMessageBox.StandardButton.No

        return fake

    for name in ("critical", "warning", "information", "question", "about"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(record(name)))

    def exec_(self: QMessageBox) -> int:
        shown.append("exec")
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    monkeypatch.delenv("PLAYGROUND_API_KEY", raising=False)
    yield shown
    assert shown == [], f"a dialog appeared: {shown}"


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    if length:
        await reader.readexactly(length)
    return head


class RawServer:
    """A misbehaving HTTP server on 127.0.0.1 (a free port), on the test's qasync loop."""

    def __init__(self, qloop: Any, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.requests = 0
        self.closed_at: list[float] = []  # perf_counter when the client hung up
        self._tasks: set[asyncio.Task[None]] = set()

        async def on_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._tasks.add(asyncio.current_task())  # type: ignore[arg-type]
            try:
                head = await _read_request(reader)
                line = head.split(b"\r\n", 1)[0]
                counting = b"/input_tokens" in line or b"/count_tokens" in line
                if (head.startswith(b"GET ") and b"/models" in line) or counting:
                    # The provider bar asks for the model list whenever the base URL changes,
                    # and the context gauge for a count of the body's tokens as it changes.
                    writer.write(http_answer(404, b'{"error": {"message": "no models here"}}'))
                    await writer.drain()
                    return
                self.requests += 1
                await self.handler(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, OSError, ssl.SSLError):
                pass
            except asyncio.CancelledError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    writer.close()

        self.server = qloop.run(asyncio.start_server(on_conn, "127.0.0.1", 0, ssl=tls))
        self.port = self.server.sockets[0].getsockname()[1]
        self.qloop = qloop

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self.server.close()
        for task in list(self._tasks):
            task.cancel()

        async def done() -> None:
            await asyncio.gather(*self._tasks, return_exceptions=True)

        self.qloop.run(done(), 5)


@pytest.fixture
def raw(qloop: Any) -> Iterator[Callable[..., RawServer]]:
    made: list[RawServer] = []

    def make(handler: Handler, tls: ssl.SSLContext | None = None) -> RawServer:
        server = RawServer(qloop, handler, tls)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def point_at(window: Any, base: str) -> None:
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText(base)
    window.provider_bar.base_url_edit.editingFinished.emit()


def http_answer(status: int, body: bytes, ctype: str = "application/json", **headers: str) -> bytes:
    extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    return (
        f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        f"X-Test-Header: failures\r\n{extra}Connection: close\r\n\r\n"
    ).encode() + body


def http_chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def delta(text: str) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def answer_of(panel: Any) -> str:
    state = panel.session.state
    return state.text if state is not None else ""


def finding_codes(panel: Any) -> list[str]:
    return [f.code for f in panel.session.decoder.state.findings]


def marked_incomplete(panel: Any) -> bool:
    """The partial output on screen carries an "incomplete" mark (the answer's, or the panel's)."""
    answer = panel.widgets.get("answer")
    return bool(
        answer is not None and answer.incomplete_marked
    ) or panel.incomplete_note.isVisibleTo(panel)


def body_token(body: bytes) -> str:
    """A piece of the body any rendering of it (raw or pretty JSON) keeps."""
    for token in ("envelope says", "Bad Gateway", "No API key provided"):
        if token.encode() in body:
            return token
    return body.decode()[:10]


def one_sentence(text: str) -> None:
    assert text, "the panel said nothing"
    assert "Traceback" not in text and 'File "' not in text, text
    assert "\n" not in text.strip(), text
