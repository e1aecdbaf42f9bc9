"""The blocking client (the window's reader thread) against real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from netfakes import Conn, RecSink, serve
from test_client import KEY, assert_clean, spec_for

from playground.transport.blocking import stream_request_blocking


def _never() -> bool:
    return False


async def _run(url: str, sink: RecSink, **kw: Any) -> None:
    kw.setdefault("cancelled", _never)
    await asyncio.to_thread(stream_request_blocking, spec_for(url), sink, **kw)


def _served(handler: Callable[[Conn], Awaitable[None]], path: str = "/v1/x") -> RecSink:
    """One blocking run against ``handler`` on a local server: what the sink heard."""

    async def main() -> RecSink:
        async with serve(handler) as srv:
            sink = RecSink()
            await _run(srv.base + path, sink)
            return sink

    return asyncio.run(main())


def test_the_pieces_of_one_socket_read_reach_the_sink_as_one_chunk() -> None:
    events = [f"data: {i}\n\n".encode() for i in range(15)]

    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        for group in range(3):
            # Five HTTP chunks in one write: they arrive in one read, one piece each for h11.
            pieces = events[group * 5 : group * 5 + 5]
            await conn.send(b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces))
            await asyncio.sleep(0.1)
        await conn.end_chunked()

    sink = _served(handler, "/v1/chat/completions")
    assert_clean(sink)
    assert sink.error is None and sink.status == 200
    assert sink.body == b"".join(events)
    chunks = [c for c in sink.calls if c[0] == "chunk"]
    # Per HTTP chunk this would be 15 calls; per socket read it is one per write.
    assert 1 <= len(chunks) <= 3
    times = [c[1] for c in chunks]
    assert times == sorted(times)


def test_a_body_split_over_reads_keeps_every_byte_in_order() -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b'data: {"a": 1}\n\n')
        await asyncio.sleep(0.05)
        await conn.send(b'10\r\ndata: {"b": 2}')  # half an HTTP chunk...
        await asyncio.sleep(0.05)
        await conn.send(b"\n\n\r\n")  # ...and its end
        await conn.end_chunked()

    sink = _served(handler)
    assert_clean(sink)
    assert sink.error is None
    assert sink.body == b'data: {"a": 1}\n\ndata: {"b": 2}\n\n'


def test_first_byte_deadline_and_stall_timeout() -> None:
    async def silent(conn: Conn) -> None:
        await conn.start_chunked()
        await asyncio.sleep(10)

    async def stalls(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b"data: 1\n\n")
        await asyncio.sleep(10)

    async def main() -> tuple[RecSink, RecSink]:
        first, stall = RecSink(), RecSink()
        async with serve(silent) as srv:
            await _run(srv.base + "/v1/x", first, first_byte_timeout=0.3)
        async with serve(stalls) as srv:
            await _run(srv.base + "/v1/x", stall, stall_timeout=0.3)
        return first, stall

    first, stall = asyncio.run(main())
    assert_clean(first)
    assert first.error is not None and first.error.kind == "timeout_first_byte"
    assert "within 0.3 seconds" in first.error.message
    assert_clean(stall)
    assert stall.error is not None and stall.error.kind == "stall"
    assert stall.body == b"data: 1\n\n"


def test_dropped_mid_stream_keeps_what_arrived() -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b'data: {"a": 1}\n\n')
        await conn.chunk(b'data: {"half')
        conn.writer.transport.abort()

    sink = _served(handler)
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "dropped"
    assert "middle of the stream" in sink.error.message
    assert sink.body == b'data: {"a": 1}\n\ndata: {"half'


def test_cancel_closes_the_connection_and_reports_no_error() -> None:
    stop = threading.Event()

    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b"data: 1\n\n")
        await conn.reader.read()  # returns when the client hangs up
        conn.hung_up = True  # type: ignore[attr-defined]

    async def main() -> tuple[RecSink, bool]:
        async with serve(handler) as srv:
            sink = RecSink()
            running = asyncio.ensure_future(_run(srv.base + "/v1/x", sink, cancelled=stop.is_set))
            while not any(c[0] == "chunk" for c in sink.calls):
                await asyncio.sleep(0.01)
            stop.set()
            await running
            for _ in range(200):
                if getattr(srv.conns[0], "hung_up", False):
                    break
                await asyncio.sleep(0.01)
            return sink, getattr(srv.conns[0], "hung_up", False)

    sink, hung_up = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is None
    assert sink.kinds == ["request", "response", "chunk", "end"]
    assert hung_up


def test_refused_and_insecure_key_are_reported_like_the_async_client() -> None:
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    port = blocker.getsockname()[1]
    try:
        refused = RecSink()
        stream_request_blocking(
            spec_for(f"http://127.0.0.1:{port}/v1/x"), refused, cancelled=_never
        )
    finally:
        blocker.close()
    assert_clean(refused)
    assert refused.error is not None and refused.error.kind == "connect_refused"
    assert refused.kinds == ["request", "error", "end"]

    insecure = RecSink()
    stream_request_blocking(spec_for("http://10.1.2.3:9/v1/x", KEY), insecure, cancelled=_never)
    assert insecure.error is not None and insecure.error.kind == "insecure_key_refused"
    assert insecure.kinds == ["request", "error", "end"]


class _CountingSocket(socket.socket):
    """A real socket that counts its settimeout calls (each is two fcntl calls, GIL released)."""

    settimeouts = 0

    def settimeout(self, value: float | None) -> None:
        type(self).settimeouts += 1
        super().settimeout(value)


def test_the_wire_reads_the_socket_setting_its_timeout_only_when_it_changes() -> None:
    import httpcore
    import pytest
    from httpcore._backends.sync import SyncStream

    from playground.transport.blocking import _socket_read

    left, right = socket.socketpair()
    ours = _CountingSocket(left.family, left.type, fileno=left.detach())
    try:
        read = _socket_read(SyncStream(ours))
        assert read is not None
        for i in range(50):
            right.sendall(b"data: %d\n\n" % i)
            assert read(65536, 0.5) == b"data: %d\n\n" % i
        assert _CountingSocket.settimeouts == 1  # httpcore's own read: 50
        ours.settimeout(10.0)  # a write in between set another timeout: the next read resets it
        with pytest.raises(httpcore.ReadTimeout):
            read(65536, 0.05)
        assert ours.gettimeout() == 0.05 and _CountingSocket.settimeouts == 3
        right.close()
        assert read(65536, 0.5) == b""  # the peer closed: end of stream, as httpcore gives it
        ours.close()
        with pytest.raises(httpcore.ReadError):
            read(65536, 0.5)
    finally:
        ours.close()
        right.close()
    assert _socket_read(object()) is None  # any other stream keeps its own read
