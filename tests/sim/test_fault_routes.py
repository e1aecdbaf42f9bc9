"""A fault is offered on a route only where it acts: on each route FAULT_ROUTES names for it, the
simulator's answer with the fault decodes differently from the answer without it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from playground.protocol.requests import RequestParams, build_body
from playground.protocol.stream import StreamDecoder
from playground.sim.fault_names import FAULT_ROUTES, FAULTS, faults_for
from playground.transport.client import stream_request
from playground.transport.pipeline import RunSink
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    from playground.sim.server import SimServer

    server = SimServer().start()
    try:
        yield server.base_url
    finally:
        server.stop()


class _Decode(RunSink):
    def __init__(self, route: str) -> None:
        self.decoder = StreamDecoder(route)

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        pass

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.decoder.set_content_type(dict((k.lower(), v) for k, v in headers).get("content-type"))

    def on_chunk(self, t: float, data: bytes) -> None:
        self.decoder.feed(data, t)

    def on_transport_error(self, error: object, t: float) -> None:
        pass

    def on_end(self, t: float) -> None:
        self.decoder.finish(t)


def _outcome(base: str, route: str, fault: str) -> tuple[str, tuple[str, ...]]:
    headers = {"X-Sim-Pace": "instant", "X-Sim-Fault": fault}
    spec = make_spec(
        provider_by_id("simulator"),
        route,
        build_body(route, RequestParams(model="sim", prompt="Hello there")),
        None,
        base_url=base,
        sim_headers=headers,
    )
    assert spec is not None
    sink = _Decode(route)
    asyncio.run(stream_request(spec, sink))
    state = sink.decoder.state
    return state.status, tuple(sorted({f.code for f in sink.decoder.findings}))


@pytest.mark.parametrize(
    ("fault", "route"), [(f, r) for f, routes in FAULT_ROUTES.items() for r in routes]
)
def test_a_fault_acts_on_every_route_it_is_offered_on(sim_url: str, fault: str, route: str) -> None:
    assert _outcome(sim_url, route, fault) != _outcome(sim_url, route, "none")


@pytest.mark.parametrize("route", ["images", "speech", "transcription"])
def test_faults_that_do_not_act_on_media_routes_are_not_offered_there(route: str) -> None:
    offered = faults_for(route)
    assert "out-of-order" not in offered and "incomplete" not in offered
    assert "drop" in offered and offered[0] == "none"
    assert set(offered) < set(FAULTS)


def test_every_fault_is_offered_on_chat() -> None:
    assert faults_for("chat") == FAULTS
