"""The timeline table: a QTableView whose visible rows are painted in one pass over the model.

QTableView paints a cell through the style's item delegate, which asks the model for seven roles
of every visible cell: on a Python model that is a thousand calls from C++ into Python per
repaint of a 440 px table, and each may wait for the GIL behind the busy reader thread. Measured
on a 2-core AMD EPYC while a stream ran at 2,000 tokens/s: 16 ms per repaint, the UI thread's
longest block (ui_stall_2k_p99_ms). Here one ``paintEvent`` reads each row's texts by plain
numbers from the model (``cell(row, column, role)``) and draws them with the painter, about
four times less CPU for the same pixels. Selection, scrolling, headers, tooltips and keys stay
QTableView's own.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QStyle, QTableView

__all__ = ["TimelineView"]

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_DECORATION = int(Qt.ItemDataRole.DecorationRole)
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
# The style's text margin in an item view cell (QStyle::PM_FocusFrameHMargin + 1 under Fusion).
_MARGIN = 3
_ELIDE = Qt.TextElideMode.ElideRight
# The widest letter of Latin text in common UI fonts; a CJK or emoji text wider than this many
# "W"s is clipped at the cell's edge rather than elided (its width is not measured first).
_WIDEST = "W"
# (logical index, x, width, font, alignment, characters that always fit, font metrics)
_Column = tuple[int, int, int, QFont, int, int, QFontMetrics]


class CellSource(Protocol):
    """A model that answers ``data()`` by plain numbers too (the timeline model and its filter)."""

    def cell(self, row: int, col: int, role: int) -> Any: ...


class TimelineView(QTableView):
    """The event timeline's table (fixed row height, no grid, whole rows selected)."""

    # Columns whose cells may have an icon (DecorationRole): the others are not asked for one.
    decorated_columns: frozenset[int] = frozenset()
    # Since the view last laid its items out: the first row appended at the end (None: none),
    # and whether anything else changed (a reset, a removal, another model): see doItemsLayout.
    _appended_from: int | None = None
    _relayout_all = True

    # -- rows appended at the end repaint only themselves ---------------------------------------
    # QTableView lays its items out again after every insert, and QAbstractItemView's layout
    # repaints the whole viewport: each batch of new events repainted every visible row, 4.8 ms
    # a time on a 2-core VM in a long session, where the scroll to the newest row (a blit of
    # what is already painted) and the new rows' own strip are all that changed.
    def rowsInserted(
        self, parent: QModelIndex | QPersistentModelIndex, start: int, end: int
    ) -> None:
        super().rowsInserted(parent, start, end)
        model = self.model()
        at_end = model is not None and not parent.isValid() and end == model.rowCount() - 1
        if not at_end:
            self._relayout_all = True
        elif self._appended_from is None:
            self._appended_from = start

    def rowsAboutToBeRemoved(
        self, parent: QModelIndex | QPersistentModelIndex, start: int, end: int
    ) -> None:
        self._relayout_all = True
        super().rowsAboutToBeRemoved(parent, start, end)

    def reset(self) -> None:
        self._relayout_all = True
        super().reset()

    def setModel(self, model: QAbstractItemModel | None) -> None:
        self._relayout_all = True
        super().setModel(model)

    def doItemsLayout(self) -> None:
        first, self._appended_from = self._appended_from, None
        everything, self._relayout_all = self._relayout_all, False
        if everything or first is None:
            super().doItemsLayout()
            return
        self.updateGeometries()  # the scroll bar's range: the rows appended are reachable
        viewport = self.viewport()
        # Where the first new row begins (fixed row height), up to the viewport's top.
        top = max(0, first * self.verticalHeader().defaultSectionSize() - self.verticalOffset())
        if top < viewport.height():
            viewport.update(QRect(0, top, viewport.width(), viewport.height() - top))

    def paintEvent(self, event: QPaintEvent) -> None:
        model = self.model()
        cell = getattr(model, "cell", None)
        if cell is None:  # the column-titles stand-in before the first run
            super().paintEvent(event)
            return
        rows = model.rowCount()
        if rows == 0:
            return
        area = event.rect()
        height = self.verticalHeader().defaultSectionSize()
        offset = self.verticalHeader().offset()
        first = max(0, (area.top() + offset) // height)
        last = min(rows - 1, (area.bottom() + offset) // height)
        if first > last:
            return
        columns = self._columns(area, cell, first)
        if not columns:
            return
        left = min(column[1] for column in columns)
        right = max(column[1] + column[2] for column in columns)
        palette = self.palette()
        group = (
            QPalette.ColorGroup.Disabled
            if not self.isEnabled()
            else QPalette.ColorGroup.Active
            if self.isActiveWindow()
            else QPalette.ColorGroup.Inactive
        )
        alternate = palette.color(group, QPalette.ColorRole.AlternateBase)
        highlight = palette.color(group, QPalette.ColorRole.Highlight)
        chosen = palette.color(group, QPalette.ColorRole.HighlightedText)
        text = palette.color(group, QPalette.ColorRole.Text)
        selection = self.selectionModel()
        selected = {
            index.row() for index in (selection.selectedRows() if selection is not None else [])
        }
        stripes = self.alternatingRowColors()
        icon_width, icon_height = self.iconSize().width(), self.iconSize().height()
        if icon_width <= 0 or icon_height <= 0:
            icon_width = icon_height = self.style().pixelMetric(
                QStyle.PixelMetric.PM_SmallIconSize, None, self
            )
        decorated = self.decorated_columns
        painter = QPainter(self.viewport())
        try:
            painter.setClipRect(area)
            # Backgrounds and each row's pen first, then column by column: one font change per
            # column, not one per cell.
            pens = []
            for row in range(first, last + 1):
                y = row * height - offset
                if row in selected:
                    painter.fillRect(QRect(left, y, right - left, height), highlight)
                    pens.append(chosen)
                    continue
                if stripes and row % 2:
                    painter.fillRect(QRect(left, y, right - left, height), alternate)
                colour = cell(row, 0, _FOREGROUND)
                pens.append(colour if isinstance(colour, QColor) else text)
            for col, x, width, font, align, fits, metrics in columns:
                painter.setFont(font)
                pen: QColor | None = None
                for row, row_pen in enumerate(pens, first):
                    y = row * height - offset
                    box = QRect(x + _MARGIN, y, width - 2 * _MARGIN, height)
                    limit = fits
                    if col in decorated:
                        icon = cell(row, col, _DECORATION)
                        if isinstance(icon, QIcon):
                            top = y + (height - icon_height) // 2
                            icon.paint(painter, QRect(box.left(), top, icon_width, icon_height))
                            box.setLeft(box.left() + icon_width + 2 * _MARGIN - 1)
                            limit = -1
                    value = cell(row, col, _DISPLAY)
                    if not value or box.width() <= 0:
                        continue
                    shown = str(value)
                    if len(shown) > limit:
                        shown = metrics.elidedText(shown, _ELIDE, box.width())
                    if row_pen is not pen:
                        painter.setPen(row_pen)
                        pen = row_pen
                    painter.drawText(box, align, shown)
        finally:
            painter.end()

    def _columns(self, area: QRect, cell: Any, row: int) -> list[_Column]:
        """The columns visible in ``area``, each with what every row of it is painted with.

        A column's font and alignment are the same on every row (numbers are monospaced and
        right-aligned), so they are asked once per paint, of its first row. ``fits``: texts up
        to that many characters fit whatever they say (at the font's widest common letter) and
        are drawn without eliding, which lays the text out a second time.
        """
        header = self.horizontalHeader()
        plain = self.font()
        columns = []
        for col in range(header.count()):
            if header.isSectionHidden(col):
                continue
            x = header.sectionViewportPosition(col)
            width = header.sectionSize(col)
            if width <= 0 or x + width <= area.left() or x > area.right():
                continue
            own = cell(row, col, _FONT)
            font = own if isinstance(own, QFont) else plain
            align = cell(row, col, _ALIGNMENT)
            metrics = QFontMetrics(font)
            widest = max(metrics.horizontalAdvance(_WIDEST), 1)
            fits = (width - 2 * _MARGIN) // widest
            columns.append(
                (col, x, width, font, int(align) if align is not None else _LEFT, fits, metrics)
            )
        return columns
