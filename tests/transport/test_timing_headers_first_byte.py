"""Response timings from the transport: the first body byte never precedes the headers.

A 429 with its body in the same write as its headers arrives in one socket read; the headers'
time and the first byte's time must come from the same clock (the read that held them), not the
headers' from a later `now()` (a headless dump once said first_byte 0.0055 s, headers 0.0064 s).
"""

from __future__ import annotations

import asyncio

from netfakes import Conn, RecSink, serve
from test_client import spec_for

from playground.transport.blocking import stream_request_blocking
from playground.transport.client import stream_request

BODY = b'{"error":{"message":"Slow down","type":"rate_limit_error","code":429}}'
ANSWER = (
    b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
    b"Retry-After: 1\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
)


async def _one_write(conn: Conn) -> None:
    await conn.send(ANSWER)  # headers and body in one write: one read on the client


def _times(sink: RecSink) -> tuple[float, float]:
    headers = next(c[3] for c in sink.calls if c[0] == "response")
    first = next(c[1] for c in sink.calls if c[0] == "chunk")
    return headers, first


def _blocking_run() -> RecSink:
    async def main() -> RecSink:
        async with serve(_one_write) as srv:
            sink = RecSink()
            spec = spec_for(srv.base + "/v1/chat/completions")
            await asyncio.to_thread(stream_request_blocking, spec, sink, cancelled=lambda: False)
            return sink

    return asyncio.run(main())


def test_blocking_client_headers_never_after_the_first_byte() -> None:
    for _ in range(5):  # each run reads headers and body in one read; none may invert them
        sink = _blocking_run()
        assert sink.status == 429 and sink.body == BODY
        headers, first = _times(sink)
        assert 0.0 <= headers <= first


def test_async_client_headers_never_after_the_first_byte() -> None:
    async def main() -> RecSink:
        async with serve(_one_write) as srv:
            sink = RecSink()
            await stream_request(spec_for(srv.base + "/v1/chat/completions"), sink)
            return sink

    sink = asyncio.run(main())
    assert sink.status == 429 and sink.body == BODY
    headers, first = _times(sink)
    assert 0.0 <= headers <= first
