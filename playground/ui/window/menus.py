"""The window's menus and actions, all built here, in menu order, each wired to what it does.

The actions exist from the first frame (their shortcuts work at once); what they act on (the
docks, the replay bar, the compare window) is built when first used or in idle time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QStyle

from playground.protocol.requests import ROUTE_NAMES, route_spec
from playground.ui.window.sample_captures import add_sample_menu

if TYPE_CHECKING:
    from playground.ui.window.shell import MainWindow

__all__ = ["SPEEDS", "SPEED_LABELS", "Menus"]

SPEEDS = (1.0, 2.0, 10.0, 0.0)  # replay speeds; 0 = instant
SPEED_LABELS = {1.0: "1x", 2.0: "2x", 10.0: "10x", 0.0: "instant"}
EXPORT_FORMATS = (("curl", "curl"), ("python", "Python"), ("typescript", "TypeScript"))


class Menus:
    """File, Run, Presets, View and Help, and every action in them."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        bar = window.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.run_menu = bar.addMenu("&Run")
        self.presets_menu = bar.addMenu("Pre&sets")
        self.view_menu = bar.addMenu("&View")
        self.help_menu = bar.addMenu("&Help")
        self._file()
        self._run()
        from playground.ui.window.presets import Presets

        self.presets = Presets(window, self.presets_menu)
        self._view()
        about = self._action("&About", self._about)
        self.help_menu.addAction(about)
        self.sample_menu = add_sample_menu(self.help_menu, window.open_capture)
        self.sample_evaluation_action = self._action(
            "Sample &evaluation", lambda: self.evaluate.open_sample()
        )
        self.help_menu.addAction(self.sample_evaluation_action)

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # a dialog: its class loads when first used

        QMessageBox.about(
            self.window,
            "About Playground",
            "A playground for OpenAI-compatible inference gateways: each route's stream in live "
            "widgets beside the raw server-sent events that carried it.",
        )

    def _action(
        self,
        text: str,
        slot: object = None,
        *,
        shortcut: str | QKeySequence | QKeySequence.StandardKey | None = None,
        icon: QStyle.StandardPixmap | None = None,
        checkable: bool = False,
    ) -> QAction:
        window = self.window
        action = QAction(text, window)
        if icon is not None:
            action.setIcon(window.style().standardIcon(icon))
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        if callable(slot):
            action.triggered.connect(slot)
        return action

    def _file(self) -> None:
        window, menu = self.window, self.file_menu
        files = window.run_files
        pixmap = QStyle.StandardPixmap
        self.open_action = self._action(
            "&Open capture…",
            files.open_capture_dialog,
            shortcut=QKeySequence.StandardKey.Open,
            icon=pixmap.SP_DialogOpenButton,
        )
        self.save_action = self._action(
            "&Save run as capture…",
            lambda: files.save_capture(),
            shortcut="Ctrl+S",
            icon=pixmap.SP_DialogSaveButton,
        )
        self.export_menu = QMenu("&Export request", window)
        for fmt, title in EXPORT_FORMATS:
            action = self._action(f"as {title}", lambda _c=False, f=fmt: files.export(f))
            self.export_menu.addAction(action)
        self.bundle_action = self._action("&Bug-report bundle…", lambda: files.bundle())
        self.proxy_action = self._action("&Proxy…", self._proxy)
        self.proxy_action.setToolTip(
            "Record another app's requests: a local proxy in front of a gateway (Traffic panel)"
        )
        self.settings_action = self._action("&Settings…", window.open_settings, shortcut="Ctrl+,")
        self.quit_action = self._action(
            "&Quit", window.close, shortcut=QKeySequence.StandardKey.Quit
        )
        menu.addAction(self.open_action)
        menu.addAction(self.save_action)
        menu.addMenu(self.export_menu)
        menu.addAction(self.bundle_action)
        menu.addAction(self.proxy_action)
        menu.addSeparator()
        menu.addAction(self.settings_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)

    def _proxy(self) -> None:
        """File ▸ Proxy…: ask for the upstream, port and save folder, then start it."""
        from playground.ui.docks.traffic.dialog import ProxyDialog

        window = self.window
        dialog = ProxyDialog(window.traffic.upstream if window.traffic else "", window)
        if not dialog.exec():
            return
        upstream, port, save = dialog.values()
        try:
            address = window.start_proxy(upstream, port, save)
        except Exception as exc:  # a port in use, a bad folder: one line, the window goes on
            window.statusBar().showMessage(f"The proxy did not start: {exc}", 10000)
            return
        window.statusBar().showMessage(f"proxy: {address} -> {upstream}", 10000)

    def _run(self) -> None:
        window, menu = self.window, self.run_menu
        pixmap = QStyle.StandardPixmap
        self.send_action = self._action(
            "&Send", lambda: window.current_panel().send(), icon=pixmap.SP_MediaPlay
        )
        self.send_action.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.send_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.stop_action = self._action(
            "S&top",
            lambda: window.current_panel().stop(),
            shortcut=QKeySequence(Qt.Key.Key_Escape),
            icon=pixmap.SP_MediaStop,
        )
        menu.addAction(self.send_action)
        menu.addAction(self.stop_action)
        menu.addSeparator()
        self.route_actions: dict[str, QAction] = {}
        for i, route in enumerate(ROUTE_NAMES, start=1):
            action = self._action(
                route_spec(route).title,
                lambda _c=False, r=route: window.show_panel(r),
                shortcut=f"Ctrl+{i}",
            )
            menu.addAction(action)
            self.route_actions[route] = action
        menu.addSeparator()
        self.replay_menu = QMenu("&Replay", window)
        menu.addMenu(self.replay_menu)
        self.replay_action = self._action(
            "&Replay this run",
            lambda: window.replay.replay_current(),
            shortcut="Ctrl+R",
            icon=pixmap.SP_BrowserReload,
        )
        self.replay_action.setToolTip("Replay the panel's last run with its recorded timing")
        self.pause_action = self._action(
            "&Pause / resume",
            lambda: window.replay.toggle_pause(),
            shortcut="F8",
            icon=pixmap.SP_MediaPause,
        )
        self.replay_menu.addAction(self.replay_action)
        self.replay_menu.addAction(self.pause_action)
        self.replay_menu.addSeparator()
        group = QActionGroup(window)
        group.setExclusive(True)
        self.speed_actions: dict[float, QAction] = {}
        for speed in SPEEDS:
            action = self._action(
                f"Speed {SPEED_LABELS[speed]}",
                lambda _c=False, s=speed: window.replay.set_speed(s),
                checkable=True,
            )
            action.setChecked(speed == 1.0)
            group.addAction(action)
            self.replay_menu.addAction(action)
            self.speed_actions[speed] = action
        self.replay_menu.addSeparator()
        self.replay_bar_action = self._action("Replay &controls", checkable=True)
        self.replay_bar_action.toggled.connect(lambda on: window.replay.show_bar(on))
        self.replay_menu.addAction(self.replay_bar_action)
        self.compare_action = self._action(
            "&Compare…", lambda: window.compare.open(), shortcut="Ctrl+Shift+K"
        )
        self.compare_action.setToolTip(
            "Send one prompt to several routes, models or providers side by side"
        )
        menu.addAction(self.compare_action)
        from playground.ui.window.evaluate import EvaluateLauncher  # the window loads on use

        self.evaluate = EvaluateLauncher(window)
        self.evaluate_action = self._action(
            "&Evaluate…", lambda: self.evaluate.open(), shortcut="Ctrl+Shift+E"
        )
        self.evaluate_action.setToolTip("Run a prompt over a table of cases and variants, scored")
        menu.addAction(self.evaluate_action)

    def _view(self) -> None:
        window, menu = self.window, self.view_menu
        self.inspector_action = self._action("&Inspector", shortcut="Ctrl+I", checkable=True)
        self.inspector_action.setChecked(True)
        self.inspector_action.toggled.connect(lambda on: window.inspector.setVisible(on))
        menu.addAction(self.inspector_action)
        from playground.ui.window.dock_host import DOCKS

        # One checkable action per dock that has one, from the docks' one declaration.
        self.dock_toggles: dict[str, QAction] = {}
        for spec in DOCKS:
            if spec.toggle is not None:
                action = self._action(spec.toggle, shortcut=spec.shortcut, checkable=True)
                action.toggled.connect(lambda on, n=spec.name: window.docks.show(n, on))
                menu.addAction(action)
                self.dock_toggles[spec.name] = action

    def dock_shown(self, name: str, visible: bool) -> None:
        """A dock was shown or hidden: its toggle follows (Docks.visibilityChanged)."""
        action = self.dock_toggles.get(name)
        if action is not None:
            set_checked_quietly(action, visible)


def set_checked_quietly(action: QAction, checked: bool) -> None:
    """Check or uncheck ``action`` without running what it does (it follows a dock's state)."""
    if action.isChecked() != checked:
        blocked = action.blockSignals(True)
        action.setChecked(checked)
        action.blockSignals(blocked)
