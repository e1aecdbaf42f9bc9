"""The streaming client against real misbehaving servers on 127.0.0.1: each failure, its kind."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from netfakes import Conn, RecSink, serve
from tls_helpers import self_signed_server_context

from playground.protocol.requests import RequestParams, build_body
from playground.transport.client import stream_request
from playground.transport.errors import TRANSPORT_ERROR_KINDS
from playground.transport.providers import provider_by_id
from playground.transport.spec import RequestSpec, is_loopback_url, make_spec

KEY = "sk-test-SECRET-4f9a1c77e2"


def spec_for(url: str, key: str | None = KEY, **kw: Any) -> RequestSpec:
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return RequestSpec("custom", "POST", url, headers, {"model": "m", "stream": True}, **kw)


def assert_clean(sink: RecSink) -> None:
    """The key appears nowhere in what the sink was told, and on_end came last, once."""
    assert KEY not in repr(sink.calls)
    assert sink.kinds[-1] == "end" and sink.kinds.count("end") == 1
    assert sink.kinds[0] == "request"
    if sink.error is not None:
        assert sink.error.kind in TRANSPORT_ERROR_KINDS
        assert "Traceback" not in sink.error.message
        assert sink.error.message.endswith(".")


def test_streams_chunks_with_real_arrival_times() -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        for i in range(3):
            await conn.chunk(f"data: {i}\n\n".encode())
            await asyncio.sleep(0.05)
        await conn.end_chunked()

    async def main() -> tuple[RecSink, Conn]:
        async with serve(handler) as srv:
            sink = RecSink()
            await stream_request(spec_for(srv.base + "/v1/chat/completions"), sink)
            return sink, srv.conns[0]

    sink, conn = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is None and sink.status == 200
    assert sink.body == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"
    times = [c[1] for c in sink.calls if c[0] == "chunk"]
    assert len(times) == 3 and times == sorted(times) and times[2] - times[0] >= 0.08
    # The request went out as built, with identity encoding so chunks are the server's bytes.
    assert conn.headers["accept-encoding"] == "identity"
    assert conn.headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(conn.body) == {"model": "m", "stream": True}
    # ...while the sink only ever saw the redacted headers.
    request = sink.calls[0]
    assert request[3]["Authorization"] == "Bearer [redacted]"
    assert json.loads(request[4]) == {"model": "m", "stream": True}


def test_connection_refused() -> None:
    # A socket bound but not listening: connecting to it is refused, and no one else can take it.
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    port = blocker.getsockname()[1]
    try:
        sink = RecSink()
        asyncio.run(stream_request(spec_for(f"http://127.0.0.1:{port}/v1/x"), sink))
    finally:
        blocker.close()
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "connect_refused"
    assert f"127.0.0.1:{port}" in sink.error.message
    assert sink.kinds == ["request", "error", "end"]


def test_dropped_mid_event_keeps_what_arrived() -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b'data: {"a": 1}\n\n')
        await conn.chunk(b'data: {"half')
        conn.writer.transport.abort()  # no terminating chunk: the body is incomplete

    async def main() -> RecSink:
        async with serve(handler) as srv:
            sink = RecSink()
            await stream_request(spec_for(srv.base + "/v1/x"), sink)
            return sink

    sink = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "dropped"
    assert "middle of the stream" in sink.error.message
    assert sink.body == b'data: {"a": 1}\n\ndata: {"half'


def test_closed_before_answering_is_dropped() -> None:
    async def handler(conn: Conn) -> None:
        conn.writer.close()

    async def main() -> RecSink:
        async with serve(handler) as srv:
            sink = RecSink()
            await stream_request(spec_for(srv.base + "/v1/x"), sink)
            return sink

    sink = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "dropped"
    assert sink.status is None


def test_stall_watchdog_after_first_bytes() -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b"data: 1\n\n")
        await asyncio.sleep(10)

    async def main() -> tuple[RecSink, float]:
        async with serve(handler) as srv:
            sink = RecSink()
            start = time.perf_counter()
            await stream_request(spec_for(srv.base + "/v1/x"), sink, stall_timeout=0.3)
            return sink, time.perf_counter() - start

    sink, elapsed = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "stall"
    assert "0.3 seconds" in sink.error.message
    assert sink.body == b"data: 1\n\n"
    assert 0.25 < elapsed < 2.0


@pytest.mark.parametrize("send_headers", [False, True])
def test_slow_first_byte(send_headers: bool) -> None:
    async def handler(conn: Conn) -> None:
        if send_headers:
            await conn.start_chunked()
        await asyncio.sleep(10)

    async def main() -> tuple[RecSink, float]:
        async with serve(handler) as srv:
            sink = RecSink()
            start = time.perf_counter()
            await stream_request(spec_for(srv.base + "/v1/x"), sink, first_byte_timeout=0.3)
            return sink, time.perf_counter() - start

    sink, elapsed = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "timeout_first_byte"
    assert "within 0.3 seconds" in sink.error.message
    assert (sink.status == 200) is send_headers
    assert 0.25 < elapsed < 2.0


BODIES = {
    "json": (b'{"error": {"message": "Bad thing happened", "code": 1}}', "application/json"),
    "bare": (b'{"message": "No API key provided"}', "application/json"),
    "text": (b"<html>upstream broke</html>", "text/html"),
    "empty": (b"", "application/json"),
}
STATUSES = [400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504]


def test_http_errors_deliver_status_headers_and_body() -> None:
    cases = [(s, b) for s in STATUSES for b in BODIES]

    async def handler(conn: Conn) -> None:
        status, which = json.loads(conn.body)["case"]
        body, ctype = BODIES[which]
        extra = "Retry-After: 7\r\n" if status in (429, 503) else ""
        await conn.send(
            f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            f"{extra}\r\n".encode()
            + body
        )

    async def main() -> list[RecSink]:
        sinks = []
        async with serve(handler) as srv, httpx.AsyncClient() as client:
            for case in cases:
                spec = spec_for(srv.base + "/v1/x")
                spec.json_body = {"case": list(case)}
                sink = RecSink()
                await stream_request(spec, sink, client=client)
                sinks.append(sink)
        return sinks

    for (status, which), sink in zip(cases, asyncio.run(main())):
        assert_clean(sink)
        assert sink.error is None
        assert sink.status == status
        assert sink.body == BODIES[which][0]
        headers = dict(next(c for c in sink.calls if c[0] == "response")[2])
        assert headers.get("retry-after") == ("7" if status in (429, 503) else None)


def test_tls_verification_fails_on_self_signed(tmp_path: Path) -> None:
    context = self_signed_server_context(tmp_path)

    async def handler(conn: Conn) -> None:  # never reached: the handshake fails first
        await conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    async def main() -> tuple[RecSink, int]:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, _ctx: None)  # the server's handshake error
        async with serve(handler, ssl=context) as srv:
            sink = RecSink()
            await stream_request(spec_for(f"https://127.0.0.1:{srv.port}/v1/x"), sink)
            return sink, len(srv.conns)

    sink, served = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "tls"
    assert "could not be verified" in sink.error.message
    assert served == 0 and sink.status is None


def test_dns_failure_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    # RFC 2606: .invalid never resolves; the lookup is answered here so nothing leaves the machine.
    asked: list[str] = []
    real = socket.getaddrinfo

    def fake_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)  # anyio passes idna bytes
        if name not in ("127.0.0.1", "localhost", "::1"):
            asked.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    sink = RecSink()
    asyncio.run(stream_request(spec_for("https://gateway.invalid/v1/x"), sink))
    assert asked == ["gateway.invalid"]
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "dns"
    assert "gateway.invalid" in sink.error.message


@pytest.mark.parametrize("shared_client", [False, True])
def test_cancellation_closes_the_connection_within_200ms(shared_client: bool) -> None:
    async def handler(conn: Conn) -> None:
        await conn.start_chunked()
        await conn.chunk(b"data: 1\n\n")
        # The server now waits for the client to hang up: read() returns b"" on close.
        start = time.perf_counter()
        await conn.reader.read()
        conn.closed_after = time.perf_counter() - start  # type: ignore[attr-defined]
        conn.closed_at = time.perf_counter()  # type: ignore[attr-defined]

    async def main() -> tuple[RecSink, float, float]:
        async with serve(handler) as srv, httpx.AsyncClient() as client:
            sink = RecSink()
            task = asyncio.create_task(
                stream_request(
                    spec_for(srv.base + "/v1/x"), sink, client=client if shared_client else None
                )
            )
            await asyncio.wait_for(sink.first_chunk.wait(), 5)
            cancelled_at = time.perf_counter()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            task_done = time.perf_counter() - cancelled_at
            conn = srv.conns[0]
            for _ in range(100):
                if hasattr(conn, "closed_at"):
                    break
                await asyncio.sleep(0.005)
            server_saw = conn.closed_at - cancelled_at  # type: ignore[attr-defined]
            return sink, task_done, server_saw

    sink, task_done, server_saw = asyncio.run(main())
    assert task_done < 0.2
    assert server_saw < 0.2
    assert sink.kinds[-1] == "end" and sink.error is None


class CountingTransport(httpx.AsyncBaseTransport):
    """A mock transport: records the requests that would have gone out, answers 200."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, stream=OneChunk())


