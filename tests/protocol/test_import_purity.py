"""Importing every module of playground.protocol loads neither PySide6 nor httpx."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib, pkgutil, sys
import playground.protocol as pkg
names = [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
for name in names:
    importlib.import_module(name)
import playground.cli.inspect
heavy = ("PySide6", "httpx", "qasync", "shiboken6")
bad = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
print(len(names), bad)
"""


def test_protocol_imports_no_qt_no_httpx() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    count, bad = result.stdout.strip().split(" ", 1)
    assert int(count) >= 15  # stream, summary, capture, findings, routes.* ...
    assert bad == "[]"
