"""The proxy served by uvicorn in a background thread: ``start()`` returns once it listens."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn

from playground.proxy.exchange import ExchangeHub
from playground.proxy.header_timeout import HEADER_TIMEOUT, with_header_timeout
from playground.proxy.relay import Relay
from playground.proxy.wire import BASE_PATH

__all__ = ["ProxyServer"]


class ProxyServer:
    """Relays ``http://host:port/v1/...`` to ``upstream``; every exchange goes through ``hub``.

    The listeners of ``hub`` are called on the server's thread (see ``exchange``). A connection
    whose request headers take longer than ``header_timeout`` seconds is closed.
    """

    def __init__(
        self,
        upstream: str,
        hub: ExchangeHub | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        header_timeout: float = HEADER_TIMEOUT,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.header_timeout = header_timeout
        self.hub = hub if hub is not None else ExchangeHub()
        self.host = host
        self.port = port
        self.base_url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    def start(self) -> ProxyServer:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))  # port 0: the OS picks a free one
        sock.listen(1024)  # many clients at once (the relay holds each stream open)
        sock.setblocking(False)
        self._sock = sock
        self.port = sock.getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.base_url = f"http://{host}:{self.port}{BASE_PATH}"
        config = uvicorn.Config(
            Relay(self.upstream, self.hub),
            log_level="warning",
            access_log=False,
            lifespan="on",
            # C framing (httptools): the relay's per-event cost is what proxy_added_ms is.
            http=with_header_timeout(self.header_timeout),
            # The client gets the upstream's own Server and Date headers, not uvicorn's.
            server_header=False,
            date_header=False,
            # Streams still open at stop() are cut after 0.25 s (uvicorn accepts a float here).
            timeout_graceful_shutdown=0.25,  # type: ignore[arg-type]
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [sock]},
            name="playground-proxy",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the proxy did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout=2)
        if self._sock is not None:
            self._sock.close()
        self._server = self._thread = self._sock = None

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
