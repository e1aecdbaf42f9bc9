"""TimelineFilter: a filtered view of TimelineModel as a plain array of source rows."""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from .timeline_model import COL_FINDINGS, TimelineModel

__all__ = ["TimelineFilter"]

Index = QModelIndex | QPersistentModelIndex


class TimelineFilter(QAbstractTableModel):
    """Rows of the source that match a type, a text and/or "has findings".

    With no filter it passes rows straight through (no index list at all); with one it keeps an
    ``array`` of matching source rows, extended as rows are appended — unlike
    QSortFilterProxyModel, whose per-row mapping objects cost far more at a million rows.
    """

    def __init__(self, source: TimelineModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.source = source
        self._type: int | None = None
        self._type_name: str | None = None
        self._text = ""
        self._pattern: re.Pattern[bytes] | None = None
        self._findings_only = False
        self._rows: array | None = None  # type: ignore[type-arg]  # None = every source row
        source.rowsAboutToBeInserted.connect(self._source_about_to_insert)
        source.rowsInserted.connect(self._source_inserted)
        source.modelAboutToBeReset.connect(self.beginResetModel)
        source.modelReset.connect(self._source_reset)
        source.dataChanged.connect(self._source_changed)
        source.findingsChanged.connect(self._findings_changed)
        self._inserting = False

    # -- filter --------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._rows is not None

    @property
    def type_filter(self) -> str | None:
        return self._type_name

    @property
    def text_filter(self) -> str:
        return self._text

    @property
    def findings_only(self) -> bool:
        return self._findings_only

    def set_filter(
        self, type_name: str | None = None, text: str = "", findings_only: bool = False
    ) -> None:
        """Show rows of ``type_name`` (None = all) whose type, summary or raw bytes contain
        ``text`` (case-insensitive), and only rows with findings if ``findings_only``."""
        self.beginResetModel()
        self._type_name = type_name or None
        self._text = text
        self._pattern = re.compile(re.escape(text.encode("utf-8")), re.IGNORECASE) if text else None
        self._findings_only = findings_only
        self._rows = None
        if self._type_name or text or findings_only:
            self._rows = array("q")
            self._scan(0, self.source.rowCount())
        self.endResetModel()

    def clear_filter(self) -> None:
        self.set_filter(None, "", False)

    def _scan(self, first: int, stop: int) -> list[int]:
        """Append the matching source rows in ``[first, stop)`` to the index; return them."""
        rows = self._rows
        assert rows is not None
        source = self.source
        types = source.types_column
        wanted: int | None = None
        if self._type_name is not None:
            wanted = source.type_id_of(self._type_name)
            if wanted is None:
                return []
        added: list[int]
        if wanted is not None and self._pattern is None and not self._findings_only:
            # The common "one type" filter: array.index runs in C, no Python per row.
            added = []
            index = types.index
            row = first
            while True:
                try:
                    row = index(wanted, row, stop)
                except ValueError:
                    break
                added.append(row)
                row += 1
        else:
            candidates: Iterable[int] = range(first, stop)
            if wanted is not None:
                candidates = [r for r in candidates if types[r] == wanted]
            if self._findings_only:
                worst = source.worst_column
                candidates = [r for r in candidates if worst[r]]
            pattern = self._pattern
            if pattern is not None:
                # A type whose name matches lets all its rows through; else search the raw bytes
                # (comments' text is in their raw bytes too). One C call per row.
                lowered = self._text.lower()
                hit_types = {
                    i for i, name in enumerate(source.type_names) if lowered in name.lower()
                }
                raw_of = source.raw_of
                search = pattern.search
                added = [r for r in candidates if types[r] in hit_types or search(raw_of(r))]
            else:
                added = list(candidates)
        rows.extend(added)
        return added

    # -- mapping -------------------------------------------------------------------------------

    def map_to_source(self, row: int) -> int:
        return row if self._rows is None else self._rows[row]

    def map_from_source(self, source_row: int) -> int | None:
        """The row showing ``source_row``, or None if the filter hides it."""
        if self._rows is None:
            return source_row if 0 <= source_row < self.source.rowCount() else None
        i = bisect.bisect_left(self._rows, source_row)
        if i < len(self._rows) and self._rows[i] == source_row:
            return i
        return None

    # -- Qt model ------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        if self._rows is None:
            return self.source.rowCount() if not self._inserting else self._pending_base
        return len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.source.columnCount()

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        return self.source.headerData(section, orientation, role)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, col: int, role: int) -> Any:
        """``data()`` by plain numbers: a source QModelIndex per call would cost more than the
        answer (the table paints by these, timeline_view.py)."""
        if self._rows is not None:
            if row >= len(self._rows):
                return None
            row = self._rows[row]
        return self.source.cell(row, col, role)

    # -- following the source ------------------------------------------------------------------

    def _source_about_to_insert(self, parent: QModelIndex, first: int, last: int) -> None:
        if self._rows is None:
            # Pass-through: mirror the insert exactly (one beginInsertRows per source batch).
            self._pending_base = first
            self._inserting = True
            self.beginInsertRows(QModelIndex(), first, last)

    def _source_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if self._rows is None:
            if self._inserting:
                self._inserting = False
                self.endInsertRows()
            return
        rows = self._rows
        base = len(rows)
        # Scan into a scratch list first so rowCount stays right until beginInsertRows.
        self._rows = array("q")
        added = self._scan(first, last + 1)
        self._rows = rows
        if added:
            self.beginInsertRows(QModelIndex(), base, base + len(added) - 1)
            rows.extend(added)
            self.endInsertRows()

    def _source_reset(self) -> None:
        if self._rows is not None:
            self._rows = array("q")
            self._scan(0, self.source.rowCount())
        self.endResetModel()

    def _source_changed(self, top: QModelIndex, bottom: QModelIndex, roles: Any = None) -> None:
        if self._rows is None:
            self.dataChanged.emit(
                self.index(top.row(), top.column()), self.index(bottom.row(), bottom.column())
            )
            return
        lo = bisect.bisect_left(self._rows, top.row())
        hi = bisect.bisect_right(self._rows, bottom.row()) - 1
        if lo <= hi:
            self.dataChanged.emit(self.index(lo, COL_FINDINGS), self.index(hi, COL_FINDINGS))

    def _findings_changed(self) -> None:
        if self._findings_only:
            self.set_filter(self._type_name, self._text, True)
