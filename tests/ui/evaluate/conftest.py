"""An Evaluate window on the session's simulator, its experiments in the test's own folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def evaluate(qloop: Any, sim: Any, qtbot: Any, tmp_path: Path) -> Iterator[Any]:
    from playground.ui.evaluate.window import EvaluateWindow

    win = EvaluateWindow(base_urls=lambda: {"simulator": sim.base_url}, root=tmp_path / "exp")
    qtbot.addWidget(win)
    win.show()
    yield win
    if win.controller.running:
        win.stop()
        qloop.run(win.controller.wait(), 30)


@pytest.fixture
def run_to_end(qloop: Any) -> Callable[..., None]:
    """Start a run as the grid's buttons do and wait until the engine saved its experiment."""

    def run(win: Any, kind: str = "all", index: int = -1) -> None:
        assert qloop.do(win.run, kind, index), win.message.text()
        qloop.run(win.controller.wait(), 90)
        qloop.sleep(0.05)  # the last frame's update

    return run
