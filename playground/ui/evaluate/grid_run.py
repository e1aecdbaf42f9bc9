"""One grid run at a time, on the window's event loop: started from a suite, stopped, reported.

The engine (``evaluate.grid``) runs and saves the experiment; this keeps the task, hands the
runner's cells to the model, and keeps the latest progress for the window to show.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from playground.evaluate.cell_thread import send_on_reader_thread
from playground.evaluate.grid import GridRun, prepare_grid, run_grid
from playground.evaluate.runner import Progress
from playground.evaluate.suite import Suite
from playground.runs.writer import FileWriter
from playground.ui.evaluate.grid_model import GridModel
from playground.ui.runtime import gc_schedule
from playground.ui.runtime.frames import SWITCH_INTERVAL_S

__all__ = ["GridController"]


class GridController(QObject):
    """Starts, stops and follows the grid's runs; ``finished`` gives the experiment's folder."""

    started = Signal()
    finished = Signal(str)

    def __init__(
        self,
        model: GridModel,
        base_urls: Callable[[], Mapping[str, str]],
        root: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.base_urls = base_urls
        self.root = root
        self.grid: GridRun | None = None
        self.progress: Progress | None = None
        self.task: asyncio.Future[None] | None = None
        self._writer = FileWriter(name="evaluate-captures")

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(
        self,
        suite: Suite,
        *,
        repeat: int | None = None,
        only: Iterable[tuple[str, str, int]] | None = None,
    ) -> GridRun | None:
        """Run ``suite`` (or only the given cells); None while a run is still going."""
        if self.running:
            return None
        grid = prepare_grid(
            suite,
            base_urls=self.base_urls(),
            repeat=repeat,
            progress=self._on_progress,
            root=self.root,
            only=only,
            # Each stream read and decoded on a reader thread, as a panel's stream is, and the
            # captures' lines, fsyncs and renames on a thread of their own: an fsync per cell's
            # end on the window's thread made its frames late by up to 100 ms.
            sender=partial(send_on_reader_thread, writer=self._writer),
        )
        self.grid = grid
        self.progress = grid.runner.snapshot()
        self.model.set_grid([c.id for c in suite.cases], [v.name for v in suite.variants])
        self.model.attach(grid.cells, grid.runner.live)
        # As for any stream (ui/runtime/frames.py): the UI thread waits at most 1 ms for the GIL
        # the run-files thread holds, and no full collection runs while the grid streams.
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        gc_schedule.hold()
        self.task = asyncio.ensure_future(self._run(grid))
        self.started.emit()
        return grid

    def stop(self) -> None:
        """Cancel every stream now; unfinished cells end ``cancelled``, never half-scored."""
        if self.grid is not None and self.running:
            self.grid.runner.cancel()

    async def wait(self) -> None:
        """Until the run (if any) has ended; the run is not cancelled if this wait is."""
        if self.task is not None:
            await asyncio.wait({self.task})

    def _on_progress(self, progress: Progress) -> None:
        self.progress = progress  # shown with the model's next frame, not now
        self.model.touch()

    async def _run(self, grid: GridRun) -> None:
        try:
            await run_grid(grid)
        finally:
            # Every capture written and in place before the run is said to be over.
            await asyncio.get_running_loop().run_in_executor(None, self._writer.flush)
            gc_schedule.release()
            self.progress = grid.runner.snapshot()
            self.model.detach()
            self.finished.emit(str(grid.experiment.folder))
