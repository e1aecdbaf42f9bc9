"""What the window reads while the grid runs: each streaming cell's decoder (``Runner.live``),
dropped when the cell ends, and ``only`` through ``prepare_grid`` (a row, a column)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playground.evaluate.grid import prepare_grid, run_grid
from playground.evaluate.runner import Progress, Runner
from playground.sim.server import SimServer
from tests.evaluate.conftest import suite_of


def test_a_streaming_cells_decoder_is_there_until_the_cell_ends(sim: SimServer) -> None:
    suite = suite_of(pace="fast")
    seen: list[tuple[int, str]] = []

    def progress(_p: Progress) -> None:
        for key, decoder in runner.live.items():
            found = next(c for c in runner.cells if c.key == key)
            assert found.status == "running"  # never a finished cell's
            seen.append((len(decoder.state.text), key[1]))

    runner = Runner(suite, base_urls={"simulator": sim.base_url}, progress=progress)

    async def watch() -> None:
        task = asyncio.ensure_future(runner.run())
        while not task.done():
            for key, decoder in list(runner.live.items()):
                seen.append((len(decoder.state.text), key[1]))
            await asyncio.sleep(0.01)
        await task

    asyncio.run(watch())
    assert runner.live == {}
    assert all(c.status == "complete" for c in runner.cells)
    grown = {variant for length, variant in seen if length > 0}
    assert grown == {"chat", "messages"}  # each cell's answer was readable as it grew


def test_stop_drops_every_live_decoder(sim: SimServer) -> None:
    suite = suite_of(pace="realtime")
    runner = Runner(suite, base_urls={"simulator": sim.base_url})

    async def stop_mid_stream() -> None:
        task = asyncio.ensure_future(runner.run())
        while not any(d.state.text for d in runner.live.values()):
            await asyncio.sleep(0.01)
        runner.cancel()
        await task

    asyncio.run(asyncio.wait_for(stop_mid_stream(), 30))
    assert runner.live == {}
    assert {c.status for c in runner.cells} == {"cancelled"}


def test_prepare_grid_runs_only_the_cells_asked(sim: SimServer, tmp_path: Path) -> None:
    suite = suite_of(pace="instant", cases=[{"id": "a", "vars": {"topic": "owls"}},
                                            {"id": "b", "vars": {"topic": "bees"}}])  # fmt: skip
    grid = prepare_grid(suite, base_urls={"simulator": sim.base_url}, root=tmp_path,
                        only=[("b", "chat", 1), ("b", "messages", 1)])  # fmt: skip
    asyncio.run(run_grid(grid))
    assert [c.key for c in grid.cells] == [("b", "chat", 1), ("b", "messages", 1)]
    assert [c["case"] for c in grid.experiment.cells] == ["b", "b"]
