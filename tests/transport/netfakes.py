"""Test helpers: raw TCP servers on 127.0.0.1 that misbehave on purpose, and a recording sink."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from playground.transport.errors import TransportError

Handler = Callable[["Conn"], Awaitable[None]]


@dataclass
class Conn:
    """One accepted connection with the request already read."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    head: bytes = b""
    body: bytes = b""

    @property
    def headers(self) -> dict[str, str]:
        lines = self.head.decode("latin-1").split("\r\n")[1:]
        out = {}
        for line in lines:
            name, _, value = line.partition(":")
            if name:
                out[name.strip().lower()] = value.strip()
        return out

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def start_chunked(self, status: int = 200, ctype: str = "text/event-stream") -> None:
        await self.send(
            f"HTTP/1.1 {status} OK\r\nContent-Type: {ctype}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )

    async def chunk(self, data: bytes) -> None:
        await self.send(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    async def end_chunked(self) -> None:
        await self.send(b"0\r\n\r\n")


@dataclass
class Server:
    port: int
    conns: list[Conn] = field(default_factory=list)
    closed: asyncio.Event = field(default_factory=asyncio.Event)  # a client closed its side

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    body = await reader.readexactly(length) if length else b""
    return head, body


@contextlib.asynccontextmanager
async def serve(handler: Handler, ssl: Any = None) -> AsyncIterator[Server]:
    """Serve ``handler`` on a free loopback port; each connection's request is read first."""
    server_box: list[Server] = []
    tasks: set[asyncio.Task[None]] = set()

    async def on_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        srv = server_box[0]
        try:
            head, body = await _read_request(reader)
            conn = Conn(reader, writer, head, body)
            srv.conns.append(conn)
            await handler(conn)
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    server = await asyncio.start_server(on_conn, "127.0.0.1", 0, ssl=ssl)
    port = server.sockets[0].getsockname()[1]
    server_box.append(Server(port))
    try:
        yield server_box[0]
    finally:
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 1.0)


class RecSink:
    """A RunSink that records every call in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.first_chunk = asyncio.Event()

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.calls.append(("request", method, url, headers, body))

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.calls.append(("response", status, headers, t))

    def on_chunk(self, t: float, data: bytes) -> None:
        self.calls.append(("chunk", t, data))
        self.first_chunk.set()

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.calls.append(("error", error, t))

    def on_end(self, t: float) -> None:
        self.calls.append(("end", t))

    @property
    def kinds(self) -> list[str]:
        return [c[0] for c in self.calls]

    @property
    def body(self) -> bytes:
        return b"".join(c[2] for c in self.calls if c[0] == "chunk")

    @property
    def error(self) -> TransportError | None:
        errors = [c[1] for c in self.calls if c[0] == "error"]
        assert len(errors) <= 1
        return errors[0] if errors else None

    @property
    def status(self) -> int | None:
        statuses = [c[1] for c in self.calls if c[0] == "response"]
        return statuses[0] if statuses else None
