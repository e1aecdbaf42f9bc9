"""The relay: exact bytes and headers, each read passed on, disconnects, upstream failures, load."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tls_helpers import self_signed_server_context

from playground.protocol.stream import StreamDecoder
from playground.proxy.exchange import Exchange, Listener
from playground.sim.faults import active_streams
from playground.sim.server import SimServer

from .conftest import INSTANT, Proxy, start_proxy
from .upstream import CHUNKS, LINGERING, ScriptedUpstream, free_port

KEY = "sk-proxy-test-0123456789"
CHAT = {"model": "sim-chat", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[ScriptedUpstream, Proxy]]:
    with ScriptedUpstream() as upstream:
        proxy = start_proxy(upstream.base_url)
        try:
            yield upstream, proxy
        finally:
            proxy.server.stop()


def test_the_client_gets_the_upstreams_bytes_headers_and_each_read_as_it_came(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    upstream, proxy = scripted
    proxy.clear()
    arrivals: list[tuple[float, bytes]] = []
    headers = {"Authorization": f"Bearer {KEY}", "x-api-key": KEY, "anthropic-version": "2023"}
    with httpx.Client(timeout=10) as client:
        start = time.monotonic()
        with client.stream(
            "POST", proxy.base_url + "/fixed?x=1", content=b'{"a":1}', headers=headers
        ) as r:
            for data in r.iter_raw():
                arrivals.append((time.monotonic() - start, data))
    assert b"".join(d for _, d in arrivals) == b"".join(CHUNKS)
    # The upstream writes every 10 ms: a relay that buffered would hand them over at once.
    assert len(arrivals) >= len(CHUNKS) - 1
    assert arrivals[-1][0] - arrivals[0][0] >= 0.03
    assert r.status_code == 200
    assert r.headers.get_list("x-dup") == ["one", "two"]
    assert r.headers["x-request-id"] == "req-123" and "keep-alive" not in r.headers
    # Credentials reach the upstream unchanged; hop-by-hop and the proxy's own do not.
    target, sent, body = upstream.seen.requests[-1]
    assert target == "POST /v1/fixed?x=1" and body == b'{"a":1}'
    assert sent["authorization"] == f"Bearer {KEY}" and sent["x-api-key"] == KEY
    assert sent["anthropic-version"] == "2023" and sent["accept-encoding"] == "identity"
    line = proxy.last()
    assert line["path"] == "/v1/fixed?x=1" and line["route"] is None
    assert line["status"] == "complete" and line["http_status"] == 200


def test_a_client_that_disconnects_closes_the_upstream_within_100_ms(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    upstream, proxy = scripted
    proxy.clear()
    upstream.seen.closed_at.clear()
    upstream.seen.slow_started.clear()
    # Leaving the block closes a half-read response's connection.
    with (
        httpx.Client(timeout=10) as client,
        client.stream("POST", proxy.base_url + "/slow", content=b"{}") as r,
    ):
        chunks = r.iter_raw()
        next(chunks)
        next(chunks)
        closed = time.monotonic()
    deadline = time.monotonic() + 2
    while not upstream.seen.closed_at and time.monotonic() < deadline:
        time.sleep(0.002)
    assert upstream.seen.closed_at, "the upstream never saw the connection close"
    assert upstream.seen.closed_at[0] - closed < 0.1
    assert proxy.last()["status"] == "cancelled"


def test_a_client_that_leaves_after_the_terminator_got_a_complete_stream(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    # The openai SDK closes the connection once it reads [DONE], before the body's last chunk.
    upstream, proxy = scripted
    proxy.clear()
    upstream.seen.closed_at.clear()
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST",
            proxy.base_url + "/chat/completions",
            content=b"{}",
            headers={"X-Script": "linger"},
        ) as r,
    ):
        got = b""
        for data in r.iter_raw():
            got += data
            if b"[DONE]" in got:
                break
    assert got == b"".join(LINGERING)
    line = proxy.last()
    assert (line["route"], line["status"], line["events"]) == ("chat", "complete", 2)
    assert proxy.ended.exchanges[-1].outcome == "cancelled"  # the exchange says who left


def test_an_upstream_that_cuts_the_body_cuts_the_client_too(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    _, proxy = scripted
    proxy.clear()
    got = b""
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", proxy.base_url + "/drop", timeout=10) as r,
    ):
        for data in r.iter_raw():
            got += data
    assert got == b"".join(CHUNKS[:2])
    line = proxy.last()
    assert line["status"] == "truncated"


def test_an_upstream_that_closes_without_answering_is_a_502_that_says_so(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    _, proxy = scripted
    proxy.clear()
    r = httpx.post(proxy.base_url + "/refuse-answer", json=CHAT, timeout=10)
    assert r.status_code == 502
    error = r.json()["error"]
    assert error["type"] == "proxy_error" and error["code"] == "upstream_dropped"
    assert "closed the connection before answering" in error["message"]
    assert proxy.last()["status"] == "failed"


def test_nothing_a_client_or_an_upstream_does_stops_the_proxy(
    scripted: tuple[ScriptedUpstream, Proxy],
) -> None:
    _, proxy = scripted
    proxy.clear()
    host, port = proxy.server.host, proxy.server.port
    # A client that leaves in the middle of its upload, and one that sends no HTTP at all.
    with socket.create_connection((host, port)) as sock:
        sock.sendall(b"POST /v1/fixed HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    with socket.create_connection((host, port)) as sock:
        sock.sendall(b"\x16\x03\x01 not http\r\n\r\n")
        sock.recv(1024)
    # An upstream that answers with something that is not HTTP.
    r = httpx.post(proxy.base_url + "/not-http", content=b"{}", timeout=10)
    assert r.status_code == 502 and r.json()["error"]["type"] == "proxy_error"

    # A listener that breaks is said on stderr once; the bytes still reach the client.
    class Broken(Listener):
        def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None:
            raise RuntimeError("a listener's bug")

    broken = Broken()
    proxy.hub.subscribe(broken)
    try:
        r = httpx.post(proxy.base_url + "/fixed", content=b"{}", timeout=10)
    finally:
        proxy.hub.unsubscribe(broken)
    assert r.content == b"".join(CHUNKS)
    statuses = [line["status"] for line in proxy.lines(count=3)]
    assert statuses == ["cancelled", "failed", "complete"]


def test_an_upstream_that_refuses_the_connection_is_a_502_that_says_so() -> None:
    proxy = start_proxy(f"http://127.0.0.1:{free_port()}/v1")
    try:
        r = httpx.post(proxy.base_url + "/chat/completions", json=CHAT, timeout=10)
        assert r.status_code == 502
        error = r.json()["error"]
        assert error["code"] == "upstream_connect_refused"
        assert "refused the connection" in error["message"]
        line = proxy.last()
        assert line["route"] == "chat" and line["status"] == "failed"
        assert line["http_status"] == 502 and "http_error" in line["findings"]
    finally:
        proxy.server.stop()


def test_an_upstream_5xx_reaches_the_client_as_it_was(fresh: Proxy, sim: SimServer) -> None:
    direct = httpx.post(
        sim.base_url + "/chat/completions",
        json=CHAT,
        headers={"X-Sim-Fault": "http-503"},
    )
    r = httpx.post(
        fresh.base_url + "/chat/completions", json=CHAT, headers={"X-Sim-Fault": "http-503"}
    )
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert r.json() == direct.json()
    line = fresh.last()
    assert line["status"] == "failed" and line["findings"] == ["http_error"]


def test_an_upstream_drop_fault_is_relayed_as_a_drop(fresh: Proxy) -> None:
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream(
            "POST",
            fresh.base_url + "/chat/completions",
            json=CHAT,
            headers=INSTANT | {"X-Sim-Fault": "drop"},
        ) as r,
    ):
        for _ in r.iter_raw():
            pass
    line = fresh.last()
    assert line["status"] == "truncated" and "no_terminator" in line["findings"]


def test_a_stalled_upstream_stalls_the_client_and_its_leaving_ends_the_upstream(
    fresh: Proxy,
) -> None:
    headers = {"X-Sim-Pace": "fast", "X-Sim-Fault": "stall", "X-Sim-Stall-Seconds": "30"}
    got = b""
    with (
        pytest.raises(httpx.ReadTimeout),
        httpx.stream(
            "POST",
            fresh.base_url + "/chat/completions",
            json=CHAT,
            headers=headers,
            timeout=httpx.Timeout(10, read=0.5),
        ) as r,
    ):
        for data in r.iter_raw():
            got += data
    assert b"data: " in got
    line = fresh.last()
    assert line["status"] == "cancelled"
    deadline = time.monotonic() + 2
    while active_streams() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert active_streams() == 0  # the simulator stopped writing for a reader who left


def test_paths_outside_the_base_path_are_not_relayed(fresh: Proxy) -> None:
    r = httpx.get(fresh.base_url.removesuffix("/v1") + "/other")
    assert r.status_code == 404 and "relays /v1" in r.json()["error"]["message"]


def test_fifty_streams_at_once_arrive_whole(fresh: Proxy, sim: SimServer) -> None:
    prompts = [f"Tell me about river number {n}" for n in range(50)]

    async def read(client: httpx.AsyncClient, base: str, prompt: str) -> tuple[str, str]:
        body = CHAT | {"messages": [{"role": "user", "content": prompt}]}
        decoder = StreamDecoder("chat")
        headers = {"X-Sim-Pace": "2", "X-Sim-Tokens": "60"}
        async with client.stream(
            "POST", base + "/chat/completions", json=body, headers=headers
        ) as r:
            async for data in r.aiter_raw():
                decoder.feed(data, 0.0)
        decoder.finish(0.0)
        return decoder.state.text, decoder.state.status

    async def run(base: str) -> list[tuple[str, str]]:
        limits = httpx.Limits(max_connections=None)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:
            return await asyncio.gather(*(read(client, base, p) for p in prompts))

    direct = asyncio.run(run(sim.base_url))
    proxied = asyncio.run(run(fresh.base_url))
    assert proxied == direct
    assert all(status == "complete" and text for text, status in proxied)
    lines = fresh.lines(count=50)
    assert len(lines) == 50 and {line["status"] for line in lines} == {"complete"}


def test_a_line_names_the_route_events_and_timing(fresh: Proxy) -> None:
    httpx.post(fresh.base_url + "/chat/completions", json=CHAT, headers=INSTANT)
    line = fresh.last()
    assert list(line) == [
        "method",
        "path",
        "route",
        "http_status",
        "status",
        "events",
        "findings",
        "ttft_ms",
        "duration_ms",
        "capture",
        "cache",
        "cost",
    ]
    assert line["method"] == "POST" and line["route"] == "chat"
    assert line["status"] == "complete" and line["events"] > 3 and line["findings"] == []
    assert 0 < line["ttft_ms"] <= line["duration_ms"] and line["capture"] is None
    json.dumps(line)


def test_tls_to_the_upstream_is_verified(tmp_path: Path) -> None:
    # A self-signed upstream: the proxy's client refuses it, and says so in the 502.
    context = self_signed_server_context(tmp_path)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    handshakes: list[str] = []

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            with context.wrap_socket(conn, server_side=True):
                handshakes.append("accepted")
        except (ssl.SSLError, OSError):
            handshakes.append("refused by the client")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    proxy = start_proxy(f"https://127.0.0.1:{port}/v1")
    try:
        r = httpx.post(proxy.base_url + "/chat/completions", json=CHAT, timeout=10)
        assert r.status_code == 502
        error = r.json()["error"]
        assert error["code"] == "upstream_tls" and "could not be verified" in error["message"]
        thread.join(5)
        assert handshakes == ["refused by the client"]
    finally:
        proxy.server.stop()
        listener.close()


def test_streams_and_head_requests_share_kept_alive_upstream_connections(
    sim: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The upstream's reads are merged per read before h11 parses them (proxy.upstream_reads):
    # on a kept-alive connection the merger follows every response, and a HEAD's Content-Length
    # announces no body (were it taken for one, the next stream would go unmerged).
    import playground.proxy.upstream_reads as upstream_reads
    from playground.transport.chunk_merge import ChunkMerger

    merged_reads: list[bool] = []

    class Watched(ChunkMerger):
        def feed(self, data: bytes) -> bytes:
            out = super().feed(data)
            merged_reads.append(self.merging)
            return out

    monkeypatch.setattr(upstream_reads, "ChunkMerger", Watched)
    direct = httpx.get(sim.base_url + "/models")
    fresh = start_proxy(sim.base_url)  # its upstream connections are made under the watch
    try:
        with httpx.Client(timeout=10) as client:
            for _ in range(3):
                head = client.head(fresh.base_url + "/models")
                assert head.status_code == 200 and head.content == b""
                assert head.headers["content-length"] == direct.headers["content-length"]
                merged_reads.clear()
                decoder = StreamDecoder("chat")
                decoder.set_content_type("text/event-stream")
                with client.stream(
                    "POST", fresh.base_url + "/chat/completions", json=CHAT, headers=INSTANT
                ) as r:
                    for data in r.iter_raw():
                        decoder.feed(data, 0.0)
                decoder.finish(0.0)
                assert decoder.state.status == "complete" and decoder.state.text
                assert any(merged_reads)  # the stream after the HEAD was merged
                listed = client.get(fresh.base_url + "/models")
                assert listed.json() == direct.json()
    finally:
        fresh.server.stop()
