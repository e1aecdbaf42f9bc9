"""The grid's cost: each cell shows what its repeats cost (the engine's ``cost`` of each, as its
experiment file has them) and its prompt cache; the progress line the experiment's total; a
model with no known price reads "cost unknown", never $0."""

from __future__ import annotations

from typing import Any

import pytest

from playground.evaluate.experiments import list_experiments
from playground.ui.evaluate.grid_delegate import status_line
from playground.ui.evaluate.grid_model import CELL_ROLE, tooltip

pytestmark = pytest.mark.timeout(180)

SYSTEM = "You explain {{topic}} carefully, in a few short sentences for a curious reader. " * 3


def _suite(model: str) -> dict[str, Any]:
    return {
        "name": "costs",
        "pace": "instant",
        "variants": [
            {"name": "chat", "route": "chat", "model": model, "system": SYSTEM,
             "prompt": "Tell me about {{topic}}"},
        ],
        "cases": [{"id": "rivers", "vars": {"topic": "rivers"}},
                  {"id": "owls", "vars": {"topic": "owls"}}],
        "checks": [{"type": "usage_reported"}],
    }  # fmt: skip


def _saved(win: Any) -> list[dict[str, Any]]:
    grid = win.controller.grid
    found = [
        e for e in list_experiments(grid.experiment.folder.parent) if e.id == grid.experiment.id
    ]
    return found[0].cells


def test_each_cell_and_the_experiment_show_their_cost(evaluate: Any, run_to_end: Any) -> None:
    evaluate.load_source(_suite("sim-chat"))
    evaluate.grid.repeat.setValue(2)
    run_to_end(evaluate)
    model = evaluate.model
    saved = _saved(evaluate)
    assert len(saved) == 4 and all(c["cost"] is not None for c in saved)
    for row, case in enumerate(model.cases):
        view = model.index(row, 0).data(CELL_ROLE)
        expected = sum(c["cost"]["total"] for c in saved if c["case"] == case)
        assert view.cost == pytest.approx(expected, rel=1e-12) and view.priced == 2
        assert "$" in status_line(view)
        assert view.cache.startswith("cache ")  # the second repeat against the first
        assert "cost $" in tooltip(view)
    total = sum(c["cost"]["total"] for c in saved)
    text = evaluate.grid.status.text()
    assert " · cost $" in text, text
    shown = model.total_cost()[0]
    assert shown == pytest.approx(total, rel=1e-12)


def test_an_unpriced_model_reads_cost_unknown(evaluate: Any, run_to_end: Any) -> None:
    evaluate.load_source(_suite("house-model"))
    run_to_end(evaluate)
    view = evaluate.model.index(0, 0).data(CELL_ROLE)
    assert view.cost is None and view.unpriced == 1
    assert status_line(view).endswith("cost unknown") and "$" not in status_line(view)
    assert evaluate.grid.status.text().endswith(" · cost unknown")
