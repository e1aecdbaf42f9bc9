"""StreamSession on the real simulator and a raw local server: batching, stop, new send, errors."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from playground.protocol.requests import RequestParams, build_body
from playground.protocol.stream import StreamDecoder
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


def _spec(sim: Any, route: str, headers: dict[str, str] | None = None, **params: Any) -> Any:
    body = build_body(route, RequestParams(model="sim-chat", prompt="Say something.", **params))
    extra = {"X-Sim-Pace": "fast", **(headers or {})}
    return make_spec(
        provider_by_id("simulator"), route, body, None, base_url=sim.base_url, sim_headers=extra
    )


def _redecode(route: str, chunks: list[tuple[float, bytes]]) -> StreamDecoder:
    decoder = StreamDecoder(route)
    decoder.set_content_type("text/event-stream")
    for t, data in chunks:
        decoder.feed(data, t)
    decoder.finish(chunks[-1][0] if chunks else 0.0)
    return decoder


def test_chat_run_folds_every_chunk_and_batches_updates(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat")
    updates: list[int] = []
    finished: list[str] = []
    seen_items: list[int] = []

    def on_update() -> None:
        updates.append(len(session.new_items()))
        seen_items.extend(i.index for i in session.new_items())

    session.updated.connect(on_update)
    session.finished.connect(finished.append)
    qloop.do(session.start, _spec(sim, "chat", {"X-Sim-Tokens": "200"}))
    status = qloop.run(session.wait())
    qloop.sleep(0.03)
    assert status == "complete" and finished == ["complete"]
    run = session.run
    assert run.status == 200 and run.t_first_byte is not None and run.t_first_token is not None
    again = _redecode("chat", run.chunks)
    assert session.state is not None
    assert session.state.text == again.state.text and len(session.state.text) > 100
    # Every timeline item reached an `updated` exactly once, in order.
    assert session.decoder is not None
    assert seen_items == list(range(len(session.decoder.items)))
    # Coalesced: far fewer updates than events (one per frame, not one per chunk).
    assert len(updates) < session.state.events


def test_http_error_is_parsed_before_the_stream(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat")
    qloop.do(session.start, _spec(sim, "chat", {"X-Sim-Fault": "http-429"}))
    assert qloop.run(session.wait()) == "failed"
    state = session.state
    assert state is not None and state.error is not None
    assert state.error.status == 429
    assert "Rate limit" in state.error.message
    assert session.run.retry_after is not None
    assert session.run.http_error is not None and "429" in session.run.http_error


class SlowServer:
    """A raw local SSE server that writes an event every 20 ms and notes when the client left."""

    def __init__(self) -> None:
        self.closed_at: float | None = None
        self.connections = 0
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readuntil(b"\r\n\r\n")
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        eof = asyncio.ensure_future(reader.read())  # resolves when the client closes its side
        try:
            n = 0
            while not eof.done():
                data = b'data: {"choices":[{"index":0,"delta":{"content":"tok "}}]}\n\n'
                writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
                n += 1
                await asyncio.wait([eof], timeout=0.02)
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed_at = time.perf_counter()
            eof.cancel()
            writer.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def test_stop_cancels_within_200_ms_and_closes_the_connection(qloop: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    server = SlowServer()
    qloop.run(server.start())
    try:
        session = StreamSession("chat")
        spec = make_spec(
            provider_by_id("custom"),
            "chat",
            {"model": "m", "stream": True, "messages": []},
            None,
            base_url=f"http://127.0.0.1:{server.port}/v1",
        )
        finished: list[str] = []
        session.finished.connect(finished.append)
        qloop.do(session.start, spec)
        qloop.wait_until(lambda: session.state is not None and len(session.state.text) > 20)
        t0 = time.perf_counter()
        qloop.do(session.stop)
        assert finished == ["cancelled"]  # said at once
        qloop.wait_until(lambda: not session.is_running, timeout=1.0)
        qloop.wait_until(lambda: server.closed_at is not None, timeout=1.0)
        assert server.closed_at is not None and server.closed_at - t0 < 0.2
        assert time.perf_counter() - t0 < 0.5
        assert session.state is not None and session.state.status == "cancelled"
        assert session.state.text.startswith("tok tok")  # the partial output is kept
    finally:
        qloop.run(server.stop())


def test_new_start_cancels_the_running_one(qloop: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    server = SlowServer()
    qloop.run(server.start())
    try:
        session = StreamSession("chat")
        spec = make_spec(
            provider_by_id("custom"),
            "chat",
            {"model": "m", "stream": True, "messages": []},
            None,
            base_url=f"http://127.0.0.1:{server.port}/v1",
        )

        assert spec is not None

        async def scenario() -> None:
            # One continuous loop run, as in the app: a qasync loop stopped and restarted while a
            # cancelled stream winds down would run anyio's callbacks outside the loop.
            session.start(spec)
            while session.state is None or len(session.state.text) <= 8:
                await asyncio.sleep(0.01)
            first_task = session._task
            first_decoder = session.decoder
            session.start(spec)
            assert first_task is not None
            async with asyncio.timeout(1.0):
                while not first_task.done():
                    await asyncio.sleep(0.005)
            assert first_task.cancelled()
            assert session.decoder is not first_decoder
            async with asyncio.timeout(2.0):
                while not (server.connections == 2 and server.closed_at is not None):
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            assert session.is_running  # the second run goes on
            await session.aclose()
            assert not session.is_running

        qloop.run(scenario())
    finally:
        qloop.run(server.stop())


def test_stall_watchdog_reports_without_blocking(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat", stall_seconds=0.5)
    stalls: list[float] = []
    session.stalled.connect(stalls.append)
    qloop.do(
        session.start, _spec(sim, "chat", {"X-Sim-Fault": "stall", "X-Sim-Stall-Seconds": "1.5"})
    )
    ticks = 0

    async def count_ticks() -> None:
        nonlocal ticks
        while session.is_running:
            ticks += 1
            await asyncio.sleep(0.01)

    qloop.run(count_ticks(), 20)
    assert any(s >= 0.5 for s in stalls)
    assert ticks > 50  # the loop kept turning while the server said nothing
    assert session.state is not None and session.state.status == "complete"


class _RecordingSink:
    """A history-like RunSink: every call, in order, with the thread it came on."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.chunks: list[tuple[float, bytes]] = []
        self.finished: list[str | None] = []

    def _note(self, name: str) -> None:
        import threading

        self.calls.append((name, threading.get_ident()))

    def on_request(self, method: str, url: str, headers: Any, body: Any) -> None:
        self._note("request")

    def on_response(self, status: int, headers: Any, t: float) -> None:
        self._note("response")

    def on_chunk(self, t: float, data: bytes) -> None:
        self._note("chunk")
        self.chunks.append((t, data))

    def on_transport_error(self, error: Any, t: float) -> None:
        self._note("error")

    def on_end(self, t: float) -> None:
        self._note("end")

    def finish(self, status: str | None = None, **_: Any) -> None:
        self.finished.append(status)


