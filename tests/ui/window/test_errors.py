"""In the real window: failures before and during a stream, each said in one sentence on
the panel, the inspector holding status, headers, body and findings, partial output kept, no
dialog; against the simulator's faults and tiny raw servers on 127.0.0.1 for what it lacks."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import re
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tls_helpers import self_signed_server_context

if TYPE_CHECKING:
    from freeze_watch import FreezeWatch

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
STATUSES = (400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504)


# ---- fixtures ------------------------------------------------------------------------------------


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
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append("exec") or 0)
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
                if head.startswith(b"GET ") and b"/models" in head.split(b"\r\n", 1)[0]:
                    # The provider bar asks for the model list whenever the base URL changes.
                    writer.write(_http(404, b'{"error": {"message": "no models here"}}'))
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


def _point_at(window: Any, base: str) -> None:
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText(base)
    window.provider_bar.base_url_edit.editingFinished.emit()


def _http(status: int, body: bytes, ctype: str = "application/json", **headers: str) -> bytes:
    extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    return (
        f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        f"X-Test-Header: failures\r\n{extra}Connection: close\r\n\r\n"
    ).encode() + body


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)


def _delta(text: str) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def _answer(panel: Any) -> str:
    state = panel.session.state
    return state.text if state is not None else ""


def _finding_codes(panel: Any) -> list[str]:
    return [f.code for f in panel.session.decoder.state.findings]


def _marked_incomplete(panel: Any) -> bool:
    """The partial output on screen carries an "incomplete" mark (the answer's, or the panel's)."""
    answer = panel.widgets.get("answer")
    return bool(
        answer is not None and answer.incomplete_marked
    ) or panel.incomplete_note.isVisibleTo(panel)


def _token(body: bytes) -> str:
    """A piece of the body any rendering of it (raw or pretty JSON) keeps."""
    for token in ("envelope says", "Bad Gateway", "No API key provided"):
        if token.encode() in body:
            return token
    return body.decode()[:10]


def _one_sentence(text: str) -> None:
    assert text, "the panel said nothing"
    assert "Traceback" not in text and 'File "' not in text, text
    assert "\n" not in text.strip(), text


# ---- before the stream -----------------------------------------------------------------------


def test_every_http_error_shape_is_said_and_inspectable(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    """400..504 with a JSON envelope, a non-JSON body, an empty body and the bare {"message"}."""
    cases: list[tuple[int, bytes, str, str]] = []
    for status in STATUSES:
        body = {
            "error": {"message": f"envelope says {status}", "type": "test_error", "code": status}
        }
        cases.append(
            (status, json.dumps(body).encode(), "application/json", f"envelope says {status}")
        )
    cases.append((502, b"<html><body>Bad Gateway</body></html>", "text/html", "not a JSON error"))
    cases.append((500, b"", "application/json", "empty"))
    cases.append(
        (401, b'{"message": "No API key provided"}', "application/json", "No API key provided")
    )
    current: list[tuple[int, bytes, str, str]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        status, body, ctype, _ = current[0]
        writer.write(_http(status, body, ctype))
        await writer.drain()

    server = raw(handler)
    _point_at(window, server.base)
    panel = window.show_panel("chat")
    problems: list[str] = []
    for case in cases:
        current[:] = [case]
        status, body, _ctype, expect = case
        result = send_and_wait(panel)
        banner = panel.banner.text
        response = window.inspector.response_view.toPlainText()
        checks = {
            "status failed": result == "failed",
            "banner names the status": f"{status}" in banner,
            "banner says what happened": expect in banner,
            "banner visible": panel.banner.isVisibleTo(panel),
            "status line": "failed" in panel.status_line.status.text(),
            "inspector status": str(status) in response,
            "inspector headers": "X-Test-Header" in response or "x-test-header" in response,
            "inspector body": not body or _token(body) in response,
            "error status": panel.session.state.error is not None
            and panel.session.state.error.status == status,
        }
        with contextlib.suppress(AssertionError):
            _one_sentence(banner)
            checks["one sentence"] = True
        checks.setdefault("one sentence", False)
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            problems.append(f"{status} {body[:40]!r}: {bad} banner={banner!r}")
    assert problems == []


def _http_date(seconds_ahead: float) -> str:
    from email.utils import format_datetime

    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds_ahead)
    return format_datetime(when, usegmt=True)


@pytest.mark.parametrize(
    ("status", "retry_after"),
    [(429, "2"), (503, "2"), (429, "http-date")],
    ids=["429-seconds", "503-seconds", "429-http-date"],
)
def test_retry_after_is_a_countdown_with_a_retry_button(
    window: Any,
    raw: Callable[..., RawServer],
    send_and_wait: Any,
    qloop: Any,
    status: int,
    retry_after: str,
) -> None:
    """Retry-After is delay-seconds or an HTTP-date (RFC 9110 §10.2.3): both count down."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}})
        value = _http_date(3) if retry_after == "http-date" else retry_after
        writer.write(_http(status, body.encode(), Retry_After=value))
        await writer.drain()

    server = raw(handler)
    _point_at(window, server.base)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    banner = panel.banner
    assert banner.retry.isVisibleTo(panel)
    assert not banner.retry.isEnabled(), "Retry is offered before Retry-After has passed"
    assert re.search(r"\b[1-3] s\b", banner.countdown.text()), banner.countdown.text()
    qloop.wait_until(lambda: banner.retry.isEnabled(), 6)
    assert "retry" in banner.countdown.text().lower()
    banner.retry.click()
    qloop.wait_until(lambda: server.requests == 2, 5)


