"""TranscriptView: the transcript as it streams, plus diarized segments (speaker, start–end)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.state import StreamState, TextBuffer

from .live_text import LiveText

__all__ = ["TranscriptView"]


def _time(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "?"


class TranscriptView(QWidget):
    """The transcript live (``transcript.text.delta``), segments as rows (docs/protocol.md §6)."""

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.text = LiveText(split, placeholder="The transcript appears here as it streams.")
        self.text.activated.connect(self.itemActivated)
        self.segments = QTableWidget(0, 3, split)
        self.segments.setHorizontalHeaderLabels(["Speaker", "Start–end (s)", "Text"])
        self.segments.verticalHeader().hide()
        self.segments.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.segments.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.segments.setAlternatingRowColors(True)
        self.segments.hide()
        layout.addWidget(split)
        self._final: TextBuffer | None = None
        self.reset()

    def reset(self) -> None:
        self.text.reset()
        self.segments.setRowCount(0)
        self.segments.hide()
        self._final = None
        self._segments: list[dict[str, Any]] | None = None

    def refresh(self, state: StreamState) -> None:
        if state.segments is not self._segments:
            if self._segments is not None:
                self.reset()  # a new run's state
            self._segments = state.segments
        choice = state.choices.get(0)
        if choice is not None:
            self.text.sync(choice.text)
        rows = self.segments.rowCount()
        for segment in state.segments[rows:]:
            self._add_segment(segment)
        if state.segments and self.segments.isHidden():
            self.segments.show()

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        # transcript.text.done carries the whole text: show it if the deltas did not (or differ).
        done = state.done_text
        choice = state.choices.get(0)
        streamed = choice.text.value if choice is not None else ""
        if done is not None and done.strip() != streamed.strip():
            buffer = TextBuffer()
            buffer.append(done, -1)
            self._final = buffer
            self.text.reset()
            self.text.sync(buffer)

    def highlight_item(self, item: int) -> None:
        self.text.highlight(item)
        for row in range(self.segments.rowCount()):
            cell = self.segments.item(row, 0)
            if cell is not None and cell.data(Qt.ItemDataRole.UserRole) == item:
                self.segments.selectRow(row)

    def has_content(self) -> bool:
        return bool(self.text.shown or self.segments.rowCount())

    @property
    def shown_text(self) -> str:
        return self.text.toPlainText()

    def _add_segment(self, segment: dict[str, Any]) -> None:
        row = self.segments.rowCount()
        self.segments.insertRow(row)
        speaker = QTableWidgetItem(str(segment.get("speaker") or "—"))
        speaker.setData(Qt.ItemDataRole.UserRole, segment.get("item"))
        self.segments.setItem(row, 0, speaker)
        span = f"{_time(segment.get('start'))} – {_time(segment.get('end'))}"
        self.segments.setItem(row, 1, QTableWidgetItem(span))
        self.segments.setItem(row, 2, QTableWidgetItem(str(segment.get("text") or "")))
