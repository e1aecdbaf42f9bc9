"""The client against the built-in simulator's faults: what each looks like at the transport."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from netfakes import RecSink

from playground.protocol.requests import RequestParams, build_body
from playground.transport.client import stream_request
from playground.transport.errors import describe_http_error
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec

KEY = "sk-sim-SECRET-0f0f0f0f0f"


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    server_mod = pytest.importorskip("playground.sim.server")
    server = server_mod.SimServer().start()
    try:
        yield server.base_url
    finally:
        server.stop()


def run(base: str, fault: str | None, route: str = "chat", **kw: Any) -> RecSink:
    headers = {"X-Sim-Pace": "instant"}
    if fault:
        headers["X-Sim-Fault"] = fault
    spec = make_spec(
        provider_by_id("simulator"),
        route,
        build_body(route, RequestParams(model="sim", prompt="Hello")),
        KEY,
        base_url=base,
        sim_headers=headers,
    )
    assert spec is not None
    sink = RecSink()
    asyncio.run(stream_request(spec, sink, **kw))
    assert KEY not in repr(sink.calls)
    assert sink.kinds[-1] == "end"
    return sink


def test_plain_stream(sim: str) -> None:
    sink = run(sim, None)
    assert sink.error is None and sink.status == 200
    assert sink.body.rstrip().endswith(b"data: [DONE]")


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_drop_is_reported_as_dropped(sim: str, route: str) -> None:
    sink = run(sim, "drop", route)
    assert sink.status == 200 and sink.body  # what arrived before the drop is kept
    assert sink.error is not None and sink.error.kind == "dropped"


def test_http_429_carries_retry_after(sim: str) -> None:
    sink = run(sim, "http-429")
    assert sink.error is None and sink.status == 429
    headers = dict(next(c for c in sink.calls if c[0] == "response")[2])
    assert headers.get("retry-after")
    message = describe_http_error(
        429, sink.body, headers.get("content-type"), headers["retry-after"]
    )
    assert message.startswith("HTTP 429: Too many requests") and "Retry after" in message


def test_stall_watchdog_against_the_simulator(sim: str) -> None:
    sink = run(sim, "stall", stall_timeout=0.5)
    assert sink.error is not None and sink.error.kind == "stall"
    assert sink.body  # the bytes before the stall were delivered
