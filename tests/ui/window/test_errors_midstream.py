"""In the real window: failures during a stream, from tiny raw servers on 127.0.0.1 and the
simulator's faults: partial output kept and marked, findings in the inspector, Stop and a new
Send close the connection, the window keeps running, no dialog."""

from __future__ import annotations

import asyncio
import contextlib
import time
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
    http_chunk,
    marked_incomplete,
    one_sentence,
    point_at,
)

if TYPE_CHECKING:
    from freeze_watch import FreezeWatch

# The shared fixtures, where pytest looks for them: in this module (no dialog, raw servers).
no_dialogs = raw_servers.no_dialogs
raw = raw_servers.raw


# ---- during the stream: raw servers ------------------------------------------------------------


def test_connection_dropped_mid_event_keeps_the_partial_answer(
    window: Any, raw: Callable[..., RawServer], send_and_wait: Any
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + http_chunk(delta("Partial ") + delta("answer")))
        writer.write(http_chunk(b'data: {"id":"c","choices":[{"index":0,"del'))
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.transport.abort()  # no terminating chunk: the body is cut

    point_at(window, raw(handler).base)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "truncated"
    assert answer_of(panel) == "Partial answer"
    assert panel.widgets["answer"].has_content()
    assert marked_incomplete(panel)
    one_sentence(panel.banner.text)
    assert "Truncated" in panel.banner.text
    assert "truncated" in panel.status_line.status.text()
    codes = finding_codes(panel)
    assert "unterminated_event" in codes or "no_terminator" in codes, codes


def test_stall_is_noticed_offers_stop_and_the_ui_keeps_running(
    window: Any, raw: Callable[..., RawServer], qloop: Any, freeze_watch: FreezeWatch
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(SSE_HEAD + http_chunk(delta("Before the stall")))
        await writer.drain()
        await reader.read()  # until the client hangs up

    server = raw(handler)
    point_at(window, server.base)
    panel = window.show_panel("chat")
    panel.session.stall_seconds = 1.0
    freeze_watch.start()
    try:
        qloop.do(panel.send)
        qloop.wait_until(lambda: panel.banner.kind == "stall", 10)
        one_sentence(panel.banner.text)
        assert "stall" in panel.banner.text
        assert panel.banner.stop.isVisibleTo(panel)
        assert answer_of(panel) == "Before the stall"
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
    assert answer_of(panel) == "Before the stall"


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
                writer.write(http_chunk(delta("w ")))
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                await asyncio.sleep(0.01)
        hung_up.append(time.perf_counter())

    server = raw(until_eof)
    point_at(window, server.base)
    panel = window.show_panel("chat")
    qloop.do(panel.send)
    if phase == "before-headers":
        qloop.wait_until(lambda: server.requests == 1, 10)
        qloop.sleep(0.1)
    else:
        qloop.wait_until(lambda: len(answer_of(panel)) > 10, 10)
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
    one_sentence(panel.banner.text)
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
    assert marked_incomplete(panel), f"{route}: {shown} on screen, not marked incomplete"


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
    codes = finding_codes(panel)
    if code is not None:
        assert code in codes, codes
    elif fault == "garbage":
        assert codes, "binary garbage passed without a finding"
    rows = window.inspector.model.rows_with_findings()
    if codes and any(f.item is not None for f in panel.session.decoder.state.findings):
        assert rows
    if result != "complete":
        one_sentence(panel.banner.text)
        shown = [name for name, w in panel.widgets.items() if w.has_content()]
        assert marked_incomplete(panel), f"{shown} on screen, not marked incomplete"


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
    assert answer_of(panel)
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
            writer.write(http_chunk(delta(f"{me} ")))
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            await asyncio.sleep(0.01)
        hung_up.append(me)

    point_at(window, raw(endless).base)
    panel = window.show_panel("chat")
    qloop.do(panel.send)
    qloop.wait_until(lambda: len(answer_of(panel)) > 4, 10)
    first = panel.session._task
    qloop.do(panel.send)
    qloop.wait_until(lambda: 1 in hung_up, 2)
    assert first.done()
    qloop.wait_until(lambda: "2 " in answer_of(panel), 5)
    assert "1 " not in answer_of(panel)  # the second run's text only
    assert panel.session.is_running
    qloop.do(panel.stop)
    qloop.wait_until(lambda: 2 in hung_up, 2)
