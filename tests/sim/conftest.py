"""One simulator for the whole test session, on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from playground.sim.server import SimServer

from .sdk_clients import close_clients

INSTANT = {"X-Sim-Pace": "instant"}


@pytest.fixture(scope="session")
def sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


@pytest.fixture(scope="session")
def base_url(sim: SimServer) -> str:
    return sim.base_url


@pytest.fixture(autouse=True)
def _close_sdk_clients() -> Iterator[None]:
    yield
    close_clients()
