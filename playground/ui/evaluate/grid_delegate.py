"""Paints one grid cell: status, pass count, figures, a square per check, and the answer's end.

One delegate paints every cell from its ``CellView``; there is no widget per cell, so a grid of
hundreds of streams costs only the cells on screen.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from playground.ui.evaluate.grid_model import CELL_ROLE, CellView
from playground.ui.kit.account_words import money

__all__ = ["CELL_SIZE", "GridDelegate", "status_line"]

CELL_SIZE: Final = QSize(260, 92)
_PAD: Final = 6
_SQUARE: Final = 9
# Status tints, light and dark: the text stays the palette's, only the ground says the verdict.
_TINTS: Final = {
    "pass": ("#dff3e3", "#1f3d27"),
    "fail": ("#fbe0df", "#4a2224"),
    "error": ("#f6d3d1", "#55201f"),
    "mixed": ("#fbf0d2", "#4a3f1d"),
    "running": ("#e3ecfa", "#1f2f47"),
    "cancelled": ("#ececec", "#333333"),
}
_PASS: Final = QColor("#2e9d4b")
_FAIL: Final = QColor("#d0342c")


def status_line(view: CellView) -> str:
    """``pass 3/3 · 48 ms (40–60) · 126 tok · 1.2 s · $0.0012``: the verdict and the figures
    (the cost of its repeats together)."""
    head = view.status
    scored = view.finished - view.cancelled  # a cancelled repeat has no verdict to count
    if view.repeats > 1 and 0 < view.finished < view.repeats:
        # Part way through its repeats: how many ran, then how those went ("running 1/1
        # (1/3 run)" read as a verdict of one repeat out of one).
        head += f" {view.finished} of {view.repeats}" + (
            f" · {view.passed}/{scored} passed" if scored else ""
        )
    elif (view.repeats > 1 or view.cancelled) and scored:
        head += f" {view.passed}/{scored}"
    parts = [head]
    if view.ttft_ms is not None:
        ttft = f"{view.ttft_ms:.0f} ms"
        if view.ttft_spread is not None:
            ttft += f" ({view.ttft_spread[0]:.0f}–{view.ttft_spread[1]:.0f})"
        parts.append(ttft)
    if view.output_tokens is not None:
        parts.append(f"{view.output_tokens} tok")
    if view.duration_ms is not None:
        parts.append(f"{view.duration_ms / 1000:.1f} s")
    if view.cost is not None:
        parts.append(money(view.cost, view.currency))
    elif view.unpriced:
        parts.append("cost unknown")
    return " · ".join(parts)


class GridDelegate(QStyledItemDelegate):
    """Draws a ``CellView`` (the model's CELL_ROLE) straight onto the view."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return CELL_SIZE

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        view = index.data(CELL_ROLE)
        if not isinstance(view, CellView):
            return
        palette = option.palette
        rect: QRect = option.rect
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        painter.save()
        tint = _TINTS.get(view.status)
        ground = (
            QColor(tint[1] if dark else tint[0]) if tint else palette.color(QPalette.ColorRole.Base)
        )
        painter.fillRect(rect, ground)
        if option.state & QStyle.StateFlag.State_Selected:
            painter.setPen(palette.color(QPalette.ColorRole.Highlight))
            painter.drawRect(rect.adjusted(0, 0, -1, -1))
        inner = rect.adjusted(_PAD, _PAD // 2, -_PAD, -_PAD // 2)
        metrics = option.fontMetrics
        line = metrics.height()
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        head = metrics.elidedText(status_line(view), Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(inner.left(), inner.top() + metrics.ascent(), head)
        top = inner.top() + line + 2
        x = inner.left()
        for _kind, ok, _value, _detail in view.checks[: max(0, inner.width() // (_SQUARE + 3))]:
            painter.fillRect(QRect(x, top, _SQUARE, _SQUARE), _PASS if ok else _FAIL)
            x += _SQUARE + 3
        if view.checks:
            top += _SQUARE + 3
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        text = " ".join(view.text.split())
        lines = max(0, (inner.bottom() - top) // line)
        if view.status == "cancelled" and not text:
            text = "stopped before it was scored"
        if text and lines:
            box = QRect(inner.left(), top, inner.width(), lines * line)
            shown = _tail_that_fits(metrics, text, inner.width(), lines, view.status == "running")
            painter.drawText(box, int(Qt.TextFlag.TextWordWrap), shown)
        painter.restore()


def _tail_that_fits(metrics: QFontMetrics, text: str, width: int, lines: int, tail: bool) -> str:
    """A streaming answer shows its end (what just arrived), a finished one its start."""
    room = max(8, (width // max(1, metrics.averageCharWidth())) * lines)
    if len(text) <= room:
        return text
    return "…" + text[-(room - 1) :] if tail else text[: room - 1] + "…"
