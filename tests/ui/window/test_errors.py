"""In the real window: failures before a stream starts (HTTP errors, Retry-After, a JSON answer
where a stream was asked, refused or unresolvable connections, TLS, no first byte), each said in
one sentence on the panel, the inspector holding status, headers and body, no dialog."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import raw_servers
from raw_servers import (
    RawServer,
    answer_of,
    body_token,
    finding_codes,
    http_answer,
    one_sentence,
    point_at,
)
from tls_helpers import self_signed_server_context

if TYPE_CHECKING:
    pass

# The shared fixtures, where pytest looks for them: in this module (no dialog, raw servers).
no_dialogs = raw_servers.no_dialogs
raw = raw_servers.raw
STATUSES = (400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504)


# ---- before the stream -----------------------------------------------------------------------


def test_every_http_error_shape_is_said_and_inspectable(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    """400..504 with a JSON envelope, a non-JSON body, an empty body and the bare {"message"}."""
    cases: list[tuple[int, bytes, str, str]] = []
    for status in STATUSES:
        envelope = {
            "error": {"message": f"envelope says {status}", "type": "test_error", "code": status}
        }
        cases.append(
            (status, json.dumps(envelope).encode(), "application/json", f"envelope says {status}")
        )
    cases.append((502, b"<html><body>Bad Gateway</body></html>", "text/html", "not a JSON error"))
    cases.append((500, b"", "application/json", "empty"))
    cases.append(
        (401, b'{"message": "No API key provided"}', "application/json", "No API key provided")
    )
    current: list[tuple[int, bytes, str, str]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        status, body, ctype, _ = current[0]
        writer.write(http_answer(status, body, ctype))
        await writer.drain()

    server = raw(handler)
    point_at(window, server.base)
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
            "inspector body": not body or body_token(body) in response,
            "error status": panel.session.state.error is not None
            and panel.session.state.error.status == status,
        }
        with contextlib.suppress(AssertionError):
            one_sentence(banner)
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
        writer.write(http_answer(status, body.encode(), Retry_After=value))
        await writer.drain()

    server = raw(handler)
    point_at(window, server.base)
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
        writer.write(http_answer(200, json.dumps(answer).encode()))
        await writer.drain()

    point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    assert answer_of(panel) == "Whole answer."
    assert panel.widgets["answer"].has_content()
    assert "json_body" in finding_codes(panel)
    assert window.inspector.model.rows_with_findings()


def test_connection_refused(window: Any, send_and_wait: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    point_at(window, f"http://127.0.0.1:{port}/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    one_sentence(panel.banner.text)
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
    point_at(window, "https://gateway.invalid/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    assert asked and set(asked) == {"gateway.invalid"}
    one_sentence(panel.banner.text)
    assert "gateway.invalid" in panel.banner.text and "resolve" in panel.banner.text
    assert panel.banner.retry.isVisibleTo(panel)


def test_tls_failure_on_a_self_signed_server(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any, tmp_path: Path
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(http_answer(200, b"{}"))
        await writer.drain()

    server = raw(handler, self_signed_server_context(tmp_path))
    point_at(window, f"https://127.0.0.1:{server.port}/v1")
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    one_sentence(panel.banner.text)
    assert "TLS" in panel.banner.text or "certificate" in panel.banner.text
    assert server.requests == 0  # nothing was sent over the unverified connection


def test_no_first_byte_within_the_timeout(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    panel.session.first_byte_timeout = 0.5
    t0 = time.perf_counter()
    assert send_and_wait(panel, 10) == "failed"
    assert time.perf_counter() - t0 < 5
    one_sentence(panel.banner.text)
    assert "0.5 seconds" in panel.banner.text, panel.banner.text
