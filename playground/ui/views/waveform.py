"""WaveformWidget: paints a PCM Envelope (min/max per bucket), never the samples themselves."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from .envelope import Envelope

__all__ = ["WaveformWidget"]


class WaveformWidget(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.envelope = Envelope()
        self.setMinimumHeight(96)
        self.setMaximumHeight(240)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.color = QColor(52, 152, 219)
        self.mark_color = QColor(255, 200, 0, 90)
        self.min_buckets = 200  # 2 s of 10 ms buckets
        self.marked: tuple[float, float] | None = None  # (start, end) in buckets, linked views

    def clear(self) -> None:
        self.envelope.clear()
        self.marked = None
        self.update()

    def mark(self, span: tuple[float, float] | None) -> None:
        """Shade buckets ``[start, end)`` (an event's share of the audio); None clears it."""
        self.marked = span
        self.update()

    def x_of(self, bucket: float) -> float:
        """Where bucket ``bucket`` is drawn (the same stretch as paintEvent)."""
        n = max(len(self.envelope), 1)
        width = self.width() if n >= self.min_buckets else self.width() * n / self.min_buckets
        return bucket * width / n

    def add(self, data: bytes | bytearray) -> None:
        if self.envelope.add(data):
            self.update()  # Qt coalesces repaints to the frame

    def flush(self) -> None:
        if self.envelope.flush():
            self.update()

    @property
    def points(self) -> int:
        return len(self.envelope)

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        try:
            rect = self.rect()
            mid = rect.height() / 2
            # Stretch to the width, but a short clip (under min_buckets) fills only its share, so
            # the first chunks do not look like a few giant blobs.
            n = len(self.envelope)
            width = rect.width() if n >= self.min_buckets else rect.width() * n // self.min_buckets
            columns = self.envelope.columns(max(1, width)) if n else []
            if not columns:
                painter.setPen(self.palette().placeholderText().color())
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "waveform")
                return
            if self.marked is not None:
                a, b = self.x_of(self.marked[0]), self.x_of(self.marked[1])
                painter.fillRect(QRectF(a, 0, max(2.0, b - a), rect.height()), self.mark_color)
            painter.setPen(QPen(self.palette().mid().color()))
            painter.drawLine(QLineF(0, mid, rect.width(), mid))
            painter.setPen(QPen(self.color))
            scale = mid / 32768.0
            # A lone bucket still gets a visible tick so silence is distinguishable from nothing.
            lines = [
                QLineF(x, mid - hi * scale - 0.5, x, mid - lo * scale + 0.5)
                for x, (lo, hi) in enumerate(columns)
            ]
            painter.drawLines(lines)
        finally:
            painter.end()