def test_bytes_are_read_off_the_ui_thread_but_sinks_hear_them_on_it(qloop: Any, sim: Any) -> None:
    import threading

    from playground.transport import reader as reader_module
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat")
    recorder = _RecordingSink()
    session.recorder_factory = lambda spec: recorder
    readers: list[int] = []
    original = reader_module.ThreadedReader.on_chunk

    def spy(self: Any, t: float, data: bytes) -> None:
        readers.append(threading.get_ident())
        original(self, t, data)

    reader_module.ThreadedReader.on_chunk = spy  # type: ignore[method-assign]
    try:
        qloop.do(session.start, _spec(sim, "chat", {"X-Sim-Tokens": "300"}))
        assert qloop.run(session.wait()) == "complete"
    finally:
        reader_module.ThreadedReader.on_chunk = original  # type: ignore[method-assign]
    ui = threading.get_ident()
    # The network reads happened on the reader thread...
    assert readers and ui not in readers
    # ...and every RunSink call reached the journal on the UI thread, in the contract's order.
    names = [name for name, _ in recorder.calls]
    assert {thread for _, thread in recorder.calls} == {ui}
    assert names[:2] == ["request", "response"] and names[-1] == "end"
    assert set(names[2:-1]) == {"chunk"}
    assert recorder.finished == ["complete"]
    # The journal may get neighbouring reads merged (JOURNAL_MERGE_S): the same bytes, in order,
    # at times that only move forward and never earlier than the reads they hold.
    run = session.run
    assert b"".join(d for _, d in recorder.chunks) == b"".join(d for _, d in run.chunks)
    times = [t for t, _ in recorder.chunks]
    assert times == sorted(times) and times[-1] == run.chunks[-1][0]
    assert len(recorder.chunks) <= len(run.chunks)


def test_an_unexpected_error_in_the_reader_fails_the_run(qloop: Any, sim: Any) -> None:
    from playground.transport import reader as reader_module
    from playground.ui.runtime.session import StreamSession

    def broken(self: Any) -> None:  # the reader thread's read (no loop of its own)
        raise RuntimeError("a bug below the session")

    session = StreamSession("chat")
    original = reader_module.ThreadedReader._read
    reader_module.ThreadedReader._read = broken  # type: ignore[method-assign]
    try:
        qloop.do(session.start, _spec(sim, "chat"))
        assert qloop.run(session.wait()) == "failed"
    finally:
        reader_module.ThreadedReader._read = original  # type: ignore[method-assign]
    assert session.state is not None and session.state.error is not None
    assert "unexpectedly" in session.state.error.message
    assert not session.is_running