class OneChunk(httpx.AsyncByteStream):
    async def __aiter__(self) -> Any:
        yield b"data: ok\n\n"


@pytest.mark.parametrize(
    ("url", "key", "allow", "sent"),
    [
        ("http://gateway.example.com/v1/x", KEY, False, False),  # refused: key in clear text
        ("http://gateway.example.com/v1/x", KEY, True, True),  # the user said yes
        ("http://gateway.example.com/v1/x", None, False, True),  # no key, nothing to leak
        ("https://gateway.example.com/v1/x", KEY, False, True),
        ("http://127.0.0.1:9/v1/x", KEY, False, True),  # loopback is this machine
        ("http://localhost:9/v1/x", KEY, False, True),
    ],
)
def test_plain_http_key_refused_without_connecting(
    url: str, key: str | None, allow: bool, sent: bool
) -> None:
    transport = CountingTransport()

    async def main() -> RecSink:
        sink = RecSink()
        async with httpx.AsyncClient(transport=transport) as client:
            await stream_request(spec_for(url, key, allow_insecure_key=allow), sink, client=client)
        return sink

    sink = asyncio.run(main())
    assert_clean(sink)
    assert len(transport.requests) == (1 if sent else 0)
    if sent:
        assert sink.error is None and sink.body == b"data: ok\n\n"
    else:
        assert sink.error is not None and sink.error.kind == "insecure_key_refused"
        assert sink.kinds == ["request", "error", "end"]


