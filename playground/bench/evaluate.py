"""The ``eval`` group: what the Evaluate window's grid costs over the requests it makes.

- ``eval_vs_raw_client``: a grid of N cases × 3 variants (chat, responses, messages) × 3 repeats
  at concurrency 16 on the simulator at its realtime pace (about 30 tokens a second), run by the
  Evaluate window with the whole grid on screen (offscreen, 1920x1080): each stream read and
  decoded on a reader thread, journaled, scored, painted. Against it, a bare asyncio httpx
  client making the same requests (the same bodies, built by the runner's own request builder)
  at the same concurrency: the raw client's wall time over the window's (1.0: the window costs
  nothing; goal >= 0.9). The full run has the issue's 50 cases (450 streams, about two minutes
  a side); ``--quick`` fewer cases at the same pace and concurrency (``eval_grid`` says which).
- ``eval_frame_p99_ms``: the UI thread's lag while those streams go into the grid: a precise
  timer asked to fire every frame (16 ms) notes how late each firing is, whatever held the
  thread (the grid's frames, the runner's bookkeeping, the journals, the GIL); p99 of the lags.
  ``eval_frame_idle_p99_ms`` is the same timer's p99 for 5 s before, the window idle: what the
  machine's other work costs the thread on its own.
- ``eval_cell_kib``: Python memory each finished cell keeps beyond its capture on disk (its
  answer's first 16 KiB, scores, figures), measured with tracemalloc on a second, instant grid
  run headless.

The simulator runs in a process of its own, so its CPU is not the window's.
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Final

from playground.bench.proxy import _spawn, _stop, _url
from playground.bench.timing import percentile

Value = float | str
PACE: Final = "realtime"  # the simulator's own pace, for both sides (the figure)
IDLE_S: Final = 5.0  # the timer's lag with the window idle, before the grid starts
FULL_CASES: Final = 50  # the grid: 50 cases × 3 variants × 3 repeats = 450 streams
CONCURRENCY: Final = 16
REPEATS: Final = 3
TOPICS: Final = ("rivers", "owls", "tides", "glaciers", "maps", "bridges", "clocks", "bees")


def grid_suite(cases: int, pace: str, repeat: int = REPEATS) -> Any:
    from playground.evaluate.suite import parse_suite

    variant = {"model": "sim", "prompt": "Explain {{topic}} number {{n}}.", "params": {}}
    return parse_suite(
        {
            "name": "bench",
            "pace": pace,
            "repeat": repeat,
            "concurrency": CONCURRENCY,
            "variants": [
                variant | {"name": "chat", "route": "chat"},
                variant | {"name": "responses", "route": "responses"},
                variant | {"name": "messages", "route": "messages", "params": {"max_tokens": 1024}},
            ],
            "cases": [
                {"id": f"c{n}", "vars": {"topic": TOPICS[n % len(TOPICS)], "n": str(n)}}
                for n in range(cases)
            ],
            "checks": [
                {"type": "contains", "value": "{{topic}}", "ignore_case": True},
                {"type": "ttft_ms", "max": 60000},
                {"type": "no_findings"},
                {"type": "usage_reported"},
            ],
        }
    )


async def _raw(suite: Any, base_url: str) -> tuple[float, int]:
    """The same requests with a bare httpx client, 16 at a time: (seconds, bytes read)."""
    import httpx

    from playground.evaluate.requests import cell_spec

    specs = [
        cell_spec(variant, case, base_url=base_url, key=None, pace=suite.pace)
        for case in suite.cases
        for variant in suite.variants
        for _ in range(suite.repeat)
    ]
    gate = asyncio.Semaphore(CONCURRENCY)
    total = 0

    async def one(client: httpx.AsyncClient, spec: Any) -> None:
        nonlocal total
        async with (
            gate,
            client.stream(
                spec.method, spec.url, headers=spec.headers, content=spec.body_bytes()
            ) as response,
        ):
            async for chunk in response.aiter_raw():
                total += len(chunk)

    async with httpx.AsyncClient(timeout=120.0) as client:
        started = time.perf_counter()
        await asyncio.gather(*(one(client, spec) for spec in specs))
        return time.perf_counter() - started, total


async def _through_runner(suite: Any, base_url: str, folder: Path) -> tuple[float, Any]:
    from playground.evaluate.runner import Runner

    runner = Runner(suite, base_urls={"simulator": base_url}, capture_dir=folder)
    started = time.perf_counter()
    await runner.run()
    return time.perf_counter() - started, runner


def _cell_kib(base_url: str, cases: int) -> float:
    """Memory kept per finished cell: a grid at instant pace under tracemalloc, runner kept."""
    suite = grid_suite(cases, "instant")
    with tempfile.TemporaryDirectory(prefix="playground-bench-eval-") as folder:
        # A first small grid untraced: the modules' imports and first-use caches are not cells'.
        asyncio.run(_through_runner(grid_suite(1, "instant"), base_url, Path(folder) / "warm"))
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            _elapsed, runner = asyncio.run(_through_runner(suite, base_url, Path(folder)))
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        finished = sum(1 for c in runner.cells if c.finished)
        if not finished or any(c.status != "complete" for c in runner.cells):
            raise RuntimeError("the memory grid did not complete")
        return (after - before) / finished / 1024.0


def _grid_in_window(base_url: str, cases: int) -> tuple[float, list[float], list[float], Any]:
    """The Evaluate window running the grid on screen: (wall seconds, the UI thread's lag at
    each firing of a per-frame timer in ms while the grid ran, the same lags for IDLE_S before
    it started with the window idle, the grid run)."""
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from playground.ui.evaluate.window import EvaluateWindow
    from playground.ui.runtime import gc_schedule
    from playground.ui.runtime.frame_rate import FRAME_MS

    suite = grid_suite(cases, PACE)
    app = QApplication.instance() or QApplication([])
    gc_schedule.collect_on_ui_thread()  # as the main window has it from its first frame
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    lags: list[float] = []
    idle: list[float] = []
    due = 0.0
    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setSingleShot(True)

    def tick() -> None:
        nonlocal due
        now = time.perf_counter()
        lags.append(max(0.0, now - due) * 1000.0)
        due = now + FRAME_MS / 1000.0
        ticker.start(FRAME_MS)

    ticker.timeout.connect(tick)
    with tempfile.TemporaryDirectory(prefix="playground-bench-eval-") as folder:
        window = EvaluateWindow(base_urls=lambda: {"simulator": base_url}, root=Path(folder))
        window.resize(1920, 1080)
        window.show()
        window.load_source(suite.source)

        async def run() -> tuple[float, Any]:
            nonlocal due
            await asyncio.sleep(0.5)  # the window's first paints are not the grid's
            # The machine's own share of the lag: the same timer, the window idle.
            due = time.perf_counter() + FRAME_MS / 1000.0
            ticker.start(FRAME_MS)
            await asyncio.sleep(IDLE_S)
            ticker.stop()
            idle[:] = lags
            lags.clear()
            started = time.perf_counter()
            if not window.run("all"):
                raise RuntimeError(f"the grid did not start: {window.message.text()}")
            due = time.perf_counter() + FRAME_MS / 1000.0
            ticker.start(FRAME_MS)
            await window.controller.wait()
            ticker.stop()
            return time.perf_counter() - started, window.controller.grid

        with loop:
            seconds, grid = loop.run_until_complete(run())
        window.close()
        window.deleteLater()
    asyncio.set_event_loop(None)
    return seconds, lags, idle, grid


def eval_figures(cases: int, memory_cases: int) -> dict[str, Value]:
    proc, base_url = _spawn(["playground", "sim", "--port", "0"], _url)
    try:
        suite = grid_suite(cases, PACE)
        raw_s, raw_bytes = asyncio.run(_raw(suite, base_url))
        kib = _cell_kib(base_url, memory_cases)
        window_s, lags, idle, grid = _grid_in_window(base_url, cases)
        incomplete = [c for c in grid.cells if c.status != "complete"]
        if incomplete or grid.runner.requests != len(grid.cells):
            raise RuntimeError(f"{len(incomplete)} cells of the window's grid did not complete")
    finally:
        _stop(proc)
    streams = len(grid.cells)
    scale = "the issue's grid" if cases >= FULL_CASES else f"scaled down from {FULL_CASES} cases"
    return {
        "eval_vs_raw_client": raw_s / window_s,
        "eval_cell_kib": kib,
        "eval_frame_p99_ms": percentile(lags, 0.99),
        "eval_grid": f"{cases} cases x 3 variants x {REPEATS} repeats = {streams} streams, "
        f"concurrency {CONCURRENCY}, {PACE} pace ({scale})",
        "eval_streams": float(streams),
        "eval_window_s": window_s,
        "eval_raw_client_s": raw_s,
        "eval_raw_bytes": float(raw_bytes),
        "eval_passed": float(sum(1 for c in grid.cells if c.passed)),
        "eval_frame_lag_max_ms": max(lags, default=0.0),
        "eval_frame_lag_median_ms": percentile(lags, 0.5),
        "eval_frame_ticks": float(len(lags)),
        "eval_frame_idle_p99_ms": percentile(idle, 0.99),
    }
