"""Each cell's cache and cost: a later repeat of a case hits the prefix an earlier one left,
a model the provider does not price has an unknown cost, and the experiment adds them up."""

from __future__ import annotations

from typing import Any

from playground.evaluate.experiments import summarize
from playground.sim.server import SimServer

from .conftest import run_suite, suite_of

SYSTEM = "You are the evaluation's careful assistant; answer in a few sentences only. " * 6


def _variant(name: str, route: str, model: str = "sim-chat") -> dict[str, Any]:
    variant: dict[str, Any] = {
        "name": name,
        "route": route,
        "model": model,
        "system": SYSTEM,
        "prompt": "Tell me about {{topic}}",
    }
    if route == "messages":
        variant["params"] = {"max_tokens": 64, "cache_control": {"type": "ephemeral"}}
    return variant


def test_repeats_hit_the_cache_and_cells_are_priced(sim: SimServer) -> None:
    suite = suite_of(
        variants=[_variant("chat", "chat"), _variant("messages", "messages")],
        repeat=2,
        concurrency=1,
    )
    cells = run_suite(suite, sim).cells
    by_key = {(c.variant, c.repeat): c for c in cells}
    for variant in ("chat", "messages"):
        first, second = by_key[(variant, 1)], by_key[(variant, 2)]
        assert first.cache is not None and second.cache is not None
        assert first.cache["status"] == "cold", first.cache
        assert second.cache["status"] == "hit", second.cache
        assert second.cache["cached_tokens"] > 0 and second.cache["divergence"] is None
        for cell in (first, second):
            assert cell.cost is not None and cell.cost["currency"] == "USD"
            assert cell.as_json()["cost"] == cell.contract_json()["cost"] == cell.cost
        # A read costs a tenth of the input price: the second is cheaper on input.
        assert second.cost is not None
        assert "cached_input" in {line["field"] for line in second.cost["lines"]}
    rows = [c.as_json() for c in cells]
    total = summarize(rows)["cost"]
    assert total is not None
    assert abs(total["total"] - sum(c.cost["total"] for c in cells if c.cost)) < 1e-12


def test_an_unpriced_model_has_an_unknown_cost(sim: SimServer) -> None:
    suite = suite_of(variants=[_variant("other", "chat", model="not-listed")])
    (cell,) = run_suite(suite, sim, prices={}).cells
    assert cell.status == "complete" and cell.cost is None
    assert cell.cache is not None and cell.cache["status"] in ("cold", "below_minimum")
    assert summarize([cell.as_json()])["cost"] is None
