"""Startup: what the real entry point has and has not done at the window's first paint,
and that everything deferred is there right after it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from headless_helpers import headless_env

# The benchmark's probe (playground/bench/startup.py): the first paint of the main window is the
# first frame. Here it records what is loaded then, and again once the program has settled.
_PROBE = textwrap.dedent(
    """
    import gc, json, os, sys
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    facts = {}

    def state(window):
        asyncio = sys.modules.get("asyncio")
        return {
            "asyncio_loaded": asyncio is not None and "get_running_loop" in vars(asyncio),
            "qasync": "qasync" in sys.modules,
            "history_opened": window._history_opened,
            "docks": window.docks_built,
            "detail_built": window.inspector.detail._built,
            "timeline_model": window.inspector.model_built,
            "stream_module": "playground.protocol.stream" in sys.modules,
            "state_module": "playground.protocol.state" in sys.modules,
            "events_module": "playground.protocol.events" in sys.modules,
            "gc_enabled": gc.isenabled(),
            "widget_modules": sorted(
                m for m in sys.modules if m.startswith("playground.ui.widgets.")
            ),
            "output_built": window.current_panel().output_built,
            "dialog_modules": sorted(
                m
                for m in ("playground.ui.settings_dialog", "playground.ui.inspector.request_view")
                if m in sys.modules
            ),
        }

    def settled(window):
        facts["settled"] = state(window) | {
            "save_action": window.menus.save_action.text(),
            "models_pending": window.provider_bar.models_pending,
            "simulator": bool(window.provider_bar.simulator_url),
        }
        print(json.dumps(facts), flush=True)
        os._exit(0)

    class Probe(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and isinstance(obj, QMainWindow):
                if "first_frame" not in facts:
                    facts["first_frame"] = state(obj)
                    QTimer.singleShot(1500, lambda: settled(obj))
            return False

    app = QApplication.instance() or QApplication([sys.argv[0]])
    probe = Probe()
    app.installEventFilter(probe)
    from playground.ui.app import main
    main([])
    """
)


def _start(tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "probe.py"
    script.write_text(_PROBE)
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=headless_env(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    facts: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return facts


def test_first_frame_comes_before_asyncio_history_docks_and_other_widgets(
    tmp_path: Path,
) -> None:
    facts = _start(tmp_path)
    first = facts["first_frame"]
    assert not first["asyncio_loaded"], "asyncio loaded before the first frame"
    assert not first["qasync"]
    assert not first["history_opened"]
    assert not first["docks"]
    assert not first["detail_built"]
    assert not first["timeline_model"] and not first["stream_module"]
    # The stream state and its 16 event dataclasses (about 13 ms to import) wait for a run.
    assert not first["state_module"] and not first["events_module"]
    assert not first["gc_enabled"]  # no collection passes before the first frame...
    # The chat panel shows its empty state: no output widget (nor its module) exists yet.
    assert not first["output_built"]
    assert first["widget_modules"] == []
    # Nor the settings dialog or the request / response views (their tabs are not open).
    assert first["dialog_modules"] == []

    after = facts["settled"]
    assert after["asyncio_loaded"] and after["qasync"]
    assert after["history_opened"]
    assert after["timeline_model"]
    assert after["gc_enabled"]  # ...and the collector is back on right after it
    # The chat panel's output widgets are built in the first idle moment, before any Send.
    assert after["output_built"]
    assert "playground.ui.widgets.answer_view" in after["widget_modules"]
    assert after["docks"] and after["save_action"] == "&Save run as capture…"
    assert not after["models_pending"]  # the model list was asked for once the loop ran
    assert after["simulator"]
