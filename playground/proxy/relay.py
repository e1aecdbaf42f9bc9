"""The proxy's ASGI app: each request relayed to the upstream, each read passed on as it arrives.

One exchange per request under the base path. The request body is read whole (it is the part a
capture needs before anything else), sent upstream with the client's headers (credentials
unchanged, hop-by-hop dropped), and the answer relayed with the upstream's status and headers,
one ASGI ``send`` per network read (``aiter_raw``: nothing is decoded or buffered on the way).
While it streams, a second task waits for the client to leave; when it does, the relay task is
cancelled, which closes the upstream connection at once. An upstream that cannot be reached gets
the client a 502 with a JSON error envelope; one that cuts the body short gets the client's
connection cut the same way (``UpstreamCut``: uvicorn closes a connection whose app raised after
the headers), so the client sees what it would have seen without the proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import httpx

from playground.protocol.redaction import scrub
from playground.proxy.bodies import facts_of
from playground.proxy.exchange import Exchange, ExchangeHub
from playground.proxy.paths import unsafe_path
from playground.proxy.upstream_reads import answering_head, trace
from playground.proxy.wire import (
    BASE_PATH,
    redact,
    redact_query,
    request_headers,
    response_headers,
    route_of,
    secrets_of,
    upstream_url,
)
from playground.transport.client import failure_of
from playground.transport.errors import TransportError

__all__ = ["Relay", "UpstreamCut", "envelope", "make_upstream_client"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CONNECT_TIMEOUT: Final = 10.0
# Reads held between the upstream and a client that reads slower than it: beyond this the
# upstream is not read until the client catches up (TCP backpressure, as without the proxy).
READ_QUEUE: Final = 64
# Headers httpx adds to every request unless told otherwise; the client's own are what goes.
_CLIENT_DEFAULTS: Final = ("user-agent", "accept")


class UpstreamCut(Exception):
    """The upstream closed the body early; raised so the server cuts the client's connection."""


class _QuietCuts(logging.Filter):
    """A cut relayed on purpose is no server error: uvicorn logs it, this drops the record."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, UpstreamCut)


logging.getLogger("uvicorn.error").addFilter(_QuietCuts())


def make_upstream_client(connect_timeout: float = CONNECT_TIMEOUT) -> httpx.AsyncClient:
    """The upstream hop's client: TLS verified against the system trust store (truststore, as
    the playground's own client), no read timeout (a stream's pauses are the upstream's to
    make: the client decides when to give up), no connection limit (every client stream gets its
    own upstream one), and no environment: no netrc credentials or proxy variables slip in."""
    import truststore

    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    timeout = httpx.Timeout(
        connect=connect_timeout, read=None, write=connect_timeout, pool=connect_timeout
    )
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    return httpx.AsyncClient(
        verify=context, timeout=timeout, limits=limits, follow_redirects=False, trust_env=False
    )


def envelope(kind: str, message: str) -> bytes:
    """The 502's body: the OpenAI-style error envelope, saying what happened upstream."""
    body = {
        "error": {
            "message": f"playground proxy: {message}",
            "type": "proxy_error",
            "code": f"upstream_{kind}",
            "param": None,
        }
    }
    return json.dumps(body).encode()


