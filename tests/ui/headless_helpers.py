"""Headless runs for tests: the real entry point in parallel batches; leak-free stderr checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# What a clean exit never prints (asyncio and httpx warnings under `python -X dev`).
ASYNC_WARNINGS = (
    "Task was destroyed",
    "Unclosed",
    "never awaited",
    "Traceback",
    "Task exception was never retrieved",
)


@dataclass
class HeadlessRun:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    dump: dict[str, Any] | None
    seconds: float


def headless_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PLAYGROUND_SETTINGS"] = str(tmp / "settings.ini")
    env["PLAYGROUND_DATA_DIR"] = str(tmp / "data")
    env["PYTHONWARNINGS"] = "default"
    env.update(extra)
    return env


def run_headless_batch(
    tmp: Path,
    runs: list[tuple[str, ...]],
    *,
    parallel: int = 6,
    timeout: float = 120.0,
    env_extra: dict[str, str] | None = None,
) -> list[HeadlessRun]:
    """Run `python -X dev -m playground ARGS --dump-state D --exit-when-done` for each ARGS,
    ``parallel`` at a time (each run starts its own simulator on a free port)."""
    results: list[HeadlessRun | None] = [None] * len(runs)
    pending = list(enumerate(runs))
    active: list[tuple[int, subprocess.Popen[str], Path, float]] = []
    deadline = time.monotonic() + timeout
    while pending or active:
        while pending and len(active) < parallel:
            i, args = pending.pop(0)
            work = tmp / f"run{i}"
            work.mkdir(parents=True, exist_ok=True)
            dump = work / "dump.json"
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-X",
                    "dev",
                    "-m",
                    "playground",
                    *args,
                    "--dump-state",
                    str(dump),
                    "--exit-when-done",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=headless_env(work, **(env_extra or {})),
            )
            active.append((i, proc, dump, time.monotonic()))
        still: list[tuple[int, subprocess.Popen[str], Path, float]] = []
        for i, proc, dump, t0 in active:
            if proc.poll() is None and time.monotonic() < deadline:
                still.append((i, proc, dump, t0))
                continue
            if proc.poll() is None:
                proc.kill()
            out, err = proc.communicate()
            data = json.loads(dump.read_text()) if dump.is_file() else None
            results[i] = HeadlessRun(
                runs[i], proc.returncode, out, err, data, time.monotonic() - t0
            )
        active = still
        time.sleep(0.05)
    return [r for r in results if r is not None]


def async_warnings(stderr: str) -> list[str]:
    """The lines of ``stderr`` that show an unclean asyncio/httpx shutdown or a traceback."""
    return [line for line in stderr.splitlines() if any(w in line for w in ASYNC_WARNINGS)]
