"""One grid run from start to saved experiment: a fresh experiment folder, the runner with its
captures in it, and the experiment file written atomically at the end (cancelled or not)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from playground.evaluate.experiments import Experiment, new_experiment, save_experiment
from playground.evaluate.runner import Cell, Progress, Runner, Sender
from playground.evaluate.suite import Suite

__all__ = ["GridRun", "prepare_grid", "run_grid"]


@dataclass
class GridRun:
    experiment: Experiment
    runner: Runner

    @property
    def cells(self) -> list[Cell]:
        return self.runner.cells


def prepare_grid(
    suite: Suite,
    *,
    base_urls: Mapping[str, str],
    variants: list[str] | None = None,
    repeat: int | None = None,
    concurrency: int | None = None,
    progress: Callable[[Progress], None] | None = None,
    root: Path | None = None,
    only: Iterable[tuple[str, str, int]] | None = None,
    sender: Sender | None = None,
) -> GridRun:
    """The experiment folder and its runner, not started (the caller may keep it to cancel);
    ``only``: the (case, variant, repeat) cells to run (the window's row, column, failed ones)."""
    experiment = new_experiment(suite.name, root)
    runner = Runner(
        suite,
        base_urls=base_urls,
        variants=variants,
        repeat=repeat,
        concurrency=concurrency,
        capture_dir=experiment.cells_dir,
        progress=progress,
        only=only,
        sender=sender,
    )
    return GridRun(experiment, runner)


async def run_grid(grid: GridRun) -> GridRun:
    """Run the grid and save the experiment, whatever happened to its cells."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    runner = grid.runner
    try:
        await runner.run()
    finally:
        # Written (an fsync and a rename) on a worker thread: the window's frames go on meanwhile
        # (a 100 ms late frame at the end of each grid run, on a loaded 2-core VM).
        save = partial(
            save_experiment,
            grid.experiment,
            runner.suite.source,
            runner.cells,
            started_at=started,
            requests=runner.requests,
            retries=runner.retries,
            cancelled=runner.cancelled,
            extra={
                "variants": [v.name for v in runner.variants],
                "repeat": runner.repeat,
                "concurrency": runner.concurrency,
            },
        )
        await asyncio.get_running_loop().run_in_executor(None, save)
    return grid
