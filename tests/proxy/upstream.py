"""A scripted HTTP/1.1 upstream on 127.0.0.1 for the proxy tests: exact bytes, drops, and a
note of when each client connection closed (what a disconnect through the proxy must reach)."""

from __future__ import annotations

import select
import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field

# A body that every naive relay would get wrong somewhere: CRLF and LF line ends, a comment,
# multi-byte UTF-8 cut across writes, a lone CR, binary bytes and an empty-looking write.
CHUNKS: tuple[bytes, ...] = (
    b": hello\r\n\r\n",
    b'data: {"choices":[{"index":0,"delta":{"content":"caf\xc3',
    b"\xa9 \xe2\x82",
    b'\xac"}}]}\n\n',
    b"event: x\rdata: \x00\xff\xfe\r\n\r\n",
    b"data: [DONE]\n\n",
)
LINGERING: tuple[bytes, ...] = (
    b'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n',
    b"data: [DONE]\n\n",
)
HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Type", "text/event-stream"),
    ("X-Dup", "one"),
    ("X-Dup", "two"),
    ("X-Request-Id", "req-123"),
    ("Keep-Alive", "timeout=5"),  # hop-by-hop: the proxy must not pass it on
)


@dataclass
class Seen:
    """What the upstream saw: request heads, and when each slow stream's client went away."""

    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    closed_at: list[float] = field(default_factory=list)
    slow_started: threading.Event = field(default_factory=threading.Event)


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def _read_request(self) -> tuple[str, str, dict[str, str], bytes] | None:
        sock: socket.socket = self.request
        data = b""
        while b"\r\n\r\n" not in data:
            more = sock.recv(65536)
            if not more:
                return None
            data += more
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            more = sock.recv(65536)
            if not more:
                break
            rest += more
        return method, target, headers, rest

    def handle(self) -> None:
        sock: socket.socket = self.request
        got = self._read_request()
        if got is None:
            return
        method, target, headers, body = got
        seen = self.server.seen
        seen.requests.append((f"{method} {target}", headers, body))
        path = target.split("?", 1)[0]
        head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in HEADERS)
        head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        if path.endswith("/refuse-answer"):
            return  # read the request, close without a word
        if path.endswith("/not-http"):
            sock.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
            return
        if path.endswith("/echo-key"):
            # An upstream that echoes the client's key: in headers, and in the body cut in two
            # writes at the offset the client asks for (a key split across the proxy's reads).
            key = headers.get("x-auth-token", "")
            echo = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Echo: {key}\r\n"
            echo += f"Set-Cookie: sid={key}\r\nTransfer-Encoding: chunked\r\n"
            echo += "Connection: close\r\n\r\n"
            sock.sendall(echo.encode())
            stream = f'data: {{"echo": "{key}"}}\n\ndata: [DONE]\n\n'.encode()
            cut = int(headers.get("x-split", "0"))
            for part in (stream[:cut], stream[cut:]):
                if part:
                    sock.sendall(_chunk(part))
                    time.sleep(0.03)
            sock.sendall(b"0\r\n\r\n")
            return
        sock.sendall(head.encode())
        if path.endswith("/fixed"):
            for data in CHUNKS:
                sock.sendall(_chunk(data))
                time.sleep(0.01)
            sock.sendall(b"0\r\n\r\n")
        elif path.endswith("/drop"):
            for data in CHUNKS[:2]:
                sock.sendall(_chunk(data))
                time.sleep(0.01)
            # closed without the last chunk: the body is cut short
        elif path.endswith("/chat/completions") and headers.get("x-script") == "linger":
            # A whole chat stream, [DONE] included, then the body held open (no last chunk)
            # until the client leaves: what a client that closes on [DONE] races against.
            for data in LINGERING:
                sock.sendall(_chunk(data))
            sock.settimeout(10)
            try:
                while sock.recv(1024):
                    pass
            except OSError:
                pass
            seen.closed_at.append(time.monotonic())
        elif path.endswith("/slow"):
            seen.slow_started.set()
            n = 0
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                readable, _, _ = select.select([sock], [], [], 0.005)
                if readable and not sock.recv(1024):
                    seen.closed_at.append(time.monotonic())
                    return
                n += 1
                if n % 4 == 0:  # an event every ~20 ms
                    try:
                        sock.sendall(_chunk(f"data: {n}\n\n".encode()))
                    except OSError:
                        seen.closed_at.append(time.monotonic())
                        return


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    seen: Seen


class ScriptedUpstream:
    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.seen = Seen()
        self.seen = self._server.seen
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