def test_x_api_key_is_a_key_too() -> None:
    transport = CountingTransport()
    spec = make_spec(
        provider_by_id("anthropic"),
        "messages",
        build_body("messages", RequestParams(model="m", prompt="hi")),
        KEY,
        base_url="http://gateway.example.com/v1",
    )
    assert spec is not None
    assert spec.redacted_headers()["x-api-key"] == "[redacted]"
    assert spec.redacted_headers()["anthropic-version"] == "2023-06-01"

    async def main() -> RecSink:
        sink = RecSink()
        async with httpx.AsyncClient(transport=transport) as client:
            await stream_request(spec, sink, client=client)
        return sink

    sink = asyncio.run(main())
    assert sink.error is not None and sink.error.kind == "insecure_key_refused"
    assert transport.requests == []
    assert_clean(sink)


def test_multipart_upload_reaches_the_server() -> None:
    async def handler(conn: Conn) -> None:
        await conn.send(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )

    async def main() -> tuple[RecSink, Conn]:
        async with serve(handler) as srv:
            spec = make_spec(
                provider_by_id("custom"),
                "transcription",
                build_body("transcription", RequestParams(model="whisper", language="en")),
                KEY,
                base_url=srv.base + "/v1",
                files=[("file", ("hello.wav", b"RIFF....WAVEdata", "audio/wav"))],
            )
            assert spec is not None
            sink = RecSink()
            await stream_request(spec, sink)
            return sink, srv.conns[0]

    sink, conn = asyncio.run(main())
    assert_clean(sink)
    assert conn.head.startswith(b"POST /v1/audio/transcriptions ")
    assert conn.headers["content-type"].startswith("multipart/form-data")
    assert b"RIFF....WAVEdata" in conn.body and b'name="stream"\r\n\r\ntrue' in conn.body
    view = json.loads(sink.calls[0][4])
    assert view["file"] == "@hello.wav (16 bytes)" and view["language"] == "en"


