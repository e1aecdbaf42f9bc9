"""PySide's per-module source scan: answered for the playground's and the standard library's
modules without reading their files; any other module is still scanned."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_own_and_standard_modules_are_answered_and_others_still_scanned() -> None:
    script = textwrap.dedent(
        """
        import sys, inspect
        read = []
        real = inspect.getsource
        inspect.getsource = lambda obj: read.append(obj.__name__) or real(obj)
        import PySide6.QtCore
        from playground.ui.runtime import pyside_scan  # loaded before it answers: scanned itself
        from playground.ui.window import shell  # the window: a hundred modules
        import tomllib  # a standard module not imported before
        d = sys.modules["shibokensupport.feature"].pyside_feature_dict
        ours = [m for m in read if m.startswith("playground") or m == "tomllib"]
        print(ours, d.get("playground.ui.window"), d.get("tomllib"), "qasync" in d)
        import qasync
        print("qasync" in read, d.get("qasync"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    ).stdout.splitlines()
    # Nothing else of ours read, each given PySide's default (0).
    assert out[0] == "['playground.ui.runtime.pyside_scan'] 0 0 False"
    assert out[1] == "True 0"  # qasync names PySide6 in its source: the scan found it
