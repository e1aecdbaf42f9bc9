"""Raw framing over a real socket: chunked, one event per chunk, paced, cancellable."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit

import httpx
import pytest

from playground.sim.faults import active_streams

from .helpers import CHAT, events, payloads, stream


def test_events_arrive_in_separate_chunks_over_time(base_url: str) -> None:
    r, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Pace": "40", "X-Sim-Tokens": "8"})
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["transfer-encoding"] == "chunked"
    assert r.headers["x-generation-id"].startswith("gen-")
    # Each event is its own chunk, written when made: 1 role + 8 tokens + finish + usage + DONE.
    assert len(chunks) == 12
    assert all(c.endswith(b"\n\n") and c.count(b"\n\n") == 1 for _, c in chunks)
    times = [t for t, _ in chunks]
    assert times[-1] - times[0] >= 8 * 0.04 * 0.8  # paced, not all at the end
    assert times[1] < times[-1] / 2


def _read_chunked(sock: socket.socket) -> tuple[bytes, list[bytes]]:
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    chunks: list[bytes] = []
    while True:
        while b"\r\n" not in rest:
            rest += sock.recv(65536)
        size_line, rest = rest.split(b"\r\n", 1)
        size = int(size_line, 16)
        while len(rest) < size + 2:
            rest += sock.recv(65536)
        if size == 0:
            return head, chunks
        chunks.append(rest[:size])
        rest = rest[size + 2 :]


def test_chunked_transfer_encoding_one_event_per_chunk_raw_socket(base_url: str) -> None:
    url = urlsplit(base_url)
    body = b'{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}'
    request = (
        f"POST {url.path}/responses HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Content-Type: application/json\r\nX-Sim-Pace: instant\r\nX-Sim-Tokens: 5\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(request)
        head, chunks = _read_chunked(sock)
    assert head.startswith(b"HTTP/1.1 200")
    assert b"transfer-encoding: chunked" in head.lower()
    assert len(chunks) > 8
    for chunk in chunks:  # each HTTP chunk is exactly one `event:` + `data:` event
        assert chunk.startswith(b"event: ") and chunk.endswith(b"\n\n")
        assert chunk.count(b"\n\n") == 1


def test_pace_presets_order(base_url: str) -> None:
    def duration(pace: str) -> float:
        _, chunks = stream(
            base_url, "/chat/completions", **{"X-Sim-Pace": pace, "X-Sim-Tokens": "12"}
        )
        return chunks[-1][0]

    instant, realtime = duration("instant"), duration("realtime")
    assert realtime >= 12 * 0.033 * 0.8 > instant


def test_responses_sequence_numbers_and_lifecycle(base_url: str) -> None:
    _, chunks = stream(base_url, "/responses")
    evs = events(b"".join(c for _, c in chunks))
    datas = payloads(b"".join(c for _, c in chunks))
    assert [d["sequence_number"] for d in datas] == list(range(len(datas)))
    assert all(name == d["type"] for (name, _), d in zip(evs, datas))
    assert datas[-1]["type"] == "response.completed"


def test_long_stream_at_instant_pace(base_url: str) -> None:
    start = time.monotonic()
    _, chunks = stream(base_url, "/chat/completions", **{"X-Sim-Tokens": "20000"})
    raw = b"".join(c for _, c in chunks)
    assert raw.count(b'"content":') == 20001  # the role chunk's "" plus 20000 tokens
    assert raw.endswith(b"data: [DONE]\n\n")
    assert time.monotonic() - start < 15


def test_disconnect_stops_the_generator(base_url: str) -> None:
    before = active_streams()
    with httpx.stream(
        "POST",
        base_url + "/chat/completions",
        json=CHAT,
        headers={"X-Sim-Pace": "realtime", "X-Sim-Tokens": "5000"},
    ) as r:
        it = r.iter_raw()
        next(it)
        next(it)
        assert active_streams() >= before + 1
    deadline = time.monotonic() + 5
    while active_streams() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert active_streams() == before


@pytest.mark.parametrize("path", ["/chat/completions", "/v1/chat/completions"])
def test_paths_with_and_without_v1(base_url: str, path: str) -> None:
    root = base_url.removesuffix("/v1")
    r = httpx.post(root + path, json={"messages": []}, headers={"X-Sim-Pace": "instant"})
    assert r.status_code == 200 and r.json()["object"] == "chat.completion"


def test_unknown_route_is_a_json_404(base_url: str) -> None:
    r = httpx.get(base_url + "/nope")
    assert r.status_code == 404 and "error" in r.json()


def test_stop_cuts_open_streams_quickly() -> None:
    from playground.sim.server import SimServer

    server = SimServer().start()
    errors: list[BaseException] = []
    opened = threading.Event()

    def read() -> None:
        try:
            with httpx.stream(
                "POST",
                server.base_url + "/chat/completions",
                json=CHAT,
                headers={"X-Sim-Tokens": "100000"},
            ) as r:
                for _ in r.iter_raw():
                    opened.set()
        except httpx.HTTPError as exc:
            errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    assert opened.wait(5)
    start = time.monotonic()
    server.stop()
    assert time.monotonic() - start < 3
    reader.join(5)
    assert not reader.is_alive() and errors


def test_server_wide_defaults_and_header_override() -> None:
    from playground.sim.server import SimServer

    with SimServer(pace="instant", fault="http-503") as server:
        url = server.base_url + "/chat/completions"
        assert httpx.post(url, json=CHAT).status_code == 503
        r = httpx.post(url, json=CHAT, headers={"X-Sim-Fault": "none"})
        assert r.status_code == 200 and r.text.endswith("data: [DONE]\n\n")
