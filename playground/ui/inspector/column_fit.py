"""The timeline's columns in a narrow inspector: they shrink (their text elides), never vanish."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

__all__ = ["MIN_COLUMN", "MIN_SUMMARY", "ColumnFit"]

MIN_COLUMN = 28  # a shrunk column still shows a character or two and its elision mark
MIN_SUMMARY = 80  # the summary, the elastic column, keeps at least this much


class ColumnFit(QObject):
    """Keeps every column of ``view`` inside its viewport (no horizontal scrolling).

    The widths the user chose (or the defaults) are the wanted ones; when they do not fit
    beside a third of the room for the summary, the widest columns give way first (Type, whose
    names elide well, before Size or Time), down to ``MIN_COLUMN``, their text elided; the
    summary, stretched last, takes what is left.
    At 1280x720 the inspector lost its Size, Findings and Summary columns off its right edge.
    """

    def __init__(self, view: QTableView, summary: int) -> None:
        super().__init__(view)
        self.view = view
        self.summary = summary
        self.wanted: dict[int, int] = {}
        self._fitting = False
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # "Fi…", not "indin"
        view.viewport().installEventFilter(self)
        view.horizontalHeader().sectionResized.connect(self._resized)

    def take_widths(self) -> None:
        """The header's present widths become the wanted ones (after set-up or a restore)."""
        header = self.view.horizontalHeader()
        self.wanted = {
            col: header.sectionSize(col)
            for col in range(header.count())
            if col != self.summary and not header.isSectionHidden(col)
        }
        self.fit()

    def _resized(self, col: int, _old: int, new: int) -> None:
        if not self._fitting and col != self.summary and col in self.wanted:
            self.wanted[col] = new  # the user dragged it: that is the width wanted now

    def fit(self) -> None:
        header = self.view.horizontalHeader()
        room = self.view.viewport().width()
        if not self.wanted or room <= 0:
            return
        summary = max(MIN_SUMMARY, room // 3)  # the summary is what a reader scans: a third
        cap = _cap(list(self.wanted.values()), room - summary)
        self._fitting = True
        try:
            for col, width in self.wanted.items():
                size = max(MIN_COLUMN, min(width, cap))
                if header.sectionSize(col) != size:
                    header.resizeSection(col, size)
            if header.sectionResizeMode(self.summary) != QHeaderView.ResizeMode.Stretch:
                header.setSectionResizeMode(self.summary, QHeaderView.ResizeMode.Stretch)
        finally:
            self._fitting = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False


def _cap(widths: list[int], room: int) -> int:
    """The largest width L with sum(min(w, L)) <= room: the widest columns are cut to L."""
    if sum(widths) <= room:
        return max(widths, default=0)
    left = room
    ordered = sorted(widths)
    for i, width in enumerate(ordered):
        share = left // (len(ordered) - i)  # what each column from here on may have
        if width > share:
            return max(MIN_COLUMN, share)
        left -= width
    return MIN_COLUMN
