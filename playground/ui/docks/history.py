"""The run history per panel: browse, reopen (replay), save as capture, export, bug bundle.

The dock's widget: it asks the window to reopen a run (``openRequested``); the dialogs it shows
are the kit's (export, save prompt), the thread a reopened run restores is the conversation's.
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.figures import BY_KEY
from playground.protocol.timing_format import format_seconds
from playground.ui.kit.export_dialog import FORMAT_TITLES, show_export
from playground.ui.kit.save_prompt import ask_save_path

TTFT = BY_KEY["first_token"]

__all__ = ["STATUS_COLORS", "HistoryView"]

STATUS_COLORS = {
    "complete": QColor(22, 163, 74),
    "incomplete": QColor(217, 119, 6),
    "truncated": QColor(217, 119, 6),
    "failed": QColor(220, 38, 38),
    "cancelled": QColor(120, 120, 120),
    "streaming": QColor(59, 130, 246),
}


# ---- the history list ------------------------------------------------------------------------
def _when(started_at: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    except ValueError:
        return started_at[:19]
    return moment.astimezone().strftime("%d %b %H:%M:%S")


def _prompt_and_answer(run: Any) -> str:
    """What the row says of the run: a conversational run's prompt first (the runs of one
    thread looked alike), then its answer or its error."""
    answer = run.preview or run.error
    prompt = getattr(run, "prompt", "")
    return f"“{prompt}” → {answer}" if prompt else answer


class HistoryView(QWidget):
    """Runs of one panel (or all), newest first; double-click reopens a run into its panel.

    ``openRequested(capture, route, speed)`` asks the owner to replay a run (speed 0: instant).
    ``interactive`` False (headless, tests) never opens a dialog.
    """

    openRequested = Signal(object, str, float)

    def __init__(
        self,
        history: Any,
        parent: QWidget | None = None,
        *,
        interactive: bool = True,
        secrets: Callable[[], tuple[str, ...]] | None = None,
    ) -> None:
        super().__init__(parent)
        self.history = history
        self.interactive = interactive
        self.secrets = secrets or (lambda: ())
        self.route: str | None = None
        self.message = ""  # the last thing done or refused (also shown in the label)

        self.all_routes = QCheckBox("All panels")
        self.all_routes.toggled.connect(self.refresh)
        self.tree = QTreeWidget()
        columns = ["when", "status", "route", "model", "time", TTFT.short, "prompt → answer"]
        self.tree.setHeaderLabels(columns)
        # One name and one meaning for the figure in every view (protocol/figures.py).
        self.tree.headerItem().setToolTip(5, TTFT.tip)
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemDoubleClicked.connect(lambda _item, _col: self.reopen())
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.empty = QLabel("No runs yet. Every run you send is kept here.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.status = QLabel("")
        self.status.setWordWrap(True)

        self.reopen_button = QPushButton("Reopen")
        self.reopen_button.setToolTip("Replay the run instantly into its panel (double-click)")
        self.reopen_button.clicked.connect(lambda: self.reopen())
        self.replay_button = QPushButton("Replay 1x")
        self.replay_button.setToolTip("Replay the run with its recorded timing")
        self.replay_button.clicked.connect(lambda: self.reopen(speed=1.0))
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save the run as a capture file")
        self.save_button.clicked.connect(lambda: self.save_capture())
        self.export_button = QToolButton()
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for fmt, title in FORMAT_TITLES.items():
            menu.addAction(f"as {title}", self._exporter(fmt))
        self.export_button.setMenu(menu)
        self.bundle_button = QPushButton("Bug report…")
        self.bundle_button.clicked.connect(lambda: self.bundle())
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(self.delete)

        # Two rows of three: in one row the six buttons made the dock 500 px wide at least,
        # and opening it widened a 1024 px window past the screen.
        self.run_buttons = (
            self.reopen_button,
            self.replay_button,
            self.save_button,
            self.export_button,
            self.bundle_button,
            self.delete_button,
        )  # what acts on the selected run: enabled while one is selected
        buttons = QGridLayout()
        for i, w in enumerate(self.run_buttons):
            buttons.addWidget(w, i // 3, i % 3)
        head = QHBoxLayout()
        self.title = QLabel("<b>History</b>")
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.all_routes)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.refresh()
        set_aside = getattr(history, "messages", None)
        if set_aside:  # what start-up set aside or recovered, where the history is shown
            self._say(" ".join(set_aside))

    # ---- listing -----------------------------------------------------------------------------
    def set_route(self, route: str | None) -> None:
        self.route = route
        self.title.setText(f"<b>History</b> · {route}" if route else "<b>History</b>")
        self.refresh()

    def refresh(self) -> None:
        selected = self.selected_id()
        self.tree.clear()
        runs = []
        if self.history is not None:
            route = None if self.all_routes.isChecked() else self.route
            try:
                runs = self.history.list_runs(route)
            except Exception as exc:
                self._say(f"The history cannot be listed ({type(exc).__name__}).")
        for run in runs:
            duration = f"{run.duration:.2f} s" if isinstance(run.duration, int | float) else ""
            status = run.status or ""
            if run.http_status and run.http_status >= 400:
                status = f"{status} {run.http_status}".strip()
            item = QTreeWidgetItem(
                [
                    _when(run.started_at),
                    status,
                    run.route,
                    run.model,
                    duration,
                    format_seconds(run.ttft) if run.ttft is not None else "",
                    _prompt_and_answer(run),
                ]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, run.id)
            color = STATUS_COLORS.get(run.status or "")
            if color is not None:
                item.setForeground(1, color)
            item.setToolTip(6, _prompt_and_answer(run))
            self.tree.addTopLevelItem(item)
            if run.id == selected:
                item.setSelected(True)
        for column in range(5):
            self.tree.resizeColumnToContents(column)
        self.empty.setVisible(not runs)
        self.tree.setVisible(bool(runs))
        self._selection_changed()

    def selected_id(self) -> str | None:
        items = self.tree.selectedItems()
        if not items:
            return None
        value = items[0].data(0, Qt.ItemDataRole.UserRole)
        return str(value) if value else None

    def select(self, run_id: str) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == run_id:
                self.tree.setCurrentItem(item)
                return True
        return False

    def _selection_changed(self) -> None:
        has = self.selected_id() is not None
        for w in self.run_buttons:
            w.setEnabled(has)

    def _context_menu(self, pos: Any) -> None:
        if self.selected_id() is None:
            return
        menu = QMenu(self)
        menu.addAction("Reopen", lambda: self.reopen())
        menu.addAction("Replay at 1x", lambda: self.reopen(speed=1.0))
        menu.addAction("Save as capture…", lambda: self.save_capture())
        for fmt, title in FORMAT_TITLES.items():
            menu.addAction(f"Export as {title}", self._exporter(fmt))
        menu.addAction("Bug-report bundle…", lambda: self.bundle())
        menu.addSeparator()
        menu.addAction("Delete", self.delete)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    def _exporter(self, fmt: str) -> Callable[[], None]:
        def run() -> None:
            self.export(fmt)

        return run

    def _say(self, message: str) -> None:
        self.message = message
        self.status.setText(message)

    def _path(self, run_id: str) -> Path:
        return Path(self.history.run_file(run_id))  # after the writer: a run just ended is whole

    # ---- actions -----------------------------------------------------------------------------
    def reopen(self, run_id: str | None = None, speed: float = 0.0) -> Any:
        """Read the run's capture and ask the owner to replay it; returns the Capture (or None)."""
        run_id = run_id or self.selected_id()
        if run_id is None or self.history is None:
            return None
        from playground.protocol.capture import read_capture

        try:
            capture = read_capture(self._path(run_id))
        except OSError as exc:
            self._say(f"The run cannot be reopened: {exc.strerror or exc}.")
            return None
        route = capture.route or "chat"
        self.openRequested.emit(capture, route, float(speed))
        self._say(f"Reopened the run of {_when(capture.started_at or '')}.")
        return capture

    def save_capture(self, run_id: str | None = None, target: str | None = None) -> Path | None:
        run_id = run_id or self.selected_id()
        if run_id is None:
            return None
        target = ask_save_path(
            self,
            target,
            self.interactive,
            "Save the run as a capture",
            f"{run_id}.capture.jsonl",
            "Captures (*.jsonl)",
        )
        if target is None:
            return None
        try:
            shutil.copyfile(self._path(run_id), target)
        except OSError as exc:
            self._say(f"The capture was not saved: {exc.strerror or exc}.")
            return None
        self._say(f"Saved {Path(target).name}.")
        return Path(target)

    def export_code(self, fmt: str, run_id: str | None = None) -> str | None:
        run_id = run_id or self.selected_id()
        if run_id is None or self.history is None:
            return None
        from playground.runs.export import export_request

        try:
            loaded = self.history.load_run(run_id)
            return str(export_request(loaded.request, loaded.summary.route, fmt))
        except Exception as exc:  # HistoryError, ExportError: one sentence, no traceback
            self._say(f"The request cannot be exported: {exc}")
            return None

    def export(self, fmt: str, run_id: str | None = None) -> str | None:
        code = self.export_code(fmt, run_id)
        if code is not None:
            show_export(self, fmt, code, interactive=self.interactive)
            self._say(f"The request as {FORMAT_TITLES.get(fmt, fmt)} is on the clipboard.")
        return code

    def bundle(self, run_id: str | None = None, target: str | None = None) -> Path | None:
        run_id = run_id or self.selected_id()
        if run_id is None:
            return None
        target = ask_save_path(
            self,
            target,
            self.interactive,
            "Save a bug-report bundle",
            f"{run_id}.bug-report.zip",
            "Zip (*.zip)",
        )
        if target is None:
            return None
        from playground.runs.bundle import make_bundle

        try:
            out = make_bundle(self._path(run_id), Path(target), secrets=self.secrets())
        except Exception as exc:
            self._say(f"The bundle was not written: {exc}")
            return None
        self._say(f"Wrote {Path(out).name}.")
        return Path(out)

    def delete(self) -> None:
        run_id = self.selected_id()
        if run_id is None or self.history is None:
            return
        if self.interactive:
            answer = QMessageBox.question(
                self, "Delete the run?", "Delete this run from the history?"
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.history.delete_run(run_id)
        self.refresh()
