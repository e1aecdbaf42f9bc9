"""The cache scenarios on chat, responses and messages against the simulator: each second
request classified from the simulator's own usage and /v1/models (lifetime, minimum)."""

from __future__ import annotations

import time

import httpx
import pytest
from cache_scenarios import PATHS, ROUTES, Scenario, scenarios

from playground.protocol.accounting.ledger import Ledger
from playground.protocol.accounting.models_meta import models_info
from playground.sim.server import SimServer

INSTANT = {"X-Sim-Pace": "instant", "X-Sim-Tokens": "12"}
CASES = [(route, s) for route in ROUTES for s in scenarios(route)]


def _send(
    client: httpx.Client, route: str, body: dict[str, object], headers: dict[str, str]
) -> object:
    response = client.post(PATHS[route], json=body, headers=INSTANT | headers)
    assert response.status_code == 200, response.text
    return response.json()["usage"]


@pytest.mark.parametrize(("route", "scenario"), CASES, ids=[f"{r}-{s.name}" for r, s in CASES])
def test_scenario_is_classified(route: str, scenario: Scenario) -> None:
    ttl = 1.0 if scenario.pause else None
    with SimServer(cache_ttl=ttl) as sim, httpx.Client(base_url=sim.base_url, timeout=30) as client:
        ledger = Ledger(models=models_info(client.get("/models").json()))
        first = _send(client, route, scenario.first, {})
        ledger.account("conversation", route, scenario.first, time.monotonic(), first)
        if scenario.pause:
            time.sleep(scenario.pause)  # past the simulator's 1 s lifetime (not a timing check)
        second = _send(client, route, scenario.second, scenario.headers or {})
        result = ledger.account("conversation", route, scenario.second, time.monotonic(), second)
    cache = result.to_json()["cache"]
    assert cache["status"] == scenario.status, (cache, result.cache.reason)
    assert cache["divergence"] == scenario.divergence, result.cache.reason
    if scenario.status == "hit":
        assert cache["cached_tokens"] > 0
        assert result.cost is not None and result.cost.total > 0  # sim-chat has prices
        assert {line.field for line in result.cost.lines} >= {"input", "cached_input", "output"}
    if scenario.status == "not_reported":
        assert cache["cached_tokens"] is None
    else:
        assert cache["cached_tokens"] is not None
        assert cache["input_tokens"] is not None and cache["input_tokens"] > 0
