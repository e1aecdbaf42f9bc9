"""Replay on the main window: the current run again at a speed, paused, scrubbed, on a toolbar."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QMenu, QSlider, QToolBar, QToolButton

from playground.ui.window.menus import SPEED_LABELS, SPEEDS, set_checked_quietly

if TYPE_CHECKING:
    from playground.ui.runtime.replay import ReplayControl
    from playground.ui.runtime.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["SCRUB_STEPS", "ReplayBar"]

SCRUB_STEPS = 1000
TICK_MS = 100  # the scrubber follows the replay this often


class ReplayBar(QObject):
    """The replay toolbar and what the Run ▸ Replay actions do."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.speed = 1.0
        self._scrubbing = False
        menus = window.menus
        bar = QToolBar("Replay", window)
        bar.setObjectName("replayToolbar")
        bar.addAction(menus.replay_action)
        self.pause_button = QToolButton()
        self.pause_button.setDefaultAction(menus.pause_action)
        bar.addWidget(self.pause_button)
        self.speed_button = QToolButton()
        self.speed_button.setText(SPEED_LABELS[self.speed])
        self.speed_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        speed_menu = QMenu(self.speed_button)
        for speed in SPEEDS:
            speed_menu.addAction(menus.speed_actions[speed])
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
        bar.visibilityChanged.connect(
            lambda visible: set_checked_quietly(menus.replay_bar_action, visible)
        )
        self.replay_bar = bar
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._update_scrubber)
        self._tick.start()

    def session(self) -> StreamSession:
        return self.window.current_panel().session

    def control(self) -> ReplayControl | None:
        return self.session().replay_control

    def show_bar(self, on: bool) -> None:
        if self.replay_bar.isVisible() != on:
            self.replay_bar.setVisible(on)

    def replay_current(self, speed: float | None = None) -> ReplayControl | None:
        """Replay the current panel's run (a live run or an opened capture) at ``speed``."""
        session = self.session()
        speed = self.speed if speed is None else speed
        control = self.control()
        capture = control.capture if control is not None else None
        if capture is None:
            if not self.window.run_files.has_run():
                return None
            capture = session.run.to_capture(self.window.run_files.status())
        control = session.start_replay(capture, speed)
        self.show_bar(True)
        return control

    def set_speed(self, speed: float) -> None:
        self.speed = speed
        action = self.window.menus.speed_actions.get(speed)
        if action is not None:
            action.setChecked(True)
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

    def seek(self, t: float) -> ReplayControl | None:
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

    def _scrub_action(self, _action: int) -> None:
        if not self._scrubbing:  # page steps and keys: jump now
            QTimer.singleShot(0, self._seek_to_slider)

    def _seek_to_slider(self) -> None:
        control = self.control()
        if control is None or control.duration <= 0:
            return
        self.seek(self.scrubber.value() / SCRUB_STEPS * control.duration)

    def _update_scrubber(self) -> None:
        if self.window.closing:
            return
        try:
            control = self.control()
        except RuntimeError:  # the window's widgets are being deleted (it is closing)
            return
        pause = self.window.menus.pause_action
        self.scrubber.setEnabled(control is not None and control.duration > 0)
        pause.setEnabled(control is not None and not control.finished)
        if control is None or control.duration <= 0:
            self.position_label.setText("no replay")
            return
        if not control.finished and control.speed > 0:
            self.show_bar(True)
        from playground.ui.views.timing_chart import format_seconds

        position = control.position
        if not self._scrubbing:
            blocked = self.scrubber.blockSignals(True)
            self.scrubber.setValue(int(position / control.duration * SCRUB_STEPS))
            self.scrubber.blockSignals(blocked)
        state = "paused" if control.paused else "done" if control.finished else "playing"
        self.position_label.setText(
            f"{format_seconds(position)} / {format_seconds(control.duration)} · {state}"
        )
        pause.setText("Resume" if control.paused else "Pause")