def test_json_answer_where_a_stream_was_asked(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    answer = {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Whole answer."},
                "finish_reason": "stop",
            }
        ],
    }

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(_http(200, json.dumps(answer).encode()))
        await writer.drain()

    _point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    assert _answer(panel) == "Whole answer."
    assert panel.widgets["answer"].has_content()
    assert "json_body" in _finding_codes(panel)
    assert window.inspector.model.rows_with_findings()


def test_connection_refused(window: Any, send_and_wait: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _point_at(window, f"http://127.0.0.1:{port}/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    _one_sentence(panel.banner.text)
    assert "refused" in panel.banner.text
    assert panel.session.run.status is None


def test_name_that_does_not_resolve_never_leaves_the_machine(
    window: Any, send_and_wait: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = socket.getaddrinfo

    def fake_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in ("127.0.0.1", "localhost", "::1"):
            asked.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    _point_at(window, "https://gateway.invalid/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    assert asked and set(asked) == {"gateway.invalid"}
    _one_sentence(panel.banner.text)
    assert "gateway.invalid" in panel.banner.text and "resolve" in panel.banner.text
    assert panel.banner.retry.isVisibleTo(panel)


def test_tls_failure_on_a_self_signed_server(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any, tmp_path: Path
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(_http(200, b"{}"))
        await writer.drain()

    server = raw(handler, self_signed_server_context(tmp_path))
    _point_at(window, f"https://127.0.0.1:{server.port}/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    _one_sentence(panel.banner.text)
    assert "TLS" in panel.banner.text or "certificate" in panel.banner.text
    assert server.requests == 0  # nothing was sent over the unverified connection


def test_no_first_byte_within_the_timeout(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    _point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    panel.session.first_byte_timeout = 0.5
    t0 = time.perf_counter()
    assert send_and_wait(panel, 10) == "failed"
    assert time.perf_counter() - t0 < 5
    _one_sentence(panel.banner.text)
    assert "0.5 seconds" in panel.banner.text, panel.banner.text


# ---- during the stream: raw servers ------------------------------------------------------------


def test_connection_dropped_mid_event_keeps_the_partial_answer(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + _chunk(_delta("Partial ") + _delta("answer")))
        writer.write(_chunk(b'data: {"id":"c","choices":[{"index":0,"del'))
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.transport.abort()  # no terminating chunk: the body is cut

    _point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "truncated"
    assert _answer(panel) == "Partial answer"
    assert panel.widgets["answer"].has_content()
    assert _marked_incomplete(panel)
    _one_sentence(panel.banner.text)
    assert "Truncated" in panel.banner.text
    assert "truncated" in panel.status_line.status.text()
    codes = _finding_codes(panel)
    assert "unterminated_event" in codes or "no_terminator" in codes, codes


def test_stall_is_noticed_offers_stop_and_the_ui_keeps_running(
    window: Any, raw: Callable[..., RawServer], qloop: Any, freeze_watch: FreezeWatch
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + _chunk(_delta("Before the stall")))
        await writer.drain()
        await reader.read()  # until the client hangs up

    server = raw(handler)
    _point_at(window, server.base)
    panel = window.show_panel("chat")
    panel.session.stall_seconds = 1.0
    freeze_watch.start()
    try:
        qloop.do(panel.send)
        qloop.wait_until(lambda: panel.banner.kind == "stall", 10)
        _one_sentence(panel.banner.text)
        assert "stall" in panel.banner.text
        assert panel.banner.stop.isVisibleTo(panel)
        assert _answer(panel) == "Before the stall"
        # The UI never froze: the timer kept firing with no gap near the stall length.
        gaps = freeze_watch.gaps()
        assert len(freeze_watch.ticks) > 15 and max(gaps) < 0.5, max(gaps)
        task = panel.session._task
        t0 = time.perf_counter()
        qloop.do(panel.banner.stop.click)
        qloop.wait_until(lambda: task.done(), 2)
        assert time.perf_counter() - t0 < 0.2
    finally:
        freeze_watch.stop()
    qloop.sleep(0.05)
    assert panel.session.state.status == "cancelled"
    assert _answer(panel) == "Before the stall"


@pytest.mark.parametrize("phase", ["streaming", "before-headers"])
def test_stop_closes_the_connection_within_200_ms(
    window: Any, raw: Callable[..., RawServer], qloop: Any, phase: str
) -> None:
    hung_up: list[float] = []

    async def until_eof(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reading = asyncio.ensure_future(reader.read())
        if phase == "before-headers":
            await reading  # never answers: Stop must still close the socket at once
        else:
            writer.write(SSE_HEAD)
            while not reading.done():
                writer.write(_chunk(_delta("w ")))
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                await asyncio.sleep(0.01)
        hung_up.append(time.perf_counter())

    server = raw(until_eof)
    _point_at(window, server.base)
    panel = window.show_panel("chat")
    qloop.do(panel.send)
    if phase == "before-headers":
        qloop.wait_until(lambda: server.requests == 1, 10)
        qloop.sleep(0.1)
    else:
        qloop.wait_until(lambda: len(_answer(panel)) > 10, 10)
    t0 = time.perf_counter()
    qloop.do(panel.stop)
    qloop.wait_until(lambda: bool(hung_up), 2)
    assert hung_up[0] - t0 < 0.2
    qloop.sleep(0.05)
    assert panel.session.state is None or panel.session.state.status == "cancelled"
    assert "Cancelled" in panel.banner.text, panel.banner.text
    assert not panel.session.is_running


# ---- during the stream: the simulator's faults -------------------------------------------------


@pytest.mark.parametrize(
    "route", ["chat", "responses", "messages", "images", "speech", "transcription", "music"]
)
def test_midstream_error_on_each_route(window: Any, send_and_wait: Any, route: str) -> None:
    from playground.sim.faults import MIDSTREAM_MESSAGE

    panel = window.show_panel(route)
    panel.set_fault("midstream-error")
    assert send_and_wait(panel) == "failed"
    _one_sentence(panel.banner.text)
    assert MIDSTREAM_MESSAGE.rstrip(".") in panel.banner.text
    assert "failed" in panel.status_line.status.text()
    state = panel.session.state
    assert state.error is not None and state.error.item is not None
    assert panel.session.decoder.findings_for(state.error.item)
    assert window.inspector.model.rows_with_findings()
    if route == "music":
        return  # the simulator's music error comes before any audio: nothing partial to mark
    # Partial output stays on screen, marked incomplete.
    assert any(w.has_content() for w in panel.widgets.values())
    shown = [name for name, w in panel.widgets.items() if w.has_content()]
    assert _marked_incomplete(panel), f"{route}: {shown} on screen, not marked incomplete"


@pytest.mark.parametrize(
    ("route", "fault", "status", "code"),
    [
        ("chat", "bad-json", "complete", "invalid_json"),
        ("responses", "unknown-events", "complete", "unknown_event"),
        ("chat", "unknown-events", "complete", "unknown_event"),
        ("chat", "after-terminator", "complete", "event_after_terminator"),
        ("messages", "out-of-order", None, "delta_before_start"),
        ("chat", "garbage", "complete", None),
        ("chat", "drop", "truncated", "no_terminator"),
        ("chat", "incomplete", "incomplete", None),
        ("speech", "drop", "truncated", "no_terminator"),
        ("images", "drop", "truncated", "no_terminator"),
        ("transcription", "drop", "truncated", "no_terminator"),
        ("messages", "drop", "truncated", "no_terminator"),
        ("responses", "bad-json", "complete", "invalid_json"),
        ("messages", "after-terminator", None, "event_after_terminator"),
    ],
)
def test_damaged_streams_get_findings(
    window: Any, send_and_wait: Any, route: str, fault: str, status: str | None, code: str | None
) -> None:
    panel = window.show_panel(route)
    panel.set_fault(fault)
    result = send_and_wait(panel)
    if status is not None:
        assert result == status
    assert any(w.has_content() for w in panel.widgets.values()), "nothing on screen"
    codes = _finding_codes(panel)
    if code is not None:
        assert code in codes, codes
    elif fault == "garbage":
        assert codes, "binary garbage passed without a finding"
    rows = window.inspector.model.rows_with_findings()
    if codes and any(f.item is not None for f in panel.session.decoder.state.findings):
        assert rows
    if result != "complete":
        _one_sentence(panel.banner.text)
        shown = [name for name, w in panel.widgets.items() if w.has_content()]
        assert _marked_incomplete(panel), f"{shown} on screen, not marked incomplete"


def test_a_10_mb_line_does_not_freeze_the_window(
    window: Any, qloop: Any, freeze_watch: FreezeWatch
) -> None:
    panel = window.show_panel("chat")
    panel.set_fault("huge-line")
    freeze_watch.start()
    try:
        qloop.do(panel.send)
        assert qloop.run(panel.session.wait(), 60) == "complete"
        qloop.sleep(0.05)
        # Clicking the huge event in the timeline shows its detail without freezing either.
        items = panel.session.decoder.items
        huge = max(items, key=lambda item: len(item.raw)).index
        assert len(items[huge].raw) > 10 * 1024 * 1024
        qloop.do(window.inspector.select_item, huge)
        qloop.sleep(0.1)
    finally:
        freeze_watch.stop()
    gaps = freeze_watch.gaps()
    assert gaps and max(gaps) < 1.0, f"the UI froze for {max(gaps):.2f} s"
    assert _answer(panel)
    qloop.sleep(0.05)
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items)


def test_two_panels_streaming_faults_at_once_do_not_touch_each_other(
    window: Any, qloop: Any
) -> None:
    chat = window.panels["chat"]
    messages = window.panels["messages"]
    chat.set_fault("midstream-error")

    async def both() -> tuple[str, str]:
        chat.send()
        messages.send()
        return await chat.session.wait(), await messages.session.wait()

    assert qloop.run(both(), 30) == ("failed", "complete")
    qloop.sleep(0.05)
    assert messages.session.state.error is None and not messages.banner.isVisibleTo(messages)
    assert messages.session.state.text


def test_new_send_closes_the_running_connection(
    window: Any, raw: Callable[..., RawServer], qloop: Any
) -> None:
    """A second Send on the panel cancels the first run: its connection is closed server-side."""
    hung_up: list[int] = []
    conns = 0

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal conns
        conns += 1
        me = conns
        reading = asyncio.ensure_future(reader.read())
        writer.write(SSE_HEAD)
        while not reading.done():
            writer.write(_chunk(_delta(f"{me} ")))
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            await asyncio.sleep(0.01)
        hung_up.append(me)

    _point_at(window, raw(endless).base)
    panel = window.show_panel("chat")
    qloop.do(panel.send)
    qloop.wait_until(lambda: len(_answer(panel)) > 4, 10)
    first = panel.session._task
    qloop.do(panel.send)
    qloop.wait_until(lambda: 1 in hung_up, 2)
    assert first.done()
    qloop.wait_until(lambda: "2 " in _answer(panel), 5)
    assert "1 " not in _answer(panel)  # the second run's text only
    assert panel.session.is_running
    qloop.do(panel.stop)
    qloop.wait_until(lambda: 2 in hung_up, 2)


# ---- odd answers a real gateway or proxy can give ----------------------------------------------

_GOOD_SSE = _delta("Hello") + b"data: [DONE]\n\n"
ODD_ANSWERS: dict[str, tuple[bytes, tuple[str, ...]]] = {
    # name: (the raw answer, the statuses PROTOCOL.md §0 allows for it)
    "empty-stream": (SSE_HEAD + b"0\r\n\r\n", ("truncated",)),
    "no-content-type": (
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(_GOOD_SSE) + _GOOD_SSE,
        ("complete",),
    ),
    "bad-gzip": (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: 20\r\n\r\n" + b"\x1f\x8b" + b"\x00" * 18,
        ("failed", "truncated"),
    ),
    "not-http": (b"hello, this is not HTTP\r\n\r\n", ("failed",)),
    "no-content": (b"HTTP/1.1 204 No Content\r\n\r\n", ("truncated", "failed")),
    "huge-html-error": (
        _http(500, b"<html>" + b"x" * (2 * 1024 * 1024) + b"</html>", "text/html"),
        ("failed",),
    ),
}


@pytest.mark.parametrize("name", list(ODD_ANSWERS))
def test_odd_answers_are_said_plainly(
    window: Any, raw: Callable[..., RawServer], qloop: Any, name: str, freeze_watch: FreezeWatch
) -> None:
    answer, allowed = ODD_ANSWERS[name]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(answer)
        await writer.drain()

    _point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    freeze_watch.start()
    try:
        qloop.do(panel.send)
        status = qloop.run(panel.session.wait(), 30)
        qloop.sleep(0.05)
        # What a person does next: read the response, click the event that carried the error.
        inspector = window.inspector
        qloop.do(inspector.tabs.setCurrentWidget, inspector.response_view)
        qloop.sleep(0.05)
        if inspector.model.rowCount():
            qloop.do(inspector.select_item, 0)
        qloop.sleep(0.05)
    finally:
        freeze_watch.stop()
    assert status in allowed, (name, status, _finding_codes(panel))
    if status != "complete":
        _one_sentence(panel.banner.text)
    else:
        assert _answer(panel) == "Hello"
    gaps = freeze_watch.gaps()
    assert not gaps or max(gaps) < 1.0, f"the UI froze for {max(gaps):.2f} s"
    decoder = panel.session.decoder
    assert decoder is not None
    assert window.inspector.model.rowCount() == len(decoder.items)


@pytest.mark.parametrize("size", [300, 200_000])
def test_a_long_or_multiline_error_message_stays_one_readable_sentence(
    window: Any, raw: Callable[..., RawServer], qloop: Any, size: int, freeze_watch: FreezeWatch
) -> None:
    """A provider's error message can be a stack dump: the banner stays one line, not a wall."""
    message = ('Traceback (most recent call last):\n  File "x.py", line 1\n' * size)[:size]
    error = {"error": {"message": message, "type": "server_error", "code": 500}}
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}], **error}

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = _delta("Partial") + b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"
        writer.write(SSE_HEAD + _chunk(body) + b"0\r\n\r\n")
        await writer.drain()

    _point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    freeze_watch.start()
    try:
        qloop.do(panel.send)
        assert qloop.run(panel.session.wait(), 30) == "failed"
        qloop.sleep(0.2)
    finally:
        freeze_watch.stop()
    gaps = freeze_watch.gaps()
    assert not gaps or max(gaps) < 1.0, f"the UI froze for {max(gaps):.2f} s"
    assert _answer(panel) == "Partial"
    text = panel.banner.text
    assert "\n" not in text.strip() and len(text) < 2000, (len(text), text[:200])


def test_simulator_stall_is_noticed_then_the_stream_completes(window: Any, qloop: Any) -> None:
    """The watchdog's banner appears during the simulator's 3 s stall and goes when bytes resume."""
    panel = window.show_panel("chat")
    panel.set_fault("stall")
    panel.session.stall_seconds = 1.0
    seen: list[str] = []
    qloop.do(panel.send)

    async def watch() -> str:
        while panel.session.is_running:
            if panel.banner.kind == "stall":
                seen.append(panel.banner.text)
            await asyncio.sleep(0.05)
        return await panel.session.wait()

    assert qloop.run(watch(), 30) == "complete"
    qloop.sleep(0.05)
    assert seen, "the stall was never reported"
    assert panel.banner.kind != "stall" and not panel.banner.isVisibleTo(panel)
    assert _answer(panel) or panel.session.state.reasoning
