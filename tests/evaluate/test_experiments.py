"""Experiments: saved atomically in the data folder, listed, and compared (regressions first)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from playground.evaluate.experiments import (
    compare,
    list_experiments,
    load_experiment,
    load_results,
)
from playground.evaluate.grid import prepare_grid, run_grid
from playground.evaluate.suite import Suite
from playground.sim.server import SimServer
from tests.evaluate.conftest import suite_of

CASES: list[dict[str, Any]] = [
    {"id": "a", "vars": {"topic": "rivers"}},
    {"id": "b", "vars": {"topic": "owls"}},
    {"id": "c", "vars": {"topic": "tides"}, "fault": "http-500"},
]


def _run(suite: Suite, sim: SimServer) -> Path:
    grid = prepare_grid(suite, base_urls={"simulator": sim.base_url})
    asyncio.run(run_grid(grid))
    return grid.experiment.folder


def test_an_experiment_is_saved_in_the_data_folder(sim: SimServer, data_dir: Path) -> None:
    folder = _run(suite_of(cases=CASES[:1], checks=[{"type": "usage_reported"}]), sim)
    assert folder.parent == data_dir / "experiments"
    experiment = load_experiment(folder)
    assert experiment.data["suite"]["cases"] == CASES[:1]  # the suite as it was
    assert experiment.data["summary"] == {
        "cells": 2,
        "passed": 2,
        "failed": 0,
        "errors": 0,
        "requests": 2,
        "retries": 0,
        "cost": None,  # the model "sim" is not in the simulator's priced list: unknown, not 0
    }
    for cell in experiment.cells:
        assert Path(cell["capture"]).parent == folder / "cells" and Path(cell["capture"]).is_file()
    assert not list(folder.glob("*.tmp"))
    assert [e.id for e in list_experiments()] == [experiment.id]


def test_two_experiments_compared_list_exactly_the_regressed_cells(sim: SimServer) -> None:
    check = [{"type": "contains", "value": "{{word}}"}]
    before = suite_of(
        cases=[{**c, "vars": {**c["vars"], "word": "Tell"}} for c in CASES], checks=check
    )
    # The second run looks for a word no answer holds, for case b only: b regresses on both.
    after_cases = [{**c, "vars": {**c["vars"], "word": "Tell"}} for c in CASES]
    after_cases[1]["vars"]["word"] = "zzz-nowhere"
    after = suite_of(cases=after_cases, checks=check)
    old = _run(before, sim)
    new = _run(after, sim)
    comparison = compare(load_results(str(old)), load_results(new.name))
    assert [(r["case"], r["variant"]) for r in comparison.regressions] == [
        ("b", "chat"),
        ("b", "messages"),
    ]
    assert comparison.fixed == []
    by_cell = {(d["case"], d["variant"]): d for d in comparison.deltas}
    assert by_cell[("b", "chat")]["checks"] == {"contains": -1.0}
    assert by_cell[("a", "chat")]["checks"] == {} and by_cell[("a", "chat")]["pass_rate"] == 0
    assert comparison.regressions[0]["output_was"] == comparison.regressions[0]["output_now"]
    assert {(d["case"], d["variant"]) for d in comparison.deltas} == {
        (c, v) for c in "abc" for v in ("chat", "messages")
    }
    back = compare(load_results(new.name), load_results(str(old / "experiment.json")))
    assert [(r["case"], r["variant"]) for r in back.fixed] == [("b", "chat"), ("b", "messages")]
    assert back.regressions == []


def test_a_json_output_is_a_baseline_and_a_bad_one_says_why(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    out.write_text(
        json.dumps({"cells": [{"case": "a", "variant": "A", "repeat": 1, "pass": True}]})
    )
    assert load_results(str(out))[0]["case"] == "a"
    with pytest.raises(ValueError, match="no such experiment"):
        load_results(str(tmp_path / "missing"))
    (tmp_path / "bad.json").write_text("[" * 1000)
    with pytest.raises(ValueError, match="not valid JSON"):
        load_results(str(tmp_path / "bad.json"))
