"""uvicorn's HTTP protocol with a header timeout: a connection whose request headers do not all
arrive within the limit is closed, so a half-sent request cannot hold a connection forever.

uvicorn times out an idle keep-alive connection, but not one that has sent part of a request:
its parser waits for the rest as long as the client likes (a slowloris holds every connection
it opens). The timer runs from the connection's start, and from the first byte of each later
request on it, until that request's headers are complete.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["HEADER_TIMEOUT", "with_header_timeout"]

# Long enough for any client on a slow link to send a few KB of headers, short enough that
# connections held open by half-sent requests are given back soon.
HEADER_TIMEOUT: Final = 10.0


class _HeaderTimeoutProtocol(HttpToolsProtocol):
    header_timeout: float = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._headers_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._headers_timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._headers_timer = self.loop.call_later(self.header_timeout, self._headers_late)

    def _disarm(self) -> None:
        if self._headers_timer is not None:
            self._headers_timer.cancel()
            self._headers_timer = None

    def _headers_late(self) -> None:
        self._headers_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def with_header_timeout(seconds: float = HEADER_TIMEOUT) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol class, closing connections whose headers take longer than
    ``seconds`` (pass it as ``uvicorn.Config(http=...)``)."""
    return type("HeaderTimeoutProtocol", (_HeaderTimeoutProtocol,), {"header_timeout": seconds})
