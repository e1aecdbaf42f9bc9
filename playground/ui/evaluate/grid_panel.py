"""The grid tab: run buttons, the progress line, and the table of cells (cases × variants).

A cell's double click asks for its run (its capture) to be opened; what to run is asked of the
window through ``runRequested`` (all, row, column, failed), so this tab holds no suite.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from playground.evaluate.model import MAX_REPEAT
from playground.evaluate.runner import Progress
from playground.ui.evaluate.grid_delegate import CELL_SIZE, GridDelegate
from playground.ui.evaluate.grid_model import GridModel
from playground.ui.kit.account_words import money

__all__ = ["DoneBar", "GridPanel", "experiment_cost", "progress_text"]


def progress_text(progress: Progress | None) -> str:
    """``12 done · 2 failed · 38 remaining · about 14 s left · simulator paused 3 s``."""
    if progress is None:
        return "Not run yet."
    parts = [
        f"{progress.done} done",
        f"{progress.failed} failed",
        f"{progress.remaining} remaining",
    ]
    if progress.running:
        parts.append(f"{progress.running} streaming")
    if progress.eta_s is not None and progress.remaining:
        parts.append(f"about {progress.eta_s:.0f} s left")
    for provider, seconds in sorted(progress.paused.items()):
        parts.append(f"{provider} paused {seconds:.0f} s (rate limited)")
    return " · ".join(parts)


def experiment_cost(model: GridModel) -> str:
    """`` · cost $0.0123`` for the grid's runs together (`` · cost unknown`` when a price is
    unknown); "" before any run ended."""
    total, _priced, unpriced, currency = model.total_cost()
    if total is not None:
        return f" · cost {money(total, currency)}"
    return " · cost unknown" if unpriced else ""


class DoneBar(QWidget):
    """A thin bar: the share of cells done. Painted on the next frame like any widget;
    QProgressBar repaints at once on every value it is given (0.6 ms a frame, measured)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.done, self.total = 0, 0
        self.setFixedHeight(6)

    def set_done(self, done: int, total: int) -> None:
        if (done, total) != (self.done, self.total):
            self.done, self.total = done, total
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        if self.total:
            width = round(self.width() * self.done / self.total)
            painter.fillRect(
                0, 0, width, self.height(), palette.color(QPalette.ColorRole.Highlight)
            )
        painter.end()


class GridPanel(QWidget):
    """The grid and its controls; ``runRequested(kind, index)`` with kind all | row | column |
    failed, ``openRun(capture)`` for a cell's run, ``stopRequested`` for Stop."""

    runRequested = Signal(str, int)
    stopRequested = Signal()
    openRun = Signal(str)

    def __init__(self, model: GridModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.run_all = QPushButton("Run all")
        self.run_failed = QPushButton("Run failed again")
        self.stop = QPushButton("Stop")
        self.stop.setEnabled(False)
        self.repeat = QSpinBox()
        self.repeat.setRange(1, MAX_REPEAT)
        self.repeat.setPrefix("repeat ")
        self.repeat.setToolTip("Runs per cell: a cell shows its pass rate over them")
        self.bar = DoneBar()
        self.status = QLabel("Not run yet.")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableView()
        self.table.setModel(model)
        self.table.setItemDelegate(GridDelegate(self.table))
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setWordWrap(False)
        for header, size in (
            (self.table.horizontalHeader(), CELL_SIZE.width()),
            (self.table.verticalHeader(), CELL_SIZE.height()),
        ):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setDefaultSectionSize(size)
            header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        # Few variants fill the width; six still fit 1280 pixels at the narrowest.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(180)
        self.table.horizontalHeader().customContextMenuRequested.connect(
            lambda p: self._header_menu(p, "column")
        )
        self.table.verticalHeader().customContextMenuRequested.connect(
            lambda p: self._header_menu(p, "row")
        )
        self.table.doubleClicked.connect(self._open)
        self.run_all.clicked.connect(lambda: self.runRequested.emit("all", -1))
        self.run_failed.clicked.connect(lambda: self.runRequested.emit("failed", -1))
        self.stop.clicked.connect(self.stopRequested.emit)
        controls = QHBoxLayout()
        for widget in (self.run_all, self.run_failed, self.stop, self.repeat):
            controls.addWidget(widget)
        controls.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.bar)
        layout.addWidget(self.table, 1)
        hint = QLabel(
            "Double-click a cell to open its run. Right-click a case or a variant to "
            "run its row or column."
        )
        hint.setEnabled(False)
        layout.addWidget(hint)

    def _header_menu(self, point: QPoint, kind: str) -> None:
        header = self.table.horizontalHeader() if kind == "column" else self.table.verticalHeader()
        section = header.logicalIndexAt(point)
        if section < 0:
            return
        menu = QMenu(self)
        name = header.model().headerData(section, header.orientation())
        menu.addAction(f"Run {kind} “{name}”", lambda: self.runRequested.emit(kind, section))
        menu.popup(header.mapToGlobal(point))

    def _open(self, index: QModelIndex) -> None:
        view = self.model.cell_view(index.row(), index.column())
        if view.capture:
            self.openRun.emit(view.capture)

    def show_progress(self, progress: Progress | None, running: bool) -> None:
        self.status.setText(progress_text(progress) + experiment_cost(self.model))
        total = (progress.done + progress.remaining) if progress else 0
        self.bar.set_done(progress.done if progress else 0, total)
        self.stop.setEnabled(running)
        self.run_all.setEnabled(not running)
        self.run_failed.setEnabled(not running)
