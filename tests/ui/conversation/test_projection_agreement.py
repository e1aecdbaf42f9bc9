"""inspect --json and the headless window's --dump-state agree on every recorded capture.

Both print the one projection of a StreamState (protocol/projection.py); the window's run goes
through the real replay pipeline (``--replay FILE --speed 0``), inspect through the CLI. They
must say the same of route, status, finish, text, reasoning, tool calls, usage and findings.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from headless_helpers import run_headless_batch

from playground.cli.inspect import main as inspect_main

pytestmark = [pytest.mark.gui, pytest.mark.slow, pytest.mark.timeout(900)]

KEYS = ("route", "status", "finish", "text", "reasoning", "tool_calls", "usage")


class _Stdout(io.StringIO):
    """A text stdout with the ``buffer`` inspect writes its bytes to."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes_out = io.BytesIO()

    @property
    def buffer(self) -> io.BytesIO:
        return self.bytes_out


def _inspect(path: Path) -> dict[str, Any]:
    out = _Stdout()
    with redirect_stdout(out):
        assert inspect_main(["--json", str(path)]) == 0
    return json.loads(out.bytes_out.getvalue())  # type: ignore[no-any-return]


def _codes(state: dict[str, Any]) -> list[str]:
    return sorted(f["code"] for f in state["findings"])


def test_inspect_and_the_headless_dump_agree_on_every_capture(
    captures_dir: Path, tmp_path: Path
) -> None:
    files = sorted(captures_dir.glob("*/*.sse"))
    assert len(files) >= 39
    runs = run_headless_batch(
        tmp_path,
        [("--replay", str(f), "--speed", "0") for f in files],
        parallel=4,
        timeout=600,
    )
    assert len(runs) == len(files)
    differ: list[tuple[str, str]] = []
    for path, run in zip(files, runs, strict=True):
        name = f"{path.parent.name}/{path.name}"
        assert run.returncode == 0 and run.dump is not None, (name, run.stderr[-2000:])
        want = _inspect(path)
        got = run.dump
        differ.extend((name, key) for key in KEYS if got[key] != want[key])
        if _codes(got) != _codes(want):
            differ.append((name, "findings"))
    assert differ == []
