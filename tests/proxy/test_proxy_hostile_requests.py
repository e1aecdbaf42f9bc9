"""Requests a proxy must not relay or wait on: paths that are not normalised get a 400 and never
reach the upstream; a half-sent request is closed after the header timeout."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from playground.proxy.exchange import ExchangeHub
from playground.proxy.paths import unsafe_path
from playground.proxy.server import ProxyServer

from .upstream import ScriptedUpstream

KEY = "sk-never-outside-9f8e7d6c"


@pytest.fixture
def relayed() -> Iterator[tuple[ScriptedUpstream, ProxyServer]]:
    with ScriptedUpstream() as upstream:
        server = ProxyServer(upstream.base_url, ExchangeHub(), header_timeout=0.2).start()
        try:
            yield upstream, server
        finally:
            server.stop()


def _raw(server: ProxyServer, request: bytes) -> bytes:
    """What the proxy answers to ``request`` sent as is (no client library normalises it)."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while True:
            more = sock.recv(65536)
            if not more:
                return data
            data += more
            if b"\r\n\r\n" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    None,
                )
                if length is not None and len(body) >= length:
                    return data


@pytest.mark.parametrize(
    "path",
    [
        "/v1/../outside",
        "/v1/./models",
        "/v1/models/..",
        "/v1//models",
        "//v1/models",
        "/v1/%2e%2e/outside",
        "/v1/%2E%2E/outside",
        "/v1/.%2e/outside",
        "/v1%2f..%2foutside",
        "/v1/models%2F..%2F..%2Foutside",
        "/v1/%252e%252e/outside",
        "/v1/..%5coutside",
        "/v1/..\\outside",
    ],
)
def test_a_path_that_is_not_normalised_gets_400_and_the_upstream_sees_nothing(
    relayed: tuple[ScriptedUpstream, ProxyServer], path: str
) -> None:
    upstream, server = relayed
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {KEY}\r\n"
        "Connection: close\r\n\r\n"
    ).encode("latin-1")
    answer = _raw(server, request)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer[:200]
    error = json.loads(body)["error"]
    assert error["code"] == "bad_path" and "normalised" in error["message"]
    assert upstream.seen.requests == []


def test_a_normalised_path_is_still_relayed(relayed: tuple[ScriptedUpstream, ProxyServer]) -> None:
    upstream, server = relayed
    answer = _raw(server, b"GET /v1/fixed/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200")
    assert [r[0] for r in upstream.seen.requests] == ["GET /v1/fixed/"]


@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/models/", "/v1/images/edits", "/v1/models/gpt-4o"]
)
def test_ordinary_paths_are_safe(path: str) -> None:
    assert unsafe_path(path) is None


@pytest.mark.parametrize(
    "sent",
    [b"GET /v1/mod", b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ", b""],
    ids=["half-request-line", "half-headers", "nothing"],
)
def test_a_request_whose_headers_never_arrive_is_closed(
    relayed: tuple[ScriptedUpstream, ProxyServer], sent: bytes
) -> None:
    upstream, server = relayed
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        if sent:
            sock.sendall(sent)
        # The proxy closes it (recv sees the end); a held connection would time out here.
        try:
            closed = sock.recv(65536) == b""
        except ConnectionResetError:
            closed = True
    assert closed
    assert upstream.seen.requests == []


def test_a_keep_alive_connection_is_timed_out_on_a_half_sent_second_request(
    relayed: tuple[ScriptedUpstream, ProxyServer],
) -> None:
    _upstream, server = relayed
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(b"GET /v1/../x HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b"}}" not in data:
            data += sock.recv(65536)
        assert data.startswith(b"HTTP/1.1 400")
        sock.sendall(b"GET /v1/mo")
        rest = b""
        while True:
            try:
                more = sock.recv(65536)
            except ConnectionResetError:
                break
            if not more:
                break
            rest += more
        assert rest == b""