def test_is_loopback_url() -> None:
    assert is_loopback_url("http://127.0.0.1:8000/v1")
    assert is_loopback_url("http://127.5.0.1/v1")
    assert is_loopback_url("http://[::1]:80/v1")
    assert is_loopback_url("http://localhost/v1")
    assert not is_loopback_url("http://10.0.0.1/v1")
    assert not is_loopback_url("http://localhost.example.com/v1")
    assert not is_loopback_url("http://127.0.0.1.nip.io/v1")


def test_cancellation_before_the_answer_closes_too() -> None:
    async def handler(conn: Conn) -> None:
        await conn.reader.read()  # never answers; returns when the client hangs up
        conn.closed_at = time.perf_counter()  # type: ignore[attr-defined]

    async def main() -> tuple[RecSink, float, float]:
        async with serve(handler) as srv:
            sink = RecSink()
            task = asyncio.create_task(stream_request(spec_for(srv.base + "/v1/x"), sink))
            for _ in range(400):
                if srv.conns:
                    break
                await asyncio.sleep(0.005)
            cancelled_at = time.perf_counter()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            task_done = time.perf_counter() - cancelled_at
            for _ in range(100):
                if hasattr(srv.conns[0], "closed_at"):
                    break
                await asyncio.sleep(0.005)
            return sink, task_done, srv.conns[0].closed_at - cancelled_at  # type: ignore[attr-defined]

    sink, task_done, server_saw = asyncio.run(main())
    assert task_done < 0.2 and server_saw < 0.2
    assert sink.kinds == ["request", "end"]


class RaisingTransport(httpx.AsyncBaseTransport):
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise self.exc


@pytest.mark.parametrize(
    ("exc", "kind", "words"),
    [
        (httpx.ConnectTimeout("timed out"), "timeout_connect", "within 10 seconds"),
        (httpx.ConnectError(f"weird failure with {KEY}"), "other", "Could not connect"),
        (httpx.UnsupportedProtocol("nope"), "other", "not a valid http"),
        (httpx.RemoteProtocolError("bad"), "dropped", "before answering"),
    ],
)
def test_other_failures_are_named(exc: Exception, kind: str, words: str) -> None:
    async def main() -> RecSink:
        sink = RecSink()
        async with httpx.AsyncClient(transport=RaisingTransport(exc)) as client:
            await stream_request(spec_for("https://gw.example.com/v1/x"), sink, client=client)
        return sink

    sink = asyncio.run(main())
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == kind and words in sink.error.message


@pytest.mark.parametrize("url", ["http://", "ftp://example.com/v1/x", "not a url"])
def test_bad_urls_are_one_sentence(url: str) -> None:
    sink = RecSink()
    asyncio.run(stream_request(spec_for(url, key=None), sink))
    assert_clean(sink)
    assert sink.error is not None and sink.error.kind == "other"
    assert sink.error.message == "The URL is not a valid http or https address."
