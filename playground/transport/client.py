"""The async streaming client: one request over httpx, raw bytes and arrival times to a sink.

The sink gets the calls of ``playground.transport.pipeline.RunSink``, in its order. For a
status >= 400 the body still comes through ``on_chunk``; ``describe_http_error`` from
``playground.transport.errors`` gives the one-line message.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from playground.protocol.redaction import scrub
from playground.transport.errors import TransportError
from playground.transport.pipeline import RunSink
from playground.transport.spec import RequestSpec, key_travels_unencrypted

__all__ = [
    "build_wire_request",
    "failure_of",
    "insecure_key_refusal",
    "make_client",
    "report_failure",
    "stream_request",
]

USER_AGENT = "playground/0.1 (+httpx)"


def make_client(connect_timeout: float = 10.0) -> httpx.AsyncClient:
    """An AsyncClient that verifies TLS against the system trust store (truststore), always."""
    import truststore

    context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # read=None: the first-byte deadline and the stall watchdog are ours (see stream_request).
    timeout = httpx.Timeout(
        connect=connect_timeout, read=None, write=connect_timeout, pool=connect_timeout
    )
    return httpx.AsyncClient(verify=context, timeout=timeout, follow_redirects=False)


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _host(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or "the server"
    return f"{host}:{parts.port}" if parts.port else host


def _classify_connect(exc: BaseException, url: str) -> TransportError:
    """Map a failed connection to a kind by its real cause (OS error, SSL error)."""
    host = _host(url)
    chain = _causes(exc)
    text = " ".join(str(c) for c in chain)
    if (
        any(isinstance(c, ssl.SSLCertVerificationError) for c in chain)
        or "CERTIFICATE_VERIFY" in text
    ):
        return TransportError(
            "tls",
            f"The TLS certificate of {host} could not be verified, so nothing was sent "
            "(self-signed, expired or for another name).",
        )
    if any(isinstance(c, ssl.SSLError) for c in chain):
        return TransportError(
            "tls", f"The secure (TLS) connection to {host} failed, so nothing was sent."
        )
    if any(isinstance(c, socket.gaierror) for c in chain):
        return TransportError(
            "dns", f"The name {urlsplit(url).hostname} does not resolve (DNS lookup failed)."
        )
    if any(isinstance(c, ConnectionRefusedError) for c in chain) or any(
        isinstance(c, OSError) and c.errno == errno.ECONNREFUSED for c in chain
    ):
        return TransportError(
            "connect_refused", f"{host} refused the connection: nothing is listening there."
        )
    return TransportError("other", f"Could not connect to {host} ({type(exc).__name__}).")


def failure_of(
    exc: BaseException,
    url: str,
    answered: bool,
    connect_timeout: float,
    first_byte_timeout: float,
) -> TransportError | None:
    """The TransportError a failed request reports (None: not a transport failure, re-raise).

    One mapping for the async and the blocking client (``answered``: the headers had arrived).
    """
    if isinstance(exc, TimeoutError):
        return TransportError(
            "timeout_first_byte",
            f"No answer from {_host(url)} within {first_byte_timeout:g} seconds.",
        )
    if isinstance(exc, httpx.ConnectTimeout):
        return TransportError(
            "timeout_connect",
            f"Could not connect to {_host(url)} within {connect_timeout:g} seconds.",
        )
    if isinstance(exc, httpx.ConnectError):
        return _classify_connect(exc, url)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        if not answered:
            return TransportError(
                "dropped", f"{_host(url)} closed the connection before answering."
            )
        return TransportError("dropped", "The connection was closed in the middle of the stream.")
    if isinstance(exc, httpx.TimeoutException):
        return TransportError("other", f"The request to {_host(url)} timed out.")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return TransportError("other", "The URL is not a valid http or https address.")
    if isinstance(exc, httpx.HTTPError):
        return TransportError("other", f"The request failed ({type(exc).__name__}).")
    return None


async def _close_quietly(closer: Any) -> None:
    try:
        await closer()
    except asyncio.CancelledError:
        raise
    except Exception:
        pass  # closing a broken connection may fail; the run's outcome is already decided


def insecure_key_refusal(spec: RequestSpec, allow_insecure_key: bool) -> TransportError | None:
    """A key over plain http to another machine is sent only when the user agreed (make_spec
    asks); otherwise nothing is sent and the run says why."""
    if key_travels_unencrypted(spec) and not (allow_insecure_key or spec.allow_insecure_key):
        return TransportError(
            "insecure_key_refused",
            f"Not sent: the API key would travel unencrypted over plain http to {_host(spec.url)}.",
        )
    return None


def silence_error(
    got_first: bool, url: str, stall_timeout: float | None, first_byte_timeout: float
) -> TransportError:
    """The error for a read that waited too long: a stall once bytes have come (only with a
    stall timeout set), else no answer."""
    if got_first and stall_timeout is not None:
        return TransportError(
            "stall", f"The stream stalled: no bytes for {stall_timeout:g} seconds."
        )
    return TransportError(
        "timeout_first_byte",
        f"No answer from {_host(url)} within {first_byte_timeout:g} seconds.",
    )


def report_failure(sink: RunSink, error: TransportError, secrets: list[str], t: float) -> None:
    """Hand ``error`` to the sink; messages are built from templates, but they are scrubbed
    anyway in case a host name echoes a key."""
    sink.on_transport_error(TransportError(error.kind, scrub(error.message, *secrets)), t)


def build_wire_request(
    client: httpx.Client | httpx.AsyncClient,
    spec: RequestSpec,
    body: bytes | None,
    extensions: dict[str, Any] | None = None,
) -> httpx.Request:
    """The request as it goes out: multipart or JSON body, our headers, no compression."""
    headers = dict(spec.headers)
    # identity: every chunk's arrival time is real and the bytes are what the server wrote.
    headers["Accept-Encoding"] = "identity"
    headers.setdefault("User-Agent", USER_AGENT)
    if spec.files or spec.data:
        return client.build_request(
            spec.method,
            spec.url,
            headers=headers,
            files=spec.files or None,
            data=spec.data,
            extensions=extensions,
        )
    return client.build_request(
        spec.method, spec.url, headers=headers, content=body, extensions=extensions
    )


async def stream_request(
    spec: RequestSpec,
    sink: RunSink,
    *,
    client: httpx.AsyncClient | None = None,
    connect_timeout: float = 10.0,
    first_byte_timeout: float = 60.0,
    stall_timeout: float | None = None,
    allow_insecure_key: bool = False,
) -> None:
    """Send ``spec`` and feed ``sink``; TransportErrors go to the sink, CancelledError re-raises.

    ``first_byte_timeout`` bounds the wait from sending to the first body byte (or the end of an
    empty body); ``stall_timeout``, when set, bounds each gap between chunks after that.
    """
    t0 = time.perf_counter()

    def now() -> float:
        return time.perf_counter() - t0

    body = spec.body_bytes()
    sink.on_request(spec.method, spec.url, spec.redacted_headers(), body)
    secrets = spec.secrets()
    own_client = client is None
    response: httpx.Response | None = None
    try:
        refused = insecure_key_refusal(spec, allow_insecure_key)
        if refused is not None:
            sink.on_transport_error(refused, now())
            return
        if client is None:
            client = make_client(connect_timeout)
        error: TransportError | None = None
        got_first = False
        try:
            request = build_wire_request(client, spec, body)
            t0 = time.perf_counter()  # times count from the moment the request goes out
            async with asyncio.timeout(first_byte_timeout):
                response = await client.send(request, stream=True)
            sink.on_response(response.status_code, list(response.headers.multi_items()), now())
            chunks = response.aiter_raw().__aiter__()
            while True:
                if not got_first:
                    remaining = first_byte_timeout - now()
                    limit: float | None = max(remaining, 0.0)
                else:
                    limit = stall_timeout
                try:
                    async with asyncio.timeout(limit):
                        data = await chunks.__anext__()
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    error = silence_error(got_first, spec.url, stall_timeout, first_byte_timeout)
                    break
                if data:
                    got_first = True
                    sink.on_chunk(now(), data)
        except (TimeoutError, httpx.HTTPError) as exc:
            error = failure_of(
                exc, spec.url, response is not None, connect_timeout, first_byte_timeout
            )
            if error is None:
                raise
        if error is not None:
            report_failure(sink, error, secrets, now())
    finally:
        if response is not None:
            await _close_quietly(response.aclose)
        if own_client and client is not None:
            await _close_quietly(client.aclose)
        sink.on_end(now())
