"""The ``eval`` group: what the evaluation runner costs over the requests it makes, headless.

- ``eval_vs_raw_client``: a grid of N cases × 3 variants (chat, responses, messages) × 3 repeats
  (450 streams at full size) at concurrency 16, through the runner (decoded, journaled, scored),
  against a bare asyncio httpx client making the same requests (the same bodies, built by the
  runner's own request builder) at the same concurrency: the raw client's wall time over the
  runner's (1.0: the runner costs nothing; goal >= 0.9).
- ``eval_cell_kib``: Python memory each finished cell keeps beyond its capture on disk (its
  answer's first 16 KiB, scores, figures), measured with tracemalloc on a second, instant grid.
- ``eval_frame_p99_ms``: the Evaluate window's grid (offscreen, 1920x1080) while the same 450
  streams run into it: each frame's work, the model's update (the cells that changed) and the
  paint it asked for, delivered at once (``frames.settle_layouts``, ``frames.paint_now``, as a
  session's frame is measured) so the paint is inside the time; p99 over the run's frames. The
  collector runs on the UI thread's schedule, as in the main window.

The simulator runs in a process of its own, so its CPU is not the runner's. Pace: realtime (about
30 tokens a second) makes each side take over two minutes on two cores (450 streams of about 130
tokens, 16 at a time: 28 rounds of 4.5 s); the grid runs at ``PACE`` (10 ms a token), the same for
both sides, so a side takes about 40 s.
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
PACE: Final = "10"  # ms per token, for both sides (see the module's docstring)
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


def _grid_frames(base_url: str, cases: int) -> tuple[list[float], Any]:
    """The frames of the Evaluate window's grid while a 450-stream grid runs into it (ms each)."""
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    from playground.ui.evaluate.window import EvaluateWindow
    from playground.ui.runtime import gc_schedule
    from playground.ui.runtime.frames import paint_now, settle_layouts

    suite = grid_suite(cases, PACE)
    app = QApplication.instance() or QApplication([])
    gc_schedule.collect_on_ui_thread()  # as the main window has it from its first frame
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    frames: list[float] = []
    with tempfile.TemporaryDirectory(prefix="playground-bench-eval-") as folder:
        window = EvaluateWindow(base_urls=lambda: {"simulator": base_url}, root=Path(folder))
        window.resize(1920, 1080)
        window.show()
        window.load_source(suite.source)
        model, update = window.model, window.model._frame

        def timed_frame() -> None:
            started = time.perf_counter()
            update()
            settle_layouts()
            paint_now()
            frames.append((time.perf_counter() - started) * 1000.0)

        model._timer.timeout.disconnect()
        model._timer.timeout.connect(timed_frame)

        async def run() -> Any:
            if not window.run("all"):
                raise RuntimeError(f"the grid did not start: {window.message.text()}")
            await window.controller.wait()
            return window.controller.grid

        with loop:
            grid = loop.run_until_complete(run())
        window.close()
        window.deleteLater()
    asyncio.set_event_loop(None)
    return frames, grid


def eval_figures(cases: int, memory_cases: int) -> dict[str, Value]:
    proc, base_url = _spawn(["playground", "sim", "--port", "0"], _url)
    try:
        suite = grid_suite(cases, PACE)
        raw_s, raw_bytes = asyncio.run(_raw(suite, base_url))
        with tempfile.TemporaryDirectory(prefix="playground-bench-eval-") as folder:
            eval_s, runner = asyncio.run(_through_runner(suite, base_url, Path(folder)))
        incomplete = [c for c in runner.cells if c.status != "complete"]
        if incomplete or runner.requests != len(runner.cells):
            raise RuntimeError(f"{len(incomplete)} cells did not complete")
        kib = _cell_kib(base_url, memory_cases)
        frames, grid = _grid_frames(base_url, cases)
        if any(c.status != "complete" for c in grid.cells):
            raise RuntimeError("the window's grid did not complete")
    finally:
        _stop(proc)
    return {
        "eval_vs_raw_client": raw_s / eval_s,
        "eval_cell_kib": kib,
        "eval_streams": float(len(runner.cells)),
        "eval_runner_s": eval_s,
        "eval_raw_client_s": raw_s,
        "eval_raw_bytes": float(raw_bytes),
        "eval_passed": float(sum(1 for c in runner.cells if c.passed)),
        "eval_frame_p99_ms": percentile(frames, 0.99),
        "eval_frames": float(len(frames)),
        "eval_window_cells": float(len(grid.cells)),
    }
