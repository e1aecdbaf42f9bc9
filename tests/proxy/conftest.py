"""The simulator and a proxy in front of it, both on free loopback ports, for the proxy tests."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from playground.proxy.cli import build_hub
from playground.proxy.exchange import Exchange, ExchangeHub, Listener
from playground.proxy.server import ProxyServer
from playground.proxy.verdict import Verdicts
from playground.sim.server import SimServer

INSTANT = {"X-Sim-Pace": "instant"}


class Ended(Listener):
    """Keeps every exchange that ended, in order (listens last, after the verdict)."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []

    def on_end(self, ex: Exchange) -> None:
        self.exchanges.append(ex)


@dataclass
class Proxy:
    server: ProxyServer
    hub: ExchangeHub
    verdicts: Verdicts
    ended: Ended

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def lines(self, timeout: float = 5.0, count: int = 1) -> list[dict[str, Any]]:
        """The summaries of the exchanges ended so far, once at least ``count`` have."""
        deadline = time.monotonic() + timeout
        while len(self.ended.exchanges) < count and time.monotonic() < deadline:
            time.sleep(0.005)
        out = [self.verdicts.summary(ex) for ex in self.ended.exchanges]
        return [line for line in out if line is not None]

    def last(self, timeout: float = 5.0) -> dict[str, Any]:
        start = len(self.ended.exchanges)
        lines = self.lines(timeout, start + 1) if start == 0 else self.lines(timeout, start)
        assert lines, "no exchange ended"
        return lines[-1]

    def clear(self) -> None:
        self.ended.exchanges.clear()


def start_proxy(upstream: str, save: Path | None = None) -> Proxy:
    hub, verdicts = build_hub(save, None)
    ended = Ended()
    hub.subscribe(ended)
    return Proxy(ProxyServer(upstream, hub).start(), hub, verdicts, ended)


@pytest.fixture(scope="session")
def sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


@pytest.fixture(scope="session")
def proxy(sim: SimServer) -> Iterator[Proxy]:
    found = start_proxy(sim.base_url)
    try:
        yield found
    finally:
        found.server.stop()


@pytest.fixture
def fresh(proxy: Proxy) -> Proxy:
    """The session's proxy with no exchanges remembered yet."""
    proxy.clear()
    return proxy
