"""The Traffic list's cache and cost columns: each exchange judged against the previous exchange
of the same client, route and model, as the proxy's own line judges it (proxy/accounts.py), with
the divergence's both sides and the cost's arithmetic in the tooltips."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt

from playground.ui.docks.traffic.table import CACHE_COLUMN, COST_COLUMN
from tests.ui.conftest import Loop

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <(socket.socket|function _SelectorTransport.__del__):"
        "pytest.PytestUnraisableExceptionWarning"
    ),
]

SYSTEM = "You are a careful assistant who answers about rivers in two sentences. " * 4


def _post(base_url: str, system: str, agent: str) -> None:
    """One streamed chat completion through the proxy, as an app would send it."""
    body = {
        "model": "sim-chat",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": "Tell me about rivers."},
        ],
    }
    headers = {"User-Agent": agent, "X-Sim-Pace": "instant", "Authorization": "Bearer sk-t-1"}
    with httpx.stream(
        "POST", base_url + "/chat/completions", json=body, headers=headers, timeout=20
    ) as response:
        assert response.status_code == 200
        for _ in response.iter_bytes():
            pass


def test_a_client_that_changes_its_system_prompt(window: Any, sim: Any, qloop: Loop) -> None:
    base = qloop.do(window.start_proxy, sim.base_url)
    panel = window.traffic.panel
    accounts = panel.model.accounted.__self__  # the proxy's ExchangeAccounts
    qloop.wait_until(lambda: bool(accounts.ledger.models), 10)  # the upstream's rules, learnt
    _post(base, SYSTEM, "app-one")
    _post(base, "It is 12:01. " + SYSTEM, "app-one")
    _post(base, SYSTEM, "app-two")  # another client

    def ended() -> bool:
        entries = [e for e in panel.model.entries if e.ex.route == "chat"]
        return len(entries) == 3 and all(panel.model.row_cells(e)[COST_COLUMN] for e in entries)

    qloop.wait_until(ended, 20)
    rows = [e for e in reversed(panel.model.entries) if e.ex.route == "chat"]  # oldest first
    caches = [panel.model.row_cells(e)[CACHE_COLUMN] for e in rows]
    assert caches[0].startswith("cold")
    assert caches[1].startswith("prefix changed at system"), caches
    # Another client's first request: compared with nothing of app-one's (its changed system
    # would read as a change), it reads what app-one's first left in the simulator's cache.
    assert caches[2].startswith("hit: "), caches
    for entry in rows:
        assert panel.model.row_cells(entry)[COST_COLUMN].startswith("$")
    model = panel.model
    second = model.index(model.entries.index(rows[1]), CACHE_COLUMN)
    tip = model.data(second, Qt.ItemDataRole.ToolTipRole)
    assert "before: 'You are a" in tip and "now:    'It is 12:01" in tip
    cost = model.data(model.index(0, COST_COLUMN), Qt.ItemDataRole.ToolTipRole)
    assert "input:" in cost and "total:" in cost
    # The same verdicts as the proxy's own line for each exchange.
    for entry, shown in zip(rows, caches, strict=True):
        done = accounts.accounted(entry.ex.id)
        assert done is not None and shown.startswith(done.cache.status.replace("_", " "))
