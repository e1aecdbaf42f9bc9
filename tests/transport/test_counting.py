"""The counting endpoints asked through the transport: the simulator's count, equal to the
offline estimate; chat (no endpoint) and a gateway without one give None."""

from __future__ import annotations

import asyncio

import httpx
from cache_scenarios import TURNS, body

from playground.protocol.accounting.canonical import canonical_request
from playground.protocol.accounting.tokens import estimate_context
from playground.sim.server import SimServer
from playground.transport.counting import count_input_tokens


def test_counting_endpoints_against_the_simulator() -> None:
    async def ask() -> dict[str, int | None]:
        out: dict[str, int | None] = {}
        async with httpx.AsyncClient() as client:
            for route in ("chat", "responses", "messages"):
                b = body(route, TURNS[:3], tools=[0, 1])
                b["stream"] = True  # not sent to the counting endpoint
                out[route] = await count_input_tokens(client, sim.base_url, {}, route, b)
            out["missing"] = await count_input_tokens(
                client, sim.base_url + "/nowhere", {}, "messages", body("messages", TURNS[:1])
            )
        return out

    with SimServer() as sim:
        counted = asyncio.run(ask())
    assert counted["chat"] is None and counted["missing"] is None
    for route in ("responses", "messages"):
        estimate = estimate_context(canonical_request(route, body(route, TURNS[:3], tools=[0, 1])))
        assert counted[route] == estimate.total
        gauge = estimate_context(
            canonical_request(route, body(route, TURNS[:3])), 131072, counted=counted[route]
        )
        assert gauge.source == "counted"
