"""Where the time went: the current run's arrival chart, gap histogram and figures, in a dock."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.figures import BY_KEY, FIGURES, RATE, figure_values
from playground.protocol.timing import CHANNELS, Timing, compute_timing
from playground.protocol.timing_format import CHANNEL_LABELS, figures, format_seconds
from playground.ui.views.timing_chart import (
    CHANNEL_COLORS,
    DEAD_AIR,
    ArrivalChart,
    GapHistogram,
)

if TYPE_CHECKING:
    from playground.ui.runtime.current_run import CurrentRun
    from playground.ui.runtime.session import StreamSession

__all__ = ["TimingView", "figures", "timing_of_session"]


class TimingView(QWidget):
    """The "where the time went" pane: the arrival chart above, the histogram and figures below.

    ``set_timing`` shows a computed Timing; ``follow(session)`` keeps it current for a panel,
    recomputing at most a few times a second while streaming (and never while hidden).
    """

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timing: Timing | None = None
        self.chart = ArrivalChart(self)
        self.histogram = GapHistogram(self)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["figure", "value"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.legend = QLabel(self)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.summary.setToolTip("\n".join(f.tip for f in (*FIGURES, RATE)))

        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.histogram)
        lower.addWidget(self.table)
        lower.setStretchFactor(0, 1)
        lower.setStretchFactor(1, 1)
        outer = QSplitter(Qt.Orientation.Vertical, self)
        chart_box = QWidget(self)
        chart_layout = QVBoxLayout(chart_box)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chart_layout.addWidget(self.summary)
        chart_layout.addWidget(self.chart, 1)
        legend_row = QHBoxLayout()
        legend_row.addWidget(self.legend)
        legend_row.addStretch(1)
        chart_layout.addLayout(legend_row)
        outer.addWidget(chart_box)
        outer.addWidget(lower)
        outer.setStretchFactor(0, 3)
        outer.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(outer)
        self._outer, self._lower = outer, lower
        self.chart.itemActivated.connect(self.itemActivated)

        self._session: StreamSession | None = None
        self._dirty = False
        self._cost = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.recompute)
        self.set_timing(None)

    # ---- showing -----------------------------------------------------------------------------
    def set_timing(self, timing: Timing | None) -> None:
        self.timing = timing
        self.chart.set_timing(timing)
        self.histogram.set_timing(timing)
        rows = figures(timing) if timing is not None else []
        self.table.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            self.table.setItem(r, 1, QTableWidgetItem(value))
        kinds = set(timing.kinds) if timing is not None else set()
        present = [k for k in CHANNELS if k in kinds]
        self.legend.setText(
            "  ".join(
                f'<span style="color:{CHANNEL_COLORS[k].name()}">■</span> {CHANNEL_LABELS[k]}'
                for k in present
            )
            + (
                f'  <span style="color:{DEAD_AIR.name()}">▨</span> dead air'
                if timing is not None and timing.dead_air
                else ""
            )
            + ("  ╱ bytes received" if present else "")
        )
        self.summary.setText(self._headline(timing))

    @staticmethod
    def _headline(timing: Timing | None) -> str:
        if timing is None:
            return ""
        # The figures every view shows, by their one definition and name (protocol/figures.py);
        # the first thinking and answer tokens only when they differ from the first token.
        values = figure_values(timing)
        parts = [
            f"<b>{format_seconds(values['first_byte'])}</b> to {BY_KEY['first_byte'].name}",
            f"<b>{format_seconds(values['first_token'])}</b> to {BY_KEY['first_token'].name}",
        ]
        for key in ("first_thinking", "first_answer", "first_tool_args"):
            value = values[key]
            if value is not None and value != values["first_token"]:
                parts.append(f"<b>{format_seconds(value)}</b> to {BY_KEY[key].name}")
        rate = timing.output_tokens_per_second  # the status line's tok/s (figures.py RATE)
        if rate is not None:
            parts.append(f"<b>{rate:.1f}</b> {RATE.short}")
        parts.append(f"<b>{format_seconds(timing.duration)}</b> total")
        if timing.dead_air:
            parts.append(
                f'<span style="color:{DEAD_AIR.name()}"><b>'
                f"{format_seconds(timing.dead_air_total)}</b> dead air</span>"
            )
        return " · ".join(parts)

    def highlight_item(self, item: int) -> None:
        self.chart.highlight_item(item)

    def clear(self) -> None:
        self.set_timing(None)

    # ---- following a session -----------------------------------------------------------------
    def subscribe(self, current: CurrentRun) -> None:
        """Keep the view current for the run in focus (CurrentRun relays its session's signals)."""
        current.changed.connect(self._focus)
        current.started.connect(self._on_started)
        current.updated.connect(self._on_updated)
        current.finished.connect(self._on_finished)
        self._focus(current.session)

    def _focus(self, session: StreamSession | None) -> None:
        if session is self._session:
            return
        self._session = session
        self.recompute()

    def _on_started(self) -> None:
        self._timer.stop()
        self.set_timing(None)

    def _on_updated(self) -> None:
        self._dirty = True
        if not self._timer.isActive():
            # At most ~4 times a second, and never more than 20% of the time spent computing.
            self._timer.start(int(max(250.0, self._cost * 5000)))

    def _on_finished(self, _status: str = "") -> None:
        self._timer.stop()
        self.recompute()

    def recompute(self) -> None:
        session = self._session
        if session is None or session.decoder is None:
            self.set_timing(None)
            return
        if not self.isVisible():
            self._dirty = True  # showEvent catches up
            return
        self._dirty = False
        started = time.perf_counter()
        self.set_timing(timing_of_session(session))
        self._cost = time.perf_counter() - started

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        # Wide and short (a bottom dock): chart | histogram over figures. Otherwise stacked.
        wide = self.width() > 2.4 * self.height()
        outer = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self._outer.orientation() != outer:
            self._outer.setOrientation(outer)
            self._lower.setOrientation(
                Qt.Orientation.Vertical if wide else Qt.Orientation.Horizontal
            )
            total = self.width() if wide else self.height()
            self._outer.setSizes([int(total * 0.6), int(total * 0.4)])

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._dirty:
            QTimer.singleShot(0, self.recompute)


def timing_of_session(session: StreamSession) -> Timing | None:
    """compute_timing for a StreamSession's current run (its decoder and RunRecord times)."""
    decoder = session.decoder
    if decoder is None:
        return None
    run = session.run
    return compute_timing(decoder, run.t_headers, run.t_first_byte, t_end=run.t_end)
