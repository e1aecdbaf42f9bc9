"""The timing charts: event arrivals by channel on a time axis (dead air, milestones), gaps."""

from __future__ import annotations

import bisect
import math

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QToolTip, QWidget

from playground.protocol.timing import CHANNELS, Timing
from playground.protocol.timing_format import CHANNEL_LABELS, format_seconds

__all__ = [
    "CHANNEL_COLORS",
    "CHANNEL_LABELS",
    "DEAD_AIR",
    "ArrivalChart",
    "GapHistogram",
    "format_seconds",
]

# Mid-saturation hues that read on both the dark and the light palette (theme.py).
CHANNEL_COLORS: dict[str, QColor] = {
    "text": QColor(59, 130, 246),
    "reasoning": QColor(168, 85, 247),
    "refusal": QColor(249, 115, 22),
    "tool_args": QColor(16, 185, 129),
    "image": QColor(234, 179, 8),
    "audio": QColor(6, 182, 212),
    "comment": QColor(148, 155, 165),
    "error": QColor(239, 68, 68),
    "meta": QColor(100, 116, 139),
}
DEAD_AIR = QColor(239, 68, 68)


def _nice_step(span: float, target: int) -> float:
    raw = span / max(target, 1)
    if raw <= 0:
        return 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _text_color(widget: QWidget) -> QColor:
    return widget.palette().color(QPalette.ColorRole.WindowText)


def _muted(widget: QWidget) -> QColor:
    c = QColor(_text_color(widget))
    c.setAlpha(120)
    return c


def _fitting_labels(
    groups: list[tuple[float, list[str]]], fm: QFontMetrics, room: float
) -> list[tuple[float, str]]:
    """Each marker group's labels joined with " · " as long as the line fits ``room`` (a narrow
    Compare column cut "headers · first byte · first event" at its edge), then a new line at
    the same marker; a single label wider than the room is left out (its marker stays)."""
    out: list[tuple[float, str]] = []
    for x, labels in groups:
        line: list[str] = []
        for label in labels:
            if line and fm.horizontalAdvance(" · ".join([*line, label])) + 10 > room:
                out.append((x, " · ".join(line)))
                line = []
            line.append(label)
        joined = " · ".join(line)
        out.append((x, joined if fm.horizontalAdvance(joined) + 10 <= room else ""))
    return out


