"""In the real window: odd answers a real gateway or proxy can give, and long or multi-line error
messages, each said plainly in one readable sentence; a simulator stall that then completes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
import raw_servers
from raw_servers import (
    SSE_HEAD,
    RawServer,
    answer_of,
    delta,
    finding_codes,
    http_answer,
    http_chunk,
    one_sentence,
    point_at,
)

if TYPE_CHECKING:
    from freeze_watch import FreezeWatch

# The shared fixtures, where pytest looks for them: in this module (no dialog, raw servers).
no_dialogs = raw_servers.no_dialogs
raw = raw_servers.raw


# ---- odd answers a real gateway or proxy can give ----------------------------------------------

_GOOD_SSE = delta("Hello") + b"data: [DONE]\n\n"
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
        http_answer(500, b"<html>" + b"x" * (2 * 1024 * 1024) + b"</html>", "text/html"),
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

    point_at(window, raw(handler).base)
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
    assert status in allowed, (name, status, finding_codes(panel))
    if status != "complete":
        one_sentence(panel.banner.text)
    else:
        assert answer_of(panel) == "Hello"
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
        body = delta("Partial") + b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"
        writer.write(SSE_HEAD + http_chunk(body) + b"0\r\n\r\n")
        await writer.drain()

    point_at(window, raw(handler).base)
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
    assert answer_of(panel) == "Partial"
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
        status: str = await panel.session.wait()
        return status

    assert qloop.run(watch(), 30) == "complete"
    qloop.sleep(0.05)
    assert seen, "the stall was never reported"
    assert panel.banner.kind != "stall" and not panel.banner.isVisibleTo(panel)
    assert answer_of(panel) or panel.session.state.reasoning
