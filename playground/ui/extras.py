"""Issue 6 on the main window: save/export/bundle, timing and history docks, replay, compare.

``install_extras(window)`` is called at the end of ``MainWindow.__init__``. Every piece is
optional: if a module it needs is missing or broken, that one action is left out and the rest
installs (the window must open whatever happens here).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMenu,
    QSlider,
    QStyle,
    QToolBar,
    QToolButton,
)

from playground.ui.replay import SPEEDS

__all__ = ["Extras", "install_extras"]

log = logging.getLogger(__name__)
SPEED_LABELS = {1.0: "1x", 2.0: "2x", 10.0: "10x", 0.0: "instant"}
SCRUB_STEPS = 1000
IDLE_MS = 400  # the docks not shown at startup are built this long after it (issue 7)


def install_extras(window: Any) -> None:
    """Add issue 6's menus, docks and replay controls to ``window`` (a MainWindow)."""
    if getattr(window, "extras", None) is not None:
        return
    window.extras = Extras(window)


def _menu(window: Any, attr: str, title: str) -> QMenu:
    """The window's own menu when it made one (``file_menu``...), else a new one."""
    found = getattr(window, attr, None)
    if isinstance(found, QMenu):
        return found
    menu: QMenu = window.menuBar().addMenu(title)
    setattr(window, attr, menu)
    return menu


