"""The proxy's per-exchange line: its cache (against the previous exchange of the same client,
route and model) and its cost, for a client that changes its system prompt between calls and
for the other cache scenarios on every text route."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cache_scenarios import PATHS, ROUTES, SYSTEM, TURNS, body, scenarios

from playground.sim.server import SimServer

from .conftest import INSTANT, Proxy, start_proxy


@pytest.fixture
def cached_proxy() -> Iterator[tuple[Proxy, SimServer]]:
    with SimServer(cache_ttl=1) as sim:
        proxy = start_proxy(sim.base_url)
        assert proxy.verdicts.accounts is not None
        proxy.verdicts.accounts.load_models(sim.base_url)
        try:
            yield proxy, sim
        finally:
            proxy.server.stop()


def _post(
    proxy: Proxy, route: str, payload: dict[str, Any], agent: str = "app/1", **headers: str
) -> dict[str, Any]:
    count = len(proxy.ended.exchanges)
    response = httpx.post(
        proxy.base_url + PATHS[route],
        json=payload,
        headers=INSTANT
        | {"User-Agent": agent, "Authorization": "Bearer sk-client-secret"}
        | headers,
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return proxy.lines(count=count + 1)[-1]


def test_a_client_that_changes_its_system_prompt(cached_proxy: tuple[Proxy, SimServer]) -> None:
    proxy, _ = cached_proxy
    first = _post(proxy, "chat", body("chat", TURNS[:1], system=SYSTEM + "Now: 20:00:01"))
    second = _post(proxy, "chat", body("chat", TURNS[:3], system=SYSTEM + "Now: 20:00:02"))
    third = _post(proxy, "chat", body("chat", TURNS[:5], system=SYSTEM + "Now: 20:00:02"))
    assert first["cache"]["status"] == "cold" and first["cache"]["divergence"] is None
    assert second["cache"]["status"] == "prefix_changed"
    assert second["cache"]["divergence"] == {
        "part": "system",
        "index": 0,
        "offset": len(SYSTEM + "Now: 20:00:0"),
    }
    assert third["cache"]["status"] == "hit" and third["cache"]["cached_tokens"] > 0
    for line in (first, second, third):
        cost = line["cost"]
        assert cost is not None and cost["currency"] == "USD" and cost["total"] > 0
        assert abs(cost["total"] - sum(x["amount"] for x in cost["lines"])) < 1e-12
        assert "sk-client-secret" not in repr(line)
    cached = {x["field"]: x for x in third["cost"]["lines"]}["cached_input"]
    assert cached["tokens"] == third["cache"]["cached_tokens"] and cached["price"] == 1e-7


def test_clients_and_models_are_compared_apart(cached_proxy: tuple[Proxy, SimServer]) -> None:
    proxy, _ = cached_proxy
    _post(proxy, "chat", body("chat", TURNS[:1]), agent="one")
    other = _post(proxy, "chat", body("chat", TURNS[:3], system="Different"), agent="two")
    assert other["cache"]["status"] == "cold"  # another client: nothing to compare with
    again = _post(proxy, "chat", body("chat", TURNS[:3]), agent="one")
    assert again["cache"]["status"] == "hit"


def test_models_list_through_the_proxy_is_learnt() -> None:
    with SimServer(cache_ttl=1) as sim:
        proxy = start_proxy(sim.base_url)
        try:
            accounts = proxy.verdicts.accounts
            assert accounts is not None and accounts.ledger.models == {}
            httpx.get(proxy.base_url + "/models", timeout=10)
            deadline = time.monotonic() + 5
            while not accounts.ledger.models and time.monotonic() < deadline:
                time.sleep(0.01)
            assert accounts.ledger.models["sim-chat"].cache_lifetime == 1.0
        finally:
            proxy.server.stop()


CASES = [(route, s) for route in ROUTES for s in scenarios(route)]


@pytest.mark.parametrize(("route", "scenario"), CASES, ids=[f"{r}-{s.name}" for r, s in CASES])
def test_scenarios_through_the_proxy(route: str, scenario: Any) -> None:
    with SimServer(cache_ttl=1) as sim:
        proxy = start_proxy(sim.base_url)
        assert proxy.verdicts.accounts is not None
        proxy.verdicts.accounts.load_models(sim.base_url)
        try:
            _post(proxy, route, scenario.first)
            if scenario.pause:
                time.sleep(scenario.pause)  # past the 1 s lifetime (not a timing assertion)
            line = _post(proxy, route, scenario.second, **(scenario.headers or {}))
        finally:
            proxy.server.stop()
    assert line["cache"]["status"] == scenario.status, line["cache"]
    assert line["cache"]["divergence"] == scenario.divergence
    assert line["cost"] is not None  # sim-chat is priced in /v1/models
