"""The simulator on a free loopback port, a data folder of the test's own, and a grid runner."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.evaluate.runner import Cell, Runner
from playground.evaluate.suite import Suite, parse_suite
from playground.sim.server import SimServer


@pytest.fixture(scope="session")
def sim() -> Iterator[SimServer]:
    with SimServer() as server:
        yield server


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(folder))
    return folder


def suite_of(**fields: Any) -> Suite:
    """A suite on the simulator at instant pace, two variants (chat, messages) unless given."""
    data: dict[str, Any] = {
        "name": "test",
        "pace": "instant",
        "variants": [
            {"name": "chat", "route": "chat", "model": "sim", "prompt": "Tell me about {{topic}}"},
            {
                "name": "messages",
                "route": "messages",
                "model": "sim",
                "prompt": "Tell me about {{topic}}",
                "params": {"max_tokens": 1024},
            },
        ],
        "cases": [{"id": "c1", "vars": {"topic": "rivers"}}],
    }
    data.update(fields)
    return parse_suite(data)


def run_suite(suite: Suite, sim: SimServer, tmp: Path | None = None, **kw: Any) -> Runner:
    runner = Runner(suite, base_urls={"simulator": sim.base_url}, capture_dir=tmp, **kw)
    asyncio.run(runner.run())
    return runner


def cell(runner: Runner, case: str, variant: str, repeat: int = 1) -> Cell:
    return next(c for c in runner.cells if c.key == (case, variant, repeat))


def results(found: Cell) -> dict[str, bool]:
    return {c.type: c.passed for c in found.checks}
