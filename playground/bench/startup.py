"""Startup: time until the playground's window is on screen, over a bare PySide6 window's."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

Value = float | str

# Both children install the same probe: the first paint of the main window prints a marker, the
# first paint with its contents built another (the bare window's first paint is both; ours shows
# its window empty first, then builds the contents: MainWindow.build), and the process ends at
# once (teardown is not startup). The parent times spawn -> each marker. The probe
# watches the main window only, from its show(): an application-wide Python event filter (the
# first version) hands every event of every object to Python before the first paint (about 3,300
# events in our window, ~4 µs each) and, meeting Qt-private objects such as the gesture manager
# any scroll area makes, has PySide create every lazy QtCore/QtGui/QtWidgets class at once. That
# cost the playground about 35 ms and the bare window about 3 ms: the probe, not the program.
_PROBE = """
import os, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow

class _Probe(QObject):
    shown = False

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            if not self.shown:
                self.shown = True
                sys.stdout.write("SHOWN\\n")
                sys.stdout.flush()
            if getattr(obj, "built", True):
                sys.stdout.write("READY\\n")
                sys.stdout.flush()
                os._exit(0)
        return False

app = QApplication.instance() or QApplication([sys.argv[0]])
_probe = _Probe()
_show = QMainWindow.show

def _show_watched(window):
    window.installEventFilter(_probe)
    _show(window)

QMainWindow.show = _show_watched
"""

_BARE = (
    _PROBE
    + """
window = QMainWindow()
window.resize(1560, 920)
window.show()
app.exec()
"""
)

_OURS = (
    _PROBE
    + """
from playground.ui.app import main
main([])
"""
)


def _time_to_shown(script: str, env: dict[str, str], timeout: float) -> tuple[float, float]:
    """Spawn to the window's first paint, and to its first paint with its contents, in s."""
    started = time.perf_counter()
    # The context closes the child's pipes: left to the garbage collector they are a
    # ResourceWarning, which the test suite treats as a failure.
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            marks: list[float] = []
            for expected in ("SHOWN", "READY"):
                line = proc.stdout.readline()
                marks.append(time.perf_counter() - started)
                if line.strip() != expected:
                    proc.kill()
                    _, err = proc.communicate(timeout=timeout)
                    tail = (err.strip().splitlines() or ["no window"])[-1]
                    raise RuntimeError(f"the window never showed ({expected}): {tail}")
            proc.wait(timeout=timeout)
            return marks[0], marks[1]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def startup_figures(repeat: int) -> dict[str, Value]:
    """``startup_vs_bare_qt``: best-of-``repeat`` time to the first painted window, ours over a
    bare ``QMainWindow``'s, alternating the two so machine load hits both alike;
    ``startup_ready_vs_bare_qt``: ours to its first paint with its contents over the same."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory(prefix="playground-bench-") as home:
        env = dict(os.environ)
        env["QT_QPA_PLATFORM"] = env.get("QT_QPA_PLATFORM", "offscreen")
        env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
        env["XDG_CONFIG_HOME"] = os.path.join(home, "config")  # a first run: fresh settings
        env["XDG_DATA_HOME"] = os.path.join(home, "data")
        env["XDG_CACHE_HOME"] = os.path.join(home, "cache")
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        # An installed program starts from compiled bytecode (pip compiles it at install time).
        # Where the environment forbids writing it (PYTHONDONTWRITEBYTECODE), every start would
        # recompile each module instead; the warm-up runs below fill a private cache for both.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(home, "pycache")
        _time_to_shown(_BARE, env, 60.0)  # warm the OS file cache for both
        _time_to_shown(_OURS, env, 60.0)
        bare: list[tuple[float, float]] = []
        ours: list[tuple[float, float]] = []
        for _ in range(max(1, repeat)):
            bare.append(_time_to_shown(_BARE, env, 60.0))
            ours.append(_time_to_shown(_OURS, env, 60.0))
    bare_shown = min(shown for shown, _ in bare)
    ours_shown = min(shown for shown, _ in ours)
    ours_ready = min(ready for _, ready in ours)
    return {
        "startup_vs_bare_qt": ours_shown / bare_shown,
        # The whole window, painted with its contents, over the bare window's first paint.
        "startup_ready_vs_bare_qt": ours_ready / bare_shown,
        "startup_ours_s": ours_shown,
        "startup_ours_ready_s": ours_ready,
        "startup_bare_qt_s": bare_shown,
    }