async def _json(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client left before sending it."""
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


async def _client_gone(receive: Receive) -> None:
    """Returns when the client disconnects (uvicorn says so as soon as the socket closes)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _read_upstream(response: httpx.Response, reads: asyncio.Queue[bytes | None]) -> None:
    """Each upstream read into ``reads`` as it arrives, then None; a failure raises after the
    reads that came before it are queued (the relay passes those on first)."""
    try:
        async for data in response.aiter_raw():
            if data:
                await reads.put(data)
    except asyncio.CancelledError:
        raise  # the relay is over: nobody reads the queue any more
    except BaseException:
        await reads.put(None)
        raise
    await reads.put(None)


def _pairs(raw: list[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw]


class Relay:
    """The ASGI app: ``upstream`` is the base URL that the proxy's ``/v1`` stands for."""

    def __init__(self, upstream: str, hub: ExchangeHub) -> None:
        self.upstream = upstream.rstrip("/")
        self.hub = hub
        self.client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # websockets are not relayed
        raw_path = scope.get("raw_path") or scope["path"].encode()
        path = raw_path.decode("latin-1")
        problem = unsafe_path(path)
        if problem is not None:  # never relayed: the upstream could read it as another path
            message = f"the proxy relays normalised paths only ({problem})"
            await _json(send, 400, envelope("bad_path", message).replace(b"upstream_", b""))
            return
        if path != BASE_PATH and not path.startswith(BASE_PATH + "/"):
            message = f"the proxy relays {BASE_PATH} and the paths under it, not {path}"
            await _json(send, 404, envelope("not_found", message).replace(b"upstream_", b""))
            return
        await self._exchange(scope, receive, send, path)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.client = make_upstream_client()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    with contextlib.suppress(Exception):
                        await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _exchange(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        raw_headers: list[tuple[bytes, bytes]] = [(bytes(k), bytes(v)) for k, v in scope["headers"]]
        headers = _pairs(raw_headers)
        method = str(scope["method"])
        query = bytes(scope.get("query_string", b""))
        url = upstream_url(self.upstream, path, query)
        secrets = secrets_of(headers)
        ex = Exchange(
            id=self.hub.new_id(),
            method=method,
            path=redact_query(
                scrub(path + (f"?{query.decode('latin-1')}" if query else ""), *secrets)
            ),
            route=route_of(method, path),
            url=redact_query(scrub(url, *secrets)),
            request_headers=redact(headers, secrets),
            secrets=secrets,
        )
        self.hub.start(ex)
        body = await _read_body(receive)
        if body is None:
            self.hub.end(ex, "cancelled")
            return
        content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
        ex.request_body = body
        ex.facts = facts_of(body, content_type)
        self.hub.request(ex)
        relay = asyncio.create_task(self._forward(ex, send, raw_headers, url, body))
        gone = asyncio.create_task(_client_gone(receive))
        try:
            await asyncio.wait({relay, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not relay.done():
                relay.cancel()  # the client left (or the server stops): close the upstream now
                with contextlib.suppress(BaseException):
                    await relay
                self.hub.end(ex, "cancelled")
            gone.cancel()
        if relay.cancelled():
            return
        failure = relay.exception()
        if isinstance(failure, OSError):  # a server that says "the client left" by raising
            self.hub.end(ex, "cancelled")
            return
        if failure is not None and not isinstance(failure, UpstreamCut):
            # A bug of the relay's own: the exchange still ends (and says so); uvicorn answers
            # 500 or cuts the connection, and serves the next request.
            ex.error = f"the proxy failed ({type(failure).__name__})"
            self.hub.end(ex, "failed")
        relay.result()  # re-raises UpstreamCut, so uvicorn cuts the client's connection too

    async def _forward(
        self,
        ex: Exchange,
        send: Send,
        raw_headers: list[tuple[bytes, bytes]],
        url: str,
        body: bytes,
    ) -> None:
        client = self.client
        if client is None:  # run without lifespan (a bare ASGI server): make it on first use
            client = self.client = make_upstream_client()
        forwarded = request_headers(_pairs(raw_headers))
        sent = {name.lower() for name, _ in forwarded}
        try:
            request = client.build_request(
                ex.method,
                url,
                extensions={"trace": trace},  # each read's chunks merged before h11 parses them
                headers=[(k.encode("latin-1"), v.encode("latin-1")) for k, v in forwarded],
                content=body,
            )
        except (httpx.HTTPError, ValueError) as exc:
            await self._fail(ex, send, TransportError("other", f"not a valid request ({exc})"))
            return
        for name in _CLIENT_DEFAULTS:
            if name not in sent and name in request.headers:
                del request.headers[name]
        response: httpx.Response | None = None
        ex.t0 = time.perf_counter()  # the exchange's clock starts as the request goes upstream
        answering_head.set(ex.method.upper() == "HEAD")
        try:
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                error = failure_of(exc, url, False, CONNECT_TIMEOUT, 0.0)
                await self._fail(ex, send, error or TransportError("other", repr(exc)))
                return
            await self._relay(ex, send, response, url)
        finally:
            if response is not None:
                with contextlib.suppress(Exception):
                    await response.aclose()

    async def _relay(self, ex: Exchange, send: Send, response: httpx.Response, url: str) -> None:
        raw = [(bytes(k), bytes(v)) for k, v in response.headers.raw]
        pairs = _pairs(raw)
        ex.http_status = response.status_code
        # Kept and shown: credential headers by the rule, and the client's key wherever echoed.
        ex.response_headers = redact(pairs, ex.secrets)
        ex.t_response = ex.now()
        keep = {name.lower() for name, _ in response_headers(pairs)}
        out = [(k, v) for k, v in raw if k.decode("latin-1").lower() in keep]
        await send({"type": "http.response.start", "status": response.status_code, "headers": out})
        hub = self.hub
        hub.response(ex)
        now = ex.now
        reads: asyncio.Queue[bytes | None] = asyncio.Queue(READ_QUEUE)
        reader = asyncio.create_task(_read_upstream(response, reads))
        try:
            while True:
                data = await reads.get()
                if data is None:
                    break
                # What else has arrived already goes in the same send: h11 hands one socket
                # read over as one piece per HTTP chunk, and one send per piece would cost the
                # client's throughput for no sooner a byte (nothing waits for more to come).
                more: list[bytes] = []
                ended = False
                while not reads.empty():
                    piece = reads.get_nowait()
                    if piece is None:
                        ended = True
                        break
                    more.append(piece)
                if more:
                    data = b"".join((data, *more))
                await send({"type": "http.response.body", "body": data, "more_body": True})
                hub.chunk(ex, now(), data)
                if ended:
                    break
            await reader  # re-raises the upstream's failure, if that is how it ended
        except httpx.HTTPError as exc:
            error = failure_of(exc, url, True, CONNECT_TIMEOUT, 0.0)
            ex.error_kind = error.kind if error else "dropped"
            ex.error = scrub(error.message if error else repr(exc), *ex.secrets)
            hub.end(ex, "dropped")
            raise UpstreamCut(ex.error) from None
        finally:
            if not reader.done():
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        hub.end(ex, "done")

    async def _fail(self, ex: Exchange, send: Send, error: TransportError) -> None:
        """The upstream could not be reached or did not answer: a 502 that says what happened."""
        message = scrub(error.message, *ex.secrets)
        ex.error_kind, ex.error = error.kind, message
        body = envelope(error.kind, message)
        ex.http_status = 502
        ex.response_headers = [
            ("content-type", "application/json"),
            ("content-length", str(len(body))),
        ]
        ex.t_response = ex.now()
        await _json(send, 502, body)
        self.hub.response(ex)
        self.hub.chunk(ex, ex.now(), body)
        self.hub.end(ex, "failed")
