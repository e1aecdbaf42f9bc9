"""Startup: what the real entry point has and has not done at the window's first paint (its
empty frame) and at its first paint with contents, and that everything deferred is there right
after it."""

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
    from PySide6 import QtCore, QtWidgets
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication, QMainWindow

    facts = {}

    # The window's contents: none of their modules is imported for the empty frame.
    CONTENTS = (
        "playground.ui.window.provider_bar",
        "playground.ui.panels.route_panel",
        "playground.ui.inspector.inspector",
        "playground.ui.window.menus",
        "playground.ui.views.routes",
    )

    def empty_state(window):
        return {
            "built": window.built,
            # PySide builds the Qt namespace (93 enum classes) on its first use: not yet.
            "qt_namespace": "Qt" in vars(QtCore),
            "contents_modules": sorted(m for m in CONTENTS if m in sys.modules),
            "size": [window.width(), window.height()],
            "background": window.palette().color(QPalette.ColorRole.Window).name(),
            "title": window.windowTitle(),
        }

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
            "gc_pinned": sys.modules["playground.ui.runtime.gc_schedule"].pinned(),
            "widget_modules": sorted(
                m
                for m in sys.modules
                # the views' registry is one of the contents (CONTENTS); no view with it
                if m.startswith("playground.ui.views.") and m != "playground.ui.views.routes"
            ),
            "output_built": window.current_panel().output_built,
            "dialog_modules": sorted(
                m
                for m in (
                    "playground.ui.window.settings_dialog",
                    "playground.ui.inspector.request_view",
                )
                if m in sys.modules
            ),
            "route": window.current_panel().route,
            "splitter": window.splitter.sizes(),
            "size": [window.width(), window.height()],
            "background": window.palette().color(QPalette.ColorRole.Window).name(),
            "style": QApplication.style().name(),
            "unused_modules": sorted(m for m in LATER if m in sys.modules),
            # PySide makes each Qt class (with its enums) the first time it is reached for.
            "unused_qt": sorted(c for c in LATER_QT if c in vars(QtWidgets)),
            **form(window.current_panel().editor),
        }

    # What the first frame does without: loaded when first used.
    LATER = (
        "jsonschema",  # the schema checks: with the first schema typed
        "playground.protocol.structured",  # the structured answer's check
        "playground.runs.presets",  # the presets folder: when the Presets menu opens
        # The conversation model and its translations (frozen dataclasses): with a first turn.
        "playground.protocol.conversation",
        "playground.protocol.tool_defs",  # the tools list's definitions: with Send tools
        "playground.protocol.media",  # image and audio formats: with a first image or file
    )
    # Dialogs and the tools list; QWizard, QMdiArea... are what PySide loads all at once with
    # the first bare QWidget it wraps (a scroll area's viewport).
    LATER_QT = ("QFileDialog", "QInputDialog", "QMessageBox", "QListWidget", "QWizard", "QMdiArea")

    def form(editor):
        if editor.tools_list() is None:
            return {}
        chat = editor.response_format
        built = {"schema": chat.schema_built, "advanced": editor.advanced.built}
        return {
            "tools_body": editor.tools.body_built,
            "form_parts": sorted(part for part, on in built.items() if on),
            "tools_sending": editor.use_tools.isChecked(),
            "format": chat.format.currentData(),
            "advanced_open": editor.advanced.toggle.isChecked(),
        }

    def dropped_image(window):
        # An image file dropped on the prompt box's viewport: does the strip take it?
        import tempfile
        from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
        from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
        editor = window.current_panel().editor
        path = os.path.join(tempfile.mkdtemp(), "dot.png")
        image = QImage(4, 4, QImage.Format.Format_RGB32)
        image.fill(0)
        image.save(path)
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(path)])
        actions, left = Qt.DropAction.CopyAction, Qt.MouseButton.LeftButton
        none = Qt.KeyboardModifier.NoModifier
        viewport = editor.prompt.viewport()
        QApplication.sendEvent(viewport, QDragEnterEvent(QPoint(5, 5), actions, mime, left, none))
        QApplication.sendEvent(viewport, QDropEvent(QPointF(5, 5), actions, mime, left, none))
        return len(editor.attachments.images)

    def settled(window):
        facts["settled"] = state(window) | {
            "save_action": window.menus.save_action.text(),
            "models_pending": window.provider_bar.models_pending,
            "simulator": bool(window.provider_bar.simulator_url),
            "dropped": dropped_image(window),
        }
        print(json.dumps(facts), flush=True)
        os._exit(0)

    class Probe(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and isinstance(obj, QMainWindow):
                if "empty_frame" not in facts:
                    facts["empty_frame"] = empty_state(obj)
                if obj.built and "first_frame" not in facts:
                    facts["first_frame"] = state(obj)
                    QTimer.singleShot(1500, lambda: settled(obj))
            return False

    app = QApplication.instance() or QApplication([sys.argv[0]])
    probe = Probe()
    # The main window's events only, as the startup bench watches them: an application-wide
    # Python filter is handed every object, and wrapping them has PySide make every Qt class.
    show = QMainWindow.show

    def show_watched(window):
        window.installEventFilter(probe)
        show(window)

    QMainWindow.show = show_watched
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
    # The window is on screen before its contents exist: its size, title and the theme's
    # background, painted with none of the contents' modules and no Qt namespace built.
    empty = facts["empty_frame"]
    assert not empty["built"]
    assert not empty["qt_namespace"]
    assert empty["contents_modules"] == []
    assert empty["title"] == "Playground"
    assert empty["background"] == "#f3f4f6"  # the light theme's window colour (offscreen)

    first = facts["first_frame"]
    # The same window with its contents: its size kept, the same background, Fusion's look,
    # the inspector's share of the width given as on a window built before it was shown.
    assert first["size"] == empty["size"]
    assert first["background"] == empty["background"] and first["style"] == "fusion"
    panel_width, inspector_width = first["splitter"]
    assert 0.3 <= inspector_width / (panel_width + inspector_width) <= 0.45
    assert not first["asyncio_loaded"], "asyncio loaded before the first frame"
    assert not first["qasync"]
    assert not first["history_opened"]
    assert not first["docks"]
    assert not first["detail_built"]
    assert not first["timeline_model"] and not first["stream_module"]
    # The stream state and its 16 event dataclasses (about 13 ms to import) wait for a run.
    assert not first["state_module"] and not first["events_module"]
    assert not first["gc_enabled"] and not first["gc_pinned"]  # no collection before it...
    # The chat panel shows its empty state: no output widget (nor its module) exists yet.
    assert not first["output_built"]
    assert first["widget_modules"] == []
    # Nor the settings dialog or the request / response views (their tabs are not open).
    assert first["dialog_modules"] == []
    assert first["unused_modules"] == [] and first["unused_qt"] == []
    # The chat panel's form as a first start shows it: Send tools off, the format text, the
    # Advanced group folded; so the tools list, the schema editor and the Advanced fields wait.
    assert first["route"] == "chat"
    assert not first["tools_sending"] and first["format"] == "" and not first["advanced_open"]
    assert not first["tools_body"] and first["form_parts"] == []

    after = facts["settled"]
    assert after["asyncio_loaded"] and after["qasync"]
    assert after["history_opened"]
    assert after["timeline_model"]
    # ...and right after it the collector runs again, on the UI thread only (gc_schedule.py).
    assert after["gc_pinned"] and not after["gc_enabled"]
    # The chat panel's output widgets are built in the first idle moment, before any Send.
    assert after["output_built"]
    assert "playground.ui.views.answer_view" in after["widget_modules"]
    assert after["docks"] and after["save_action"] == "&Save run as capture…"
    assert not after["models_pending"]  # the model list was asked for once the loop ran
    assert after["simulator"]
    # The prompt box's viewport, caught once the window painted, takes an image dropped on it.
    assert after["dropped"] == 1