class ArrivalChart(QWidget):
    """A lane per channel with a tick per event, dead air shaded, milestones as markers.

    Ticks are binned per pixel column, so a million events draw as fast as a hundred; clicking
    a tick emits ``itemActivated`` with its timeline index (the selection hub links it to the
    other views).
    """

    itemActivated = Signal(int)

    LEFT = 74
    RIGHT = 12
    LANE_H = 18  # the minimum; lanes grow to fill the widget up to LANE_MAX
    LANE_MAX = 40
    AXIS_H = 20

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._timing: Timing | None = None
        self._lanes: list[str] = []
        self._bins: dict[str, list[int]] = {}
        self._bins_key: tuple[int, int] = (0, 0)
        self._highlight: int | None = None
        self._label_rows = 1
        self._placed: list[tuple[float, int, str, float]] = []
        self._volume: list[int] = []
        self.setMouseTracking(True)
        self.setMinimumHeight(120)

    def sizeHint(self) -> QSize:
        return QSize(640, self._top() + self.LANE_H * max(len(self._lanes), 3) + self.AXIS_H + 8)

    def set_timing(self, timing: Timing | None) -> None:
        self._timing = timing
        present = set(timing.kinds) if timing is not None else set()
        self._lanes = [c for c in CHANNELS if c in present]
        self._bins = {}
        self._bins_key = (0, 0)
        fm = self.fontMetrics()
        self.LEFT = 28 + max(
            (fm.horizontalAdvance(CHANNEL_LABELS.get(c, c)) for c in self._lanes), default=40
        )
        self.setMinimumHeight(8 + 15 * 2 + self.LANE_H * max(len(self._lanes), 1) + self.AXIS_H + 8)
        # Tall enough for every lane at full height and four label rows, no taller.
        self.setMaximumHeight(
            8 + 15 * 4 + self.LANE_MAX * max(len(self._lanes), 1) + self.AXIS_H + 12
        )
        self.updateGeometry()
        self.update()

    def highlight_item(self, item: int | None) -> None:
        self._highlight = item
        self.update()

    # ---- geometry ---------------------------------------------------------------------------
    def _span(self) -> float:
        t = self._timing
        if t is None:
            return 1.0
        return max(t.duration, 1e-3) * 1.03

    def _top(self) -> int:
        return 8 + 15 * self._label_rows

    def _x(self, t: float) -> float:
        width = max(self.width() - self.LEFT - self.RIGHT, 1)
        return self.LEFT + (t / self._span()) * width

    def _t(self, x: float) -> float:
        width = max(self.width() - self.LEFT - self.RIGHT, 1)
        return (x - self.LEFT) / width * self._span()

    def _binned(self) -> dict[str, list[int]]:
        t = self._timing
        width = max(self.width() - self.LEFT - self.RIGHT, 1)
        key = (width, id(t))
        if self._bins_key == key and self._bins:
            return self._bins
        bins = {lane: [0] * (width + 1) for lane in self._lanes}
        volume = [0] * (width + 1)  # bytes per column, for the cumulative "received" line
        if t is not None:
            scale = width / self._span()
            for when, kind, size in zip(t.times, t.kinds, t.sizes):
                x = min(int(when * scale), width)
                column = bins.get(kind)
                if column is not None:
                    column[x] += 1
                volume[x] += size
        self._bins, self._bins_key = bins, key
        self._volume = volume
        return bins

    # ---- painting ---------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        timing = self._timing
        fm = QFontMetrics(self.font())
        if timing is None or not (timing.times or timing.milestones):
            p.setPen(_muted(self))
            p.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                "No run yet: send a prompt or open a capture to see where the time went.",
            )
            p.end()
            return
        label_rows = self._layout_milestones(fm)
        if label_rows != self._label_rows:
            self._label_rows = label_rows
            self.updateGeometry()
        top = self._top()
        lanes = self._lanes or ["meta"]
        room = (self.height() - top - self.AXIS_H - 6) / len(lanes)
        lane_h = int(min(max(room, self.LANE_H), self.LANE_MAX))
        bottom = top + lane_h * len(lanes)
        right = self.width() - self.RIGHT
        text = _text_color(self)
        muted = _muted(self)

        # Lanes: zebra background and a label on the left.
        for i, lane in enumerate(lanes):
            y = top + i * lane_h
            if i % 2:
                p.fillRect(
                    QRectF(self.LEFT, y, right - self.LEFT, lane_h),
                    pal.color(QPalette.ColorRole.AlternateBase),
                )
            color = CHANNEL_COLORS.get(lane, CHANNEL_COLORS["meta"])
            p.fillRect(QRectF(6, y + lane_h / 2 - 4, 8, 8), color)
            p.setPen(text)
            p.drawText(
                QRectF(18, y, self.LEFT - 22, lane_h),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                CHANNEL_LABELS.get(lane, lane),
            )

        # Dead air: shaded, hatched, labelled with its length when there is room.
        for gap in timing.dead_air:
            x0, x1 = self._x(gap.start), self._x(gap.end)
            rect = QRectF(x0, top, max(x1 - x0, 1.0), bottom - top)
            shade = QColor(DEAD_AIR)
            shade.setAlpha(38)
            p.fillRect(rect, shade)
            hatch = QColor(DEAD_AIR)
            hatch.setAlpha(70)
            p.fillRect(rect, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
            label = f"{format_seconds(gap.seconds)} dead air"
            if fm.horizontalAdvance(label) + 8 < rect.width():
                p.setPen(DEAD_AIR)
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)

        # Ticks, binned per pixel column; denser columns draw stronger.
        bins = self._binned()
        for i, lane in enumerate(lanes):
            column = bins.get(lane)
            if not column:
                continue
            color = QColor(CHANNEL_COLORS.get(lane, CHANNEL_COLORS["meta"]))
            y0 = top + i * lane_h + 3
            y1 = y0 + lane_h - 6
            for column_x, count in enumerate(column):
                if count:
                    color.setAlpha(150 if count == 1 else 210 if count < 4 else 255)
                    p.setPen(color)
                    p.drawLine(self.LEFT + column_x, y0, self.LEFT + column_x, y1)

        # Bytes received so far, as a faint rising line behind the ticks: its slope is the
        # throughput, and a flat stretch is a stall anyone can see without reading a number.
        total = sum(self._volume)
        if total > 0:
            line = QColor(text)
            line.setAlpha(90)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.setPen(QPen(line, 1.5))
            height = bottom - top - 4
            running = 0
            last = QPointF(self.LEFT, bottom - 2)
            for column_x, amount in enumerate(self._volume):
                if not amount:
                    continue
                running += amount
                here = QPointF(self.LEFT + column_x, last.y())
                p.drawLine(last, here)
                up = QPointF(self.LEFT + column_x, bottom - 2 - height * running / total)
                p.drawLine(here, up)
                last = up
            p.drawLine(last, QPointF(right, last.y()))
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)

        # The highlighted item (linked selection from the timeline).
        if self._highlight is not None and 0 <= self._highlight < len(timing.times):
            hx = self._x(timing.times[self._highlight])
            hl = QColor(pal.color(QPalette.ColorRole.Highlight))
            p.setPen(QPen(hl, 3))
            p.drawLine(QPointF(hx, top - 2), QPointF(hx, bottom + 2))

        # Milestones: dashed markers and staggered labels above the lanes.
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for mx, row, label, lx in self._placed:
            pen = QPen(muted, 1, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(QPointF(mx, 6 + 15 * row + 3), QPointF(mx, bottom))
            p.setPen(text)
            p.drawText(QPointF(lx, 6 + 15 * row + 10), label)

        # Axis with nice ticks.
        p.setPen(muted)
        p.drawLine(self.LEFT, bottom, right, bottom)
        for tx, (box, label) in self.axis_labels(fm, bottom):
            p.drawLine(QPointF(tx, bottom), QPointF(tx, bottom + 4))
            if label:
                p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, label)
        p.end()

    def axis_labels(
        self, fm: QFontMetrics, bottom: float
    ) -> list[tuple[float, tuple[QRectF, str]]]:
        """Each axis tick's x and its label's box, whole inside the chart: right of its tick, or
        left of it near the right edge ("600 m" was cut at a Compare column's edge); a label that
        would overlap its neighbour or fit neither way is left out (its tick stays)."""
        right = self.width() - self.RIGHT
        span = self._span()
        step = _nice_step(span, max((right - self.LEFT) // 90, 2))
        placed: list[tuple[float, tuple[QRectF, str]]] = []
        free_from = 0.0  # where the previous label ends
        k = 0
        while k * step <= span:
            tx = self._x(k * step)
            label = format_seconds(k * step)
            width = fm.horizontalAdvance(label) + 1
            start = tx + 2 if tx + 2 + width <= self.width() - 2 else tx - 2 - width
            if start < free_from or start < 0:
                label, start = "", tx
            else:
                free_from = start + width + 6
            box = QRectF(start, bottom + 4, width if label else 0, fm.height())
            placed.append((tx, (box, label)))
            k += 1
        return placed

    def milestone_labels(self, fm: QFontMetrics) -> list[tuple[str, float]]:
        """Each milestone label shown and the x its text starts at (laid out for this width)."""
        self._layout_milestones(fm)
        return [(label, lx) for _x, _row, label, lx in self._placed if label]

    def _layout_milestones(self, fm: QFontMetrics) -> int:
        """Merge markers that share a few pixels into one label, then stack labels in up to four
        rows so neighbours never overlap (flipped left of the marker near the right edge)."""
        timing = self._timing
        groups: list[tuple[float, list[str]]] = []
        for m in timing.milestones if timing is not None else []:
            x = self._x(m.t)
            label = f"{m.label} {format_seconds(m.t)}"
            if groups and x - groups[-1][0] < 4:
                groups[-1][1].append(label)
            else:
                groups.append((x, [label]))
        right = self.width() - self.RIGHT
        placed: list[tuple[float, int, str, float]] = []
        ends: list[float] = []
        for x, label in _fitting_labels(groups, fm, right - 2):
            width = fm.horizontalAdvance(label) + 10
            # Right of the marker; left of it near the right edge; never off either edge.
            start = x if x + width <= right else x - width
            start = max(2.0, min(start, right - width))
            end = start + width
            row = next((r for r, e in enumerate(ends) if start >= e), None)
            if row is None:
                if len(ends) < 4:
                    row = len(ends)
                    ends.append(end)
                else:
                    row = min(range(len(ends)), key=ends.__getitem__)
            ends[row] = max(ends[row], end)
            placed.append((x, row, label, start + 3))
        self._placed = placed
        return max(len(ends), 1)

    # ---- interaction ------------------------------------------------------------------------
    def item_at(self, x: float) -> int | None:
        """The timeline item whose tick is nearest ``x`` (within 4 px), if any."""
        timing = self._timing
        if timing is None or not timing.times:
            return None
        t = self._t(x)
        i = bisect.bisect_left(timing.times, t)
        best: int | None = None
        for j in (i - 1, i):
            if 0 <= j < len(timing.times) and (
                best is None or abs(timing.times[j] - t) < abs(timing.times[best] - t)
            ):
                best = j
        if best is None or abs(self._x(timing.times[best]) - x) > 4:
            return None
        return best

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        timing = self._timing
        pos = event.position()
        if timing is None or pos.x() < self.LEFT:
            return
        item = self.item_at(pos.x())
        tip = f"t = {format_seconds(self._t(pos.x()))}"
        if item is not None:
            kind = CHANNEL_LABELS.get(timing.kinds[item], timing.kinds[item])
            tip = (
                f"#{item} · {kind} · {format_seconds(timing.times[item])}"
                f" · {timing.sizes[item]:,} B"
            )
        for gap in timing.dead_air:
            if self._x(gap.start) <= pos.x() <= self._x(gap.end):
                tip += f"\ndead air: {format_seconds(gap.seconds)} after #{gap.after}"
        QToolTip.showText(event.globalPosition().toPoint(), tip, self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        item = self.item_at(event.position().x())
        if item is not None and event.button() == Qt.MouseButton.LeftButton:
            self._highlight = item
            self.update()
            self.itemActivated.emit(item)


class GapHistogram(QWidget):
    """Bars of inter-event gaps over log-spaced bins; the bins past the dead-air line in red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._timing: Timing | None = None
        self.setMinimumSize(220, 110)

    def sizeHint(self) -> QSize:
        return QSize(320, 150)

    def set_timing(self, timing: Timing | None) -> None:
        self._timing = timing
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        timing = self._timing
        bins = timing.histogram if timing is not None else []
        text, muted = _text_color(self), _muted(self)
        if timing is None or not bins:
            p.setPen(muted)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "gaps between events")
            p.end()
            return
        small = QFont(self.font())
        small.setPointSizeF(max(small.pointSizeF() * 0.85, 6.0))
        p.setFont(small)
        fm = QFontMetrics(small)
        left, right, top, bottom = 8, self.width() - 8, 18, self.height() - 20
        p.setPen(text)
        p.drawText(QPointF(left, 13), "gaps between events (log scale)")
        peak = max(b.count for b in bins) or 1
        slot = (right - left) / len(bins)
        threshold = timing.dead_air_threshold
        label_every = max(1, math.ceil((fm.horizontalAdvance("3.2 ms") + 6) / max(slot, 1)))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for i, b in enumerate(bins):
            x = left + i * slot
            h = (bottom - top) * b.count / peak
            if b.count:
                h = max(h, 3.0)  # a lone stall still shows
            dead = b.lo >= threshold
            color = QColor(DEAD_AIR if dead else CHANNEL_COLORS["text"])
            color.setAlpha(200)
            bar = QRectF(x + 1.5, bottom - h, max(slot - 3, 1), h)
            p.fillRect(bar, color)
            if b.count:
                p.setPen(text)
                p.drawText(
                    QRectF(x, bottom - h - 14, slot, 13),
                    Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                    f"{b.count}",
                )
            if i % label_every == 0:
                p.setPen(muted)
                edge = "0" if b.lo == 0 else format_seconds(b.lo)
                p.drawText(QPointF(x + 1, bottom + 13), edge)
        p.setPen(muted)
        p.drawLine(left, bottom, right, bottom)
        p.end()