def _module_exists(name: str) -> bool:
    """Whether ``name`` can be found, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules holds None for it
        return False


def _has_action(menu: QMenu, text: str) -> bool:
    wanted = text.replace("&", "").lower()
    return any(wanted in a.text().replace("&", "").lower() for a in menu.actions())


def _insert(menu: QMenu, action: QAction | QMenu, before_text: str | None = None) -> None:
    """Add before the action whose text starts with ``before_text`` (e.g. Settings), else append."""
    before = None
    if before_text:
        for a in menu.actions():
            if a.text().replace("&", "").lower().startswith(before_text.lower()):
                before = a
                break
    if isinstance(action, QMenu):
        if before is not None:
            menu.insertMenu(before, action)
        else:
            menu.addMenu(action)
    elif before is not None:
        menu.insertAction(before, action)
    else:
        menu.addAction(action)


class Extras(QObject):
    """Everything issue 6 adds to a MainWindow; kept as ``window.extras``."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.interactive = bool(getattr(window, "interactive", True))
        self._timing_view: Any = None
        self._timing_dock: QDockWidget | None = None
        self._timing_failed = False
        self.timing_action: QAction | None = None
        self.history_view: Any = None
        self.history_dock: QDockWidget | None = None
        self.compare_window: Any = None
        self.speed = 1.0
        self.last_message = ""
        self._scrubbing = False
        self._speed_actions: dict[float, QAction] = {}
        for step in (
            self._install_file_actions,
            self._install_timing,
            self._install_history,
            self._install_replay,
            self._install_compare,
        ):
            try:
                step()
            except Exception:  # one missing piece leaves just its own actions out
                log.exception("extras: %s was left out", step.__name__)
        window.current_run.changed.connect(lambda _s: self._follow_current())
        self._follow_current()

    # ---- helpers -----------------------------------------------------------------------------
    def session(self) -> Any:
        return self.window.current_panel().session

    def say(self, message: str, ms: int = 8000) -> None:
        self.last_message = message
        with contextlib.suppress(Exception):
            self.window.statusBar().showMessage(message, ms)

    def _status(self) -> str | None:
        state = getattr(self.session(), "state", None)
        return getattr(state, "status", None)

    def _secrets(self) -> tuple[str, ...]:
        """The key of the current provider, scrubbed from bundles as a last guard."""
        try:
            from playground.transport.secrets import get_key

            provider = self.window.provider_bar.provider()
            key = None if provider.builtin else get_key(provider)
        except Exception:
            key = None
        return (key,) if key else ()

    def _has_run(self) -> bool:
        run = getattr(self.session(), "run", None)
        if run is None or not (run.method or run.chunks):
            self.say("There is no run on this panel yet: send a prompt or open a capture first.")
            return False
        return True

    # ---- File --------------------------------------------------------------------------------
    def _install_file_actions(self) -> None:
        importlib.import_module("playground.ui.history_view")  # the helpers below live there

        window = self.window
        menu = _menu(window, "file_menu", "&File")
        style = window.style()
        if not _has_action(menu, "Open capture"):
            open_action = QAction(
                style.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton),
                "&Open capture…",
                window,
            )
            open_action.setShortcut(QKeySequence.StandardKey.Open)
            open_action.triggered.connect(self.open_capture_dialog)
            _insert(menu, open_action, "Settings")
        save = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton),
            "&Save run as capture…",
            window,
        )
        save.setShortcut(QKeySequence("Ctrl+S"))
        save.triggered.connect(lambda: self.save_capture())
        _insert(menu, save, "Settings")
        export = QMenu("&Export request", window)
        for fmt, title in (("curl", "curl"), ("python", "Python"), ("typescript", "TypeScript")):
            action = QAction(f"as {title}", window)
            action.triggered.connect(lambda _c=False, f=fmt: self.export(f))
            export.addAction(action)
        _insert(menu, export, "Settings")
        bundle = QAction("&Bug-report bundle…", window)
        bundle.triggered.connect(lambda: self.bundle())
        _insert(menu, bundle, "Settings")
        sep = QAction(window)
        sep.setSeparator(True)
        _insert(menu, sep, "Settings")
        self.save_action, self.export_menu, self.bundle_action = save, export, bundle

    def open_capture_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            "Open a capture",
            "",
            "Captures (*.jsonl *.capture *.sse *.txt *.log);;All files (*)",
        )
        if path:
            self.window.open_capture(path)

    def save_capture(self, path: str | None = None) -> Path | None:
        """Save the current panel's run as a capture file (asks where unless ``path`` is given)."""
        from playground.runs.record import write_capture
        from playground.ui.history_view import ask_save_path

        if not self._has_run():
            return None
        session = self.session()
        path = ask_save_path(
            self.window,
            path,
            self.interactive,
            "Save the run as a capture",
            f"{session.run.route}.capture.jsonl",
            "Captures (*.jsonl)",
        )
        if path is None:
            return None
        try:
            out = write_capture(session.run, path, self._status(), secrets=self._secrets())
        except (OSError, ValueError) as exc:
            self.say(f"The capture was not saved: {exc}")
            return None
        self.say(f"Saved the run as {Path(out).name}.")
        return out

    def export(self, fmt: str) -> str | None:
        """The current run's request as curl/python/typescript: copied, and shown in a dialog."""
        from playground.runs.export import export_request
        from playground.ui.history_view import show_export

        if not self._has_run():
            return None
        session = self.session()
        route = session.run.route
        if route not in getattr(self.window, "panels", {}):
            route = self.window.current_panel().route
        try:
            code = export_request(session.run.request_json(), route, fmt)
        except Exception as exc:  # ExportError: a replayed raw capture has no request
            self.say(f"The request cannot be exported: {exc}")
            return None
        show_export(self.window, fmt, code, interactive=self.interactive)
        self.say(f"The request as {fmt} is on the clipboard.")
        return code

    def bundle(self, path: str | None = None) -> Path | None:
        from playground.runs.record import bundle_run
        from playground.ui.history_view import ask_save_path

        if not self._has_run():
            return None
        session = self.session()
        path = ask_save_path(
            self.window,
            path,
            self.interactive,
            "Save a bug-report bundle",
            f"{session.run.route}-bug-report.zip",
            "Zip (*.zip)",
        )
        if path is None:
            return None
        try:
            out = bundle_run(session.run, path, status=self._status(), secrets=self._secrets())
        except Exception as exc:
            self.say(f"The bundle was not written: {exc}")
            return None
        self.say(f"Wrote the bug-report bundle {Path(out).name}.")
        return out

    # ---- View: Timing ------------------------------------------------------------------------
    # The dock (its chart and imports) is built on first use or in idle time after the first
    # frame, not before it (issue 7: startup); the menu action is there from the start.
    def _install_timing(self) -> None:
        window = self.window
        toggle = QAction("&Timing", window)
        toggle.setCheckable(True)
        toggle.setShortcut(QKeySequence("Ctrl+T"))
        toggle.toggled.connect(self._toggle_timing)
        _menu(window, "view_menu", "&View").addAction(toggle)
        self.timing_action = toggle
        self._when_idle(self._ensure_timing)

    @property
    def timing_view(self) -> Any:
        self._ensure_timing()
        return self._timing_view

    @property
    def timing_dock(self) -> QDockWidget | None:
        self._ensure_timing()
        return self._timing_dock

    def _when_idle(self, work: Any) -> None:
        """Run ``work`` IDLE_MS from now, or later: a stream is no idle time (issue 7: stalls)."""
        from playground.ui.idle import when_idle

        when_idle(self, work, IDLE_MS)

    def _ensure_timing(self) -> None:
        if self._timing_dock is not None or self._timing_failed:
            return
        try:
            from playground.ui.timing_view import TimingView

            window = self.window
            view = TimingView()
            dock = QDockWidget("Timing — where the time went", window)
            dock.setObjectName("timingDock")
            dock.setWidget(view)
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            dock.hide()
            dock.visibilityChanged.connect(self._timing_visibility)
            window.selection.join(view)
            view.subscribe(window.current_run)
        except Exception:  # a missing piece leaves just its own action out
            log.exception("extras: the timing dock was left out")
            self._timing_failed = True
            if self.timing_action is not None:
                self.timing_action.setEnabled(False)
            return
        self._timing_view, self._timing_dock = view, dock

    def _toggle_timing(self, on: bool) -> None:
        dock = self.timing_dock
        if dock is not None and dock.isVisible() != on:
            dock.setVisible(on)
            if on:
                dock.raise_()

    def _timing_visibility(self, visible: bool) -> None:
        action = self.timing_action
        if action is not None and action.isChecked() != visible:
            blocked = action.blockSignals(True)
            action.setChecked(visible)
            action.blockSignals(blocked)
        if visible and self._timing_view is not None:
            self._timing_view.recompute()

    # ---- View: History -----------------------------------------------------------------------
    def _install_history(self) -> None:
        from playground.ui.history_view import HistoryView

        window = self.window
        history = getattr(window, "history", None)
        if history is None:
            from playground.runs.history import RunHistory

            history = RunHistory()
        view = HistoryView(history, interactive=self.interactive, secrets=self._secrets)
        view.openRequested.connect(self.open_run)
        dock = QDockWidget("History", window)
        dock.setObjectName("historyDock")
        dock.setWidget(view)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        dock.hide()
        toggle = dock.toggleViewAction()
        toggle.setText("&History")
        toggle.setShortcut(QKeySequence("Ctrl+H"))
        _menu(window, "view_menu", "&View").addAction(toggle)
        dock.visibilityChanged.connect(lambda visible: view.refresh() if visible else None)

        # The recorder updates the index as a run finishes, in any panel; list it on the next turn.
        window.current_run.anyFinished.connect(
            lambda _s: QTimer.singleShot(0, self._refresh_history)
        )
        self.history_view, self.history_dock = view, dock

    def _refresh_history(self) -> None:
        view, dock = self.history_view, self.history_dock
        if view is not None and dock is not None and dock.isVisible():
            view.refresh()

    def open_run(self, capture: Any, route: str, speed: float = 0.0) -> Any:
        """Replay ``capture`` into the panel of ``route`` (the history's Reopen)."""
        window = self.window
        panels = getattr(window, "panels", {})
        panel = window.show_panel(route) if route in panels else window.current_panel()
        request = getattr(capture, "request", None) or {}
        body = request.get("body") if isinstance(request, dict) else None
        if isinstance(body, dict):
            with contextlib.suppress(Exception):
                panel.editor.set_body(body)
        control = panel.session.start_replay(capture, speed)
        if speed > 0 and self.replay_bar is not None:
            self.replay_bar.show()
        return control

    # ---- Run: Replay -------------------------------------------------------------------------
    replay_bar: QToolBar | None = None

    def _install_replay(self) -> None:
        window = self.window
        style = window.style()
        run_menu = _menu(window, "run_menu", "&Run")
        replay_menu = QMenu("&Replay", window)
        run_menu.addSeparator()
        run_menu.addMenu(replay_menu)

        again = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_BrowserReload), "&Replay this run", window
        )
        again.setShortcut(QKeySequence("Ctrl+R"))
        again.setToolTip("Replay the panel's last run with its recorded timing")
        again.triggered.connect(lambda: self.replay_current())
        replay_menu.addAction(again)
        pause = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPause), "&Pause / resume", window
        )
        pause.setShortcut(QKeySequence("F8"))
        pause.triggered.connect(self.toggle_pause)
        replay_menu.addAction(pause)
        replay_menu.addSeparator()
        group = QActionGroup(window)
        group.setExclusive(True)
        for speed in SPEEDS:
            action = QAction(f"Speed {SPEED_LABELS[speed]}", window)
            action.setCheckable(True)
            action.setChecked(speed == self.speed)
            action.triggered.connect(lambda _c=False, s=speed: self.set_speed(s))
            group.addAction(action)
            replay_menu.addAction(action)
            self._speed_actions[speed] = action

        bar = QToolBar("Replay", window)
        bar.setObjectName("replayToolbar")
        bar.addAction(again)
        self.pause_button = QToolButton()
        self.pause_button.setDefaultAction(pause)
        bar.addWidget(self.pause_button)
        self.speed_button = QToolButton()
        self.speed_button.setText(SPEED_LABELS[self.speed])
        self.speed_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        speed_menu = QMenu(self.speed_button)
        for speed in SPEEDS:
            speed_menu.addAction(self._speed_actions[speed])
        self.speed_button.setMenu(speed_menu)
        self.speed_button.setToolTip("Replay speed")
        bar.addWidget(self.speed_button)
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        self.scrubber.setRange(0, SCRUB_STEPS)
        self.scrubber.setMinimumWidth(260)
        self.scrubber.setToolTip("Drag to jump to a moment of the run")
        self.scrubber.sliderPressed.connect(self._scrub_pressed)
        self.scrubber.sliderReleased.connect(self._scrub_released)
        self.scrubber.actionTriggered.connect(self._scrub_action)
        bar.addWidget(self.scrubber)
        self.position_label = QLabel("—")
        self.position_label.setMinimumWidth(120)
        bar.addWidget(self.position_label)
        window.addToolBar(Qt.ToolBarArea.BottomToolBarArea, bar)
        bar.hide()
        toggle = bar.toggleViewAction()
        toggle.setText("Replay &controls")
        replay_menu.addSeparator()
        replay_menu.addAction(toggle)
        self.replay_bar = bar
        self.replay_action, self.pause_action = again, pause
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._update_scrubber)
        self._tick.start()

    def control(self) -> Any:
        return getattr(self.session(), "replay_control", None)

    def replay_current(self, speed: float | None = None) -> Any:
        """Replay the current panel's run (a live run or an opened capture) at ``speed``."""
        session = self.session()
        speed = self.speed if speed is None else speed
        control = self.control()
        capture = getattr(control, "capture", None) if control is not None else None
        if capture is None:
            if not self._has_run():
                return None
            capture = session.run.to_capture(self._status())
        control = session.start_replay(capture, speed)
        if self.replay_bar is not None:
            self.replay_bar.show()
        return control

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        if speed in self._speed_actions:
            self._speed_actions[speed].setChecked(True)
        with contextlib.suppress(Exception):
            self.speed_button.setText(SPEED_LABELS.get(speed, f"{speed:g}x"))
        control = self.control()
        if control is not None and not control.finished:
            control.speed = speed

    def toggle_pause(self) -> None:
        control = self.control()
        if control is None or control.finished:
            return
        if control.paused:
            control.resume()
        else:
            control.pause()

    def seek(self, t: float) -> Any:
        """Jump the current replay to capture time ``t``; backward restarts it up to ``t``."""
        control = self.control()
        if control is None:
            return None
        if t + 1e-9 < control.position or control.finished:
            capture = control.capture
            if capture is None:
                return control
            paused = control.paused
            control = self.session().start_replay(capture, control.speed)
            if paused:
                control.pause()
        control.seek(t)
        return control

    def _scrub_pressed(self) -> None:
        self._scrubbing = True

    def _scrub_released(self) -> None:
        self._scrubbing = False
        self._seek_to_slider()

    def _scrub_action(self, action: int) -> None:
        if not self._scrubbing:  # page steps and keys: jump now
            QTimer.singleShot(0, self._seek_to_slider)

    def _seek_to_slider(self) -> None:
        control = self.control()
        if control is None or control.duration <= 0:
            return
        self.seek(self.scrubber.value() / SCRUB_STEPS * control.duration)

    def _update_scrubber(self) -> None:
        try:
            control = self.control()
        except Exception:
            return
        active = control is not None and control.duration > 0
        self.scrubber.setEnabled(active)
        self.pause_action.setEnabled(control is not None and not control.finished)
        if not active:
            self.position_label.setText("no replay")
            return
        bar = self.replay_bar
        playing = control is not None and not control.finished and control.speed > 0
        if playing and bar is not None and not bar.isVisible():
            bar.show()
        from playground.ui.timing_view import format_seconds

        position = control.position
        if not self._scrubbing:
            self.scrubber.blockSignals(True)
            self.scrubber.setValue(int(position / control.duration * SCRUB_STEPS))
            self.scrubber.blockSignals(False)
        state = "paused" if control.paused else "done" if control.finished else "playing"
        self.position_label.setText(
            f"{format_seconds(position)} / {format_seconds(control.duration)} · {state}"
        )
        self.pause_action.setText("Resume" if control.paused else "Pause")

    # ---- Run: Compare ------------------------------------------------------------------------
    def _install_compare(self) -> None:
        # Fail here, not on click; the (slow) import itself waits for idle time (issue 7).
        if not _module_exists("playground.ui.compare_window"):
            raise ImportError("playground.ui.compare_window")
        window = self.window
        action = QAction("&Compare…", window)
        action.setShortcut(QKeySequence("Ctrl+Shift+K"))
        action.setToolTip("Send one prompt to several routes, models or providers side by side")
        action.triggered.connect(lambda: self.open_compare())
        _menu(window, "run_menu", "&Run").addAction(action)
        self.compare_action = action
        # Fail in idle time after the first frame (issue 7: startup), not on click.
        self._when_idle(self._check_compare)

    def _check_compare(self) -> None:
        try:
            importlib.import_module("playground.ui.compare_window")
        except Exception:
            log.exception("extras: compare was left out")
            with contextlib.suppress(RuntimeError):
                self.compare_action.setEnabled(False)

    def open_compare(self) -> Any:
        from playground.ui.compare_window import COMPARE_ROUTES, ColumnConfig, CompareWindow

        if self.compare_window is not None:
            with contextlib.suppress(RuntimeError):
                self.compare_window.show()
                self.compare_window.raise_()
                return self.compare_window
        window = self.window
        bar = window.provider_bar
        provider = bar.provider()
        routes = [r for r in COMPARE_ROUTES if r in provider.routes] or ["chat"]
        configs = [ColumnConfig(r, provider.id, bar.model(), "") for r in routes]
        pace = None
        with contextlib.suppress(Exception):
            pace = window.current_panel().pace.currentData()
        compare = CompareWindow(
            configs,
            spec_maker=self._compare_spec,
            sim_headers={"X-Sim-Pace": str(pace)} if pace else None,
        )
        with contextlib.suppress(Exception):  # start from the prompt the panel holds
            params = window.current_panel().editor.params()
            prompt = params.prompt or next(
                (m.get("content") for m in reversed(params.messages) if m.get("role") == "user"),
                None,
            )
            if isinstance(prompt, str):
                compare.prompt.setPlainText(prompt)
        compare.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        compare.show()
        self.compare_window = compare
        return compare

    def _compare_spec(self, config: Any, body: dict[str, Any]) -> Any:
        """A RequestSpec for a compare column, with the window's simulator URL and keys."""
        from playground.transport.providers import provider_by_id

        window = self.window
        bar = window.provider_bar
        provider = provider_by_id(config.provider_id)
        compare = self.compare_window
        return window.make_spec(
            provider,
            config.route,
            body,
            base_url=config.base_url or None,
            model=(bar.model() or None) if provider.id == bar.provider().id else None,
            sim_headers=getattr(compare, "sim_headers", None),
        )

    # ---- following the current panel ---------------------------------------------------------
    def _follow_current(self) -> None:
        try:
            panel = self.window.current_panel()
        except Exception:
            return
        if self.history_view is not None:
            self.history_view.set_route(panel.route)
